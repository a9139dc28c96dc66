// Internal to reports/: text made safe for XML and HTML (JUnit, parity.html).
#pragma once

#include <string>
#include <string_view>

namespace gp {

// The five special characters as entities, and the control characters XML 1.0 cannot hold at
// all (driver messages sometimes carry them) as '?'.
inline std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') ? '?' : ch;
    }
  }
  return out;
}

}  // namespace gp
