// Attribute spelling, generated from core/attr_list.hpp: ids, reports, the plugin ABI's
// attrs_text and `gradparity list` all read it from here.
#include <array>
#include <cstdio>
#include <string>

#include "core/op.hpp"

namespace gp {

namespace {

// "key=value" parts joined by commas, in the list's order.
struct Spelling {
  std::string text;
  void add(std::string_view key, const std::string& value) {
    if (!text.empty()) text += ',';
    text.append(key);
    text += '=';
    text += value;
  }
};

// "%g": 1e-05, 0.5, 2 (the spelling ids have always had)
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string whole(std::int64_t v) { return std::to_string(v); }

std::string dims(const std::vector<std::int64_t>& d) { return Shape(d).to_string(); }

using Speller = void (*)(const OpAttrs&, Spelling&);

constexpr std::array<Speller, kAttrCount> kSpellers = {
#define GP_X(name, keys, spell) [](const OpAttrs& a, Spelling& s) { spell; },
    GP_ATTR_LIST(GP_X)
#undef GP_X
};

constexpr std::array<std::string_view, kAttrCount> kKeys = {
#define GP_X(name, keys, spell) keys,
    GP_ATTR_LIST(GP_X)
#undef GP_X
};

}  // namespace

std::string attrs_to_string(OpKind k, const OpAttrs& a) {
  Spelling s;
  for (unsigned i = 0; i < kAttrCount; ++i)
    if (op_attr_set(k) & (1u << i)) kSpellers[i](a, s);
  return s.text;
}

std::string attr_keys(OpKind k) {
  std::string out;
  for (unsigned i = 0; i < kAttrCount; ++i)
    if (op_attr_set(k) & (1u << i)) {
      if (!out.empty()) out += ", ";
      out.append(kKeys[i]);
    }
  return out;
}

}  // namespace gp
