// Text helpers and orderings shared by the parity.md sections.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "core/enum_table.hpp"
#include "core/op.hpp"
#include "reports/markdown_sections.hpp"
#include "results/result_names.hpp"

namespace gp::md {

std::string_view verdict_symbol(Verdict v) {
  static constexpr std::string_view kSymbols[] = {"✅", "❌", "⏭️", "⚠️", "💥"};  // in kAllVerdicts' order
  static_assert(std::size(kSymbols) == std::size(kAllVerdicts));
  return enum_row(kSymbols, v);
}

std::string verdict_badge(Verdict v) { return fmt::format("{} {}", verdict_symbol(v), verdict_name(v)); }

std::string cell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    if (ch == '|') {
      out += "\\|";
    } else if (ch == '\n' || ch == '\r') {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out;
}

std::string code(std::string_view text) {
  if (text.empty()) return "";
  // The fence must be longer than any run of backticks inside the text.
  std::size_t longest = 0, run = 0;
  for (char ch : text) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const bool pad = text.front() == '`' || text.back() == '`';
  return fence + (pad ? " " : "") + cell(text) + (pad ? " " : "") + fence;
}

std::string g3(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{:.3g}", x);
}

std::string exact(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{}", x);
}

std::string shorten(std::string_view text, std::size_t max_chars) {
  std::size_t chars = 0, pos = 0;
  while (pos < text.size()) {
    if (chars == max_chars) return std::string(text.substr(0, pos)) + "…";
    ++pos;  // skip UTF-8 continuation bytes so a character is never cut in half
    while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) ++pos;
    ++chars;
  }
  return std::string(text);
}

namespace {

bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }
bool is_word(char ch) { return is_digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_'; }

// The end of the number starting at `i`: digits, a fraction, an exponent.
std::size_t number_end(std::string_view s, std::size_t i) {
  auto digits = [&] {
    while (i < s.size() && is_digit(s[i])) ++i;
  };
  digits();
  if (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) ++i, digits();
  if (i + 1 < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '-' || s[j] == '+')) ++j;
    if (j < s.size() && is_digit(s[j])) i = j, digits();
  }
  return i;
}

}  // namespace

std::string skip_group(const CheckResult& c) {
  if (c.reason_kind == ReasonKind::none) return reason_class(c.reason);  // untyped: an older document
  if (c.reason.empty()) return std::string(reason_kind_name(c.reason_kind));
  return fmt::format("{}: {}", reason_kind_name(c.reason_kind), reason_class(c.reason));
}

std::string reason_class(std::string_view reason) {
  std::string out;
  out.reserve(reason.size());
  std::size_t i = 0;
  while (i < reason.size()) {
    const char ch = reason[i];
    const char before = out.empty() ? ' ' : out.back();
    if (!is_digit(ch) || is_word(before) || before == '.' || before == '^' ||
        (before == '-' && out.size() >= 2 && out[out.size() - 2] == '^')) {
      out += ch;
      ++i;
      continue;
    }
    const std::size_t end = number_end(reason, i);
    const std::string_view number = reason.substr(i, end - i), rest = reason.substr(end);
    // Kept: names and powers (f32, 2^-11, 16-bit) and the "1 + eps" of a scaling.
    const bool kept = (!rest.empty() && (is_word(rest.front()) || rest.front() == '^')) || rest.starts_with("-bit") ||
                      (number == "1" && rest.starts_with(" + "));
    out += kept ? number : "…";
    i = end;
  }
  return out;
}

std::string op_of(const CheckResult& c) {
  if (!c.op.empty()) return c.op;
  std::string_view id = c.case_id;
  return std::string(id.substr(0, id.find('(')));
}

bool forward_only(std::string_view op) {
  const std::optional<OpKind> k = parse_op(op);
  return k && op_is_forward_only(*k);
}

std::vector<std::string> ops_in_catalog_order(const std::vector<CheckResult>& checks) {
  std::vector<std::string> ops;
  for (const CheckResult& c : checks) {
    std::string op = op_of(c);
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(std::move(op));
  }
  auto rank = [](const std::string& op) {
    auto kind = parse_op(op);
    return kind ? static_cast<int>(*kind) : static_cast<int>(all_ops().size());
  };
  std::sort(ops.begin(), ops.end(), [&](const std::string& a, const std::string& b) {
    int ra = rank(a), rb = rank(b);
    return ra != rb ? ra < rb : a < b;
  });
  return ops;
}

std::vector<std::string> backends_in_order(const RunReport& report) {
  std::vector<std::string> ids;
  auto add = [&](const std::string& id) {
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  };
  auto has_checks = [&](const std::string& id) {
    return std::any_of(report.checks.begin(), report.checks.end(),
                       [&](const CheckResult& c) { return c.backend == id; });
  };
  for (const DeviceSummary& d : report.meta.devices)
    if (has_checks(d.id)) add(d.id);  // devices without checks show in the device table only
  for (const CheckResult& c : report.checks) add(c.backend);
  return ids;
}

}  // namespace gp::md
