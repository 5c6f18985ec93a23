#include "frontend/sass/sass_operand.h"

#include <cctype>
#include <cstdlib>
#include <vector>

namespace warpsim::sass {
namespace {

bool all_digits(const std::string& s, size_t from) {
  if (from >= s.size()) return false;
  for (size_t i = from; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

bool parse_int(const std::string& s, int64_t& v) {
  if (s.empty()) return false;
  const bool neg = s[0] == '-';
  const std::string body = neg || s[0] == '+' ? s.substr(1) : s;
  if (body.empty()) return false;
  char* end = nullptr;
  const bool hex = body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X');
  if (!hex && !all_digits(body, 0)) return false;
  const uint64_t u = std::strtoull(body.c_str(), &end, hex ? 16 : 10);
  if (*end != '\0') return false;
  v = neg ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
  return true;
}

bool is_float_text(const std::string& s) {
  const std::string b = (s[0] == '-' || s[0] == '+') ? s.substr(1) : s;
  if (b == "INF" || b == "QNAN" || b == "NAN") return true;
  if (b.empty() || !std::isdigit(static_cast<unsigned char>(b[0]))) return false;
  char* end = nullptr;
  std::strtod(b.c_str(), &end);
  return *end == '\0' && b.find_first_of(".eE") != std::string::npos;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

// [R2.64+UR4+0x10], [R0.X4], [UR6], [0x10], [R7+-0x8]
bool parse_address(const std::string& inside, SassOperand& o, std::string& why) {
  o.kind = SassOperand::Kind::kAddress;
  std::string s;
  for (char c : inside)
    if (c != ' ') s += c;
  // "+-0x10" is a negative offset: split at '+' and let the term keep its sign.
  for (const std::string& term : split(s, '+')) {
    if (term.empty()) {
      why = "an empty term in the address";
      return false;
    }
    int64_t v = 0;
    if (parse_int(term, v)) {
      o.value += v;
      continue;
    }
    const auto parts = split(term, '.');
    const SassReg r = parse_register(parts[0]);
    if (!r.valid() || r.file == RegFile::kP || r.file == RegFile::kUP || r.file == RegFile::kB) {
      why = "'" + term + "' is not an address term (a register, a uniform register or an offset)";
      return false;
    }
    bool wide = false;
    uint8_t scale = 1;
    for (size_t i = 1; i < parts.size(); ++i) {
      if (parts[i] == "64") wide = true;
      else if (parts[i] == "X4") scale = 4;
      else if (parts[i] == "X8") scale = 8;
      else if (parts[i] == "X16") scale = 16;
      else if (parts[i] == "U32" || parts[i] == "reuse") continue;
      else {
        why = "unknown address modifier '." + parts[i] + "'";
        return false;
      }
    }
    if (r.file == RegFile::kUR && !o.reg.valid() && !o.uniform.valid() && (wide || parts.size() == 1)) {
      // [UR4] alone (a uniform base); a later R term would make it the uniform addend below.
      o.uniform = r;
      o.wide = wide;
      continue;
    }
    if (r.file == RegFile::kUR) {
      if (o.uniform.valid()) {
        why = "two uniform registers in one address";
        return false;
      }
      o.uniform = r;
      continue;
    }
    if (o.reg.valid()) {
      why = "two registers in one address";
      return false;
    }
    o.reg = r;
    o.wide = wide;
    o.scale = scale;
  }
  return true;
}

}  // namespace

SassReg parse_register(const std::string& t) {
  SassReg r;
  if (t == "RZ") return {RegFile::kR, 255};
  if (t == "URZ") return {RegFile::kUR, 63};
  if (t == "PT") return {RegFile::kP, 7};
  if (t == "UPT") return {RegFile::kUP, 7};
  auto numbered = [&](size_t prefix, RegFile f, uint32_t limit) {
    if (!all_digits(t, prefix) || t.size() - prefix > 3) return;
    const auto n = static_cast<uint32_t>(std::strtoul(t.c_str() + prefix, nullptr, 10));
    if (n < limit) r = {f, n};
  };
  if (t.rfind("UR", 0) == 0) numbered(2, RegFile::kUR, 63);
  else if (t.rfind("UP", 0) == 0) numbered(2, RegFile::kUP, 7);
  else if (t[0] == 'R') numbered(1, RegFile::kR, 255);
  else if (t[0] == 'P') numbered(1, RegFile::kP, 7);
  else if (t[0] == 'B') numbered(1, RegFile::kB, 16);
  return r;
}

std::optional<SassOperand> parse_operand(const std::string& text, std::string& why) {
  SassOperand o;
  o.text = text;
  std::string s = text;
  if (s.empty()) {
    why = "an empty operand";
    return std::nullopt;
  }
  if (s[0] == '`') {  // `(.L_x_3)
    if (s.size() < 4 || s[1] != '(' || s.back() != ')') {
      why = "a malformed label (expected `(name))";
      return std::nullopt;
    }
    o.kind = SassOperand::Kind::kLabel;
    o.name = s.substr(2, s.size() - 3);
    return o;
  }
  int64_t v = 0;
  if (parse_int(s, v)) {
    o.kind = SassOperand::Kind::kImm;
    o.value = v;
    return o;
  }
  if (is_float_text(s)) {
    o.kind = SassOperand::Kind::kImm;
    o.is_float_text = true;
    return o;
  }
  if (s[0] == '-') o.negate = true, s = s.substr(1);
  if (!s.empty() && (s[0] == '!' || s[0] == '~')) o.invert = true, s = s.substr(1);
  if (s.size() > 2 && s[0] == '|') {
    const size_t close = s.find('|', 1);
    if (close == std::string::npos) {
      why = "an unclosed |...|";
      return std::nullopt;
    }
    o.absolute = true;
    s = s.substr(1, close - 1) + s.substr(close + 1);
  }
  if (s.rfind("desc[", 0) == 0) {
    const size_t close = s.find(']');
    if (close == std::string::npos || close + 1 >= s.size() || s[close + 1] != '[') {
      why = "a memory descriptor without an address after it";
      return std::nullopt;
    }
    o.descriptor = true;
    s = s.substr(close + 1);
  }
  if (s[0] == '[') {
    const size_t close = s.rfind(']');
    if (close == std::string::npos || close != s.size() - 1) {
      why = "a malformed address (expected [...])";
      return std::nullopt;
    }
    if (!parse_address(s.substr(1, close - 1), o, why)) return std::nullopt;
    return o;
  }
  if (s.rfind("c[", 0) == 0) {  // c[0x0][0x210], c[0x3][R0+0x10]
    const size_t close = s.find(']');
    int64_t bank = 0;
    if (close == std::string::npos || !parse_int(s.substr(2, close - 2), bank) || close + 1 >= s.size() || s[close + 1] != '[' ||
        s.back() != ']') {
      why = "a malformed constant (expected c[bank][offset])";
      return std::nullopt;
    }
    SassOperand a;
    if (!parse_address(s.substr(close + 2, s.size() - close - 3), a, why)) return std::nullopt;
    o.kind = SassOperand::Kind::kConst;
    o.bank = static_cast<uint32_t>(bank);
    o.value = a.value;
    o.reg = a.reg.valid() ? a.reg : a.uniform;
    return o;
  }
  if (s.rfind("SR", 0) == 0 && (s.size() == 3 || s[2] == '_')) {  // SR_TID.X, SRZ
    o.kind = SassOperand::Kind::kSpecial;
    o.name = s;
    return o;
  }
  const auto parts = split(s, '.');
  const SassReg r = parse_register(parts[0]);
  if (r.valid()) {
    o.kind = SassOperand::Kind::kReg;
    o.reg = r;
    for (size_t i = 1; i < parts.size(); ++i) {
      if (parts[i] == "reuse") continue;
      if (!o.selector.empty()) o.selector += ".";
      o.selector += parts[i];
    }
    return o;
  }
  o.kind = SassOperand::Kind::kWord;
  o.name = s;
  return o;
}

}  // namespace warpsim::sass
