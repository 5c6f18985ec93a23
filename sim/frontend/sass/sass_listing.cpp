// Reads nvdisasm's listing line by line. The format (CUDA Binary Utilities, "nvdisasm"): section
// headers `//---- .name ----`; in code sections an instruction line `/*0040*/ @!P0 OPCODE ops ;
// /* 0x<low word> */`, its high word alone on the next line, labels `name:` and source lines
// `//## File "path", line N`; data sections hold `.byte`/`.short`/`.word`/`.zero` lines.
#include "frontend/sass/sass_listing.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace warpsim::sass {
namespace {

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// Splits at commas outside brackets, braces, parentheses and backquoted labels.
std::vector<std::string> split_operands(const std::string& s) {
  std::vector<std::string> out;
  int depth = 0;
  bool quoted = false;
  std::string cur;
  for (char c : s) {
    if (c == '`') quoted = !quoted;
    if (!quoted && (c == '[' || c == '(' || c == '{')) ++depth;
    if (!quoted && (c == ']' || c == ')' || c == '}')) --depth;
    if (c == ',' && depth == 0 && !quoted) {
      out.push_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

class Reader {
 public:
  explicit Reader(const std::string& file) { listing_.file = file, listing_.source_files.push_back(""); }

  SassListing read(const std::string& text) {
    std::istringstream in(text);
    std::string raw;
    while (std::getline(in, raw)) {
      ++line_;
      const std::string s = trim(raw);
      if (s.empty()) continue;
      if (s.rfind("//-----", 0) == 0 && s.back() == '-') {  // a section header, not an attribute's "//----- nvinfo : NAME"
        section(s);
        continue;
      }
      switch (kind_) {
        case Kind::kText: text_line(raw, s); break;
        case Kind::kInfo: info_line(s); break;
        case Kind::kConstant: constant_line(s, listing_.constant_bank, true); break;
        case Kind::kKernelConstants: constant_line(s, listing_.kernel_constants[kernel_constants_of_], false); break;
        case Kind::kAddresses: address_line(s); break;
        case Kind::kOther: break;
      }
    }
    finish_attribute();
    finish_function();
    finish_constants();
    return std::move(listing_);
  }

 private:
  enum class Kind { kOther, kText, kInfo, kConstant, kKernelConstants, kAddresses };

  [[noreturn]] void fail(uint32_t column, const std::string& message) const {
    throw InputError(SourceLocation{listing_.file, line_, column}, message);
  }

  void section(const std::string& header) {
    finish_attribute();
    finish_function();
    std::istringstream h(header);
    std::string dashes, name;
    h >> dashes >> name;
    kind_ = Kind::kOther;
    info_function_.clear();
    if (name.rfind(".text.", 0) == 0) {
      kind_ = Kind::kText;
      SassFunction f;
      f.name = name.substr(6);
      f.line = line_;
      listing_.functions.push_back(std::move(f));
      in_function_ = true;
    } else if (name == ".nv.info") {
      kind_ = Kind::kInfo;
    } else if (name.rfind(".nv.info.", 0) == 0) {
      kind_ = Kind::kInfo;
      info_function_ = name.substr(9);
    } else if (name == ".nv.constant3") {
      kind_ = Kind::kConstant;
    } else if (name == ".nv.constant4") {
      kind_ = Kind::kAddresses;
    } else if (name.rfind(".nv.constant2.", 0) == 0) {
      kind_ = Kind::kKernelConstants;
      kernel_constants_of_ = name.substr(14);
    }
  }

  SassFunction& function() { return listing_.functions.back(); }

  void text_line(const std::string& raw, const std::string& s) {
    if (s.rfind("//## File \"", 0) == 0) {
      const size_t close = s.find('"', 11);
      const size_t at = s.find(", line ", close == std::string::npos ? 0 : close);
      if (close == std::string::npos || at == std::string::npos) fail(1, "malformed source line comment (expected //## File \"path\", line N)");
      source_file_ = file_index(s.substr(11, close - 11));
      source_line_ = static_cast<uint32_t>(std::strtoul(s.c_str() + at + 7, nullptr, 10));
      return;
    }
    if (s.rfind("/* 0x", 0) == 0) {  // the high word of the instruction above
      if (function().insts.empty() || !pending_high_) fail(1, "an encoding word with no instruction before it");
      function().insts.back().high = hex_word(s, 0);
      pending_high_ = false;
      return;
    }
    if (s.rfind("/*", 0) == 0) {
      instruction(raw, s);
      return;
    }
    if (s[0] == '.' && s.back() != ':') {
      if (s.rfind(".other", 0) == 0 && s.find("STO_CUDA_ENTRY") != std::string::npos) function().entry = true;
      return;  // .section, .align, .global, .type, .size, .weak: nothing the emulator needs
    }
    if (s.back() == ':') {
      function().labels[s.substr(0, s.size() - 1)] = static_cast<uint32_t>(function().insts.size() * 16);
      return;
    }
    fail(1, "unexpected text in a code section: '" + s + "' (expected an instruction, a label or a //## line)");
  }

  uint64_t hex_word(const std::string& s, size_t from) const {
    const size_t at = s.find("/* 0x", from);
    if (at == std::string::npos) fail(1, "an instruction without its encoding (nvdisasm -hex prints it as /* 0x... */)");
    char* end = nullptr;
    const uint64_t v = std::strtoull(s.c_str() + at + 3, &end, 16);
    if (end == s.c_str() + at + 3 || end - (s.c_str() + at + 5) != 16) fail(static_cast<uint32_t>(at + 1), "malformed encoding word (expected 16 hex digits)");
    return v;
  }

  void instruction(const std::string& raw, const std::string& s) {
    if (pending_high_) fail(1, "the instruction above lacks its second encoding word");
    const size_t close = s.find("*/");
    if (close == std::string::npos) fail(1, "malformed address comment (expected /*0040*/)");
    SassInstruction in;
    char* end = nullptr;
    in.address = static_cast<uint32_t>(std::strtoul(s.c_str() + 2, &end, 16));
    if (end != s.c_str() + close) fail(1, "malformed address comment (expected /*0040*/)");
    if (in.address != function().insts.size() * 16) {
      fail(1, "instruction at 0x" + s.substr(2, close - 2) + " where the next is expected at " + std::to_string(function().insts.size() * 16) +
                  " (instructions are 16 bytes, without gaps)");
    }
    const size_t enc = s.find("/* 0x", close);
    std::string body = trim(s.substr(close + 2, enc == std::string::npos ? std::string::npos : enc - close - 2));
    in.low = hex_word(s, close);
    if (!body.empty() && body.back() == ';') body = trim(body.substr(0, body.size() - 1));
    in.line = line_;
    in.column = static_cast<uint32_t>(raw.find(body.empty() ? " " : body.substr(0, 1)) + 1);
    if (!body.empty() && body[0] == '@') {
      const size_t sp = body.find(' ');
      if (sp == std::string::npos) fail(in.column, "a guard with no instruction after it");
      in.guard = body.substr(1, sp - 1);
      body = trim(body.substr(sp));
      in.column = static_cast<uint32_t>(raw.find(body) + 1);
    }
    const size_t sp = body.find(' ');
    in.opcode = body.substr(0, sp);
    if (in.opcode.empty() || !std::isupper(static_cast<unsigned char>(in.opcode[0]))) fail(in.column, "expected an opcode, got '" + body + "'");
    if (sp != std::string::npos) in.operands = split_operands(body.substr(sp + 1));
    // RET.REL.NODEC R4 `(kernel): the function it returns within, which the emulator does not need.
    // CALL.REL.NOINC R6 `(kernel): likewise for a call through a register.
    if ((in.opcode.rfind("RET", 0) == 0 || in.opcode.rfind("CALL", 0) == 0) && !in.operands.empty() && in.operands.back().rfind("`", 0) != 0)
      in.operands.back() = in.operands.back().substr(0, in.operands.back().find(" `"));
    in.source_file = source_file_;
    in.source_line = source_line_;
    function().insts.push_back(std::move(in));
    pending_high_ = true;
  }

  uint32_t file_index(const std::string& path) {
    for (size_t i = 1; i < listing_.source_files.size(); ++i)
      if (listing_.source_files[i] == path) return static_cast<uint32_t>(i);
    listing_.source_files.push_back(path);
    return static_cast<uint32_t>(listing_.source_files.size() - 1);
  }

  void finish_function() {
    if (!in_function_) return;
    in_function_ = false;
    if (pending_high_) fail(1, "the last instruction lacks its second encoding word");
    source_file_ = source_line_ = 0;
  }

  // .nv.info: `//----- nvinfo : NAME` then its data: format and attribute bytes, its size, the
  // payload (a function's index@(name) and values).
  void info_line(const std::string& s) {
    if (s.rfind("//----- nvinfo :", 0) == 0) {
      finish_attribute();
      attribute_ = trim(s.substr(16));
      return;
    }
    if (attribute_.empty()) return;
    const size_t close = s.find("*/");
    if (s.rfind("/*", 0) != 0 || close == std::string::npos) return;
    std::istringstream data(s.substr(close + 2));
    std::string directive;
    data >> directive;
    if (directive != ".byte" && directive != ".short" && directive != ".word" && directive != ".dword") return;
    std::string rest;
    std::getline(data, rest);
    for (const std::string& item : split_operands(rest)) values_.push_back(item);
  }

  uint64_t value(size_t i) const {
    if (i >= values_.size()) fail(1, "attribute " + attribute_ + " has fewer values than expected");
    return std::strtoull(values_[i].c_str(), nullptr, 0);
  }
  std::string indexed_name(size_t i) const {  // index@(name)
    if (i >= values_.size() || values_[i].rfind("index@(", 0) != 0) return "";
    return values_[i].substr(7, values_[i].size() - 8);
  }
  SassFunction* named(const std::string& name) {
    for (auto& f : listing_.functions)
      if (f.name == name) return &f;
    pending_[name];
    return &pending_[name];
  }

  void finish_attribute() {
    if (attribute_.empty()) return;
    // values_: [0] format, [1] attribute, [2] size, then the payload.
    if (attribute_ == "EIATTR_PARAM_CBANK" && !info_function_.empty()) {
      SassFunction* f = named(info_function_);
      f->param_offset = static_cast<uint32_t>(value(4));
      f->param_bytes = static_cast<uint32_t>(value(5));
    } else if (attribute_ == "EIATTR_KPARAM_INFO" && !info_function_.empty()) {
      // [3] an index, [4] the ordinal, [5] the offset, then its size and flags.
      named(info_function_)->param_places[static_cast<uint32_t>(value(4))] = static_cast<uint32_t>(value(5));
    } else if (attribute_ == "EIATTR_REGCOUNT" || attribute_ == "EIATTR_FRAME_SIZE") {
      const std::string fn = indexed_name(3);
      if (!fn.empty()) {
        SassFunction* f = named(fn);
        (attribute_ == "EIATTR_REGCOUNT" ? f->registers : f->frame_bytes) = static_cast<uint32_t>(value(4));
      }
    }
    attribute_.clear();
    values_.clear();
  }

  // .nv.constant3 (and a kernel's .nv.constant2, into `bank`): data lines give the bytes; in bank
  // 3, labels name variables at the offset that follows.
  void constant_line(const std::string& s, std::vector<uint8_t>& bank, bool symbols) {
    if (s.back() == ':' && s[0] != '.') {
      if (!symbols) return;
      listing_.constants[s.substr(0, s.size() - 1)] = ConstantSymbol{static_cast<uint32_t>(bank.size()), 0};
      symbol_order_.push_back(s.substr(0, s.size() - 1));
      return;
    }
    std::string body = s;
    if (s.rfind("/*", 0) == 0) {
      const size_t close = s.find("*/");
      if (close == std::string::npos) fail(1, "malformed offset comment");
      const uint64_t offset = std::strtoull(s.c_str() + 2, nullptr, 16);
      if (offset > (1u << 16)) fail(1, "constant bank offset beyond 64 KiB");
      if (bank.size() < offset) bank.resize(offset, 0);
      body = trim(s.substr(close + 2));
    }
    std::istringstream data(body);
    std::string directive, rest;
    data >> directive;
    std::getline(data, rest);
    const int width = directive == ".byte" ? 1 : directive == ".short" ? 2 : directive == ".word" ? 4 : directive == ".dword" ? 8 : 0;
    if (directive == ".zero") {
      const uint64_t n = std::strtoull(rest.c_str(), nullptr, 0);
      if (bank.size() + n > (1u << 16)) fail(1, "constant bank beyond 64 KiB");
      bank.resize(bank.size() + n, 0);
      return;
    }
    if (width == 0) return;
    for (const std::string& item : split_operands(rest)) {
      const uint64_t v = std::strtoull(item.c_str(), nullptr, 0);  // a relocation (a symbol) reads as 0
      for (int b = 0; b < width; ++b) bank.push_back(static_cast<uint8_t>(v >> (8 * b)));
    }
    if (bank.size() > (1u << 16)) fail(1, "constant bank beyond 64 KiB");
  }

  // .nv.constant4: `/*0008*/ .dword name`, a slot for name's address.
  void address_line(const std::string& s) {
    if (s.rfind("/*", 0) != 0) return;
    const size_t close = s.find("*/");
    if (close == std::string::npos) fail(1, "malformed offset comment");
    const auto offset = static_cast<uint32_t>(std::strtoul(s.c_str() + 2, nullptr, 16));
    std::istringstream data(s.substr(close + 2));
    std::string directive, name;
    data >> directive >> name;
    if (directive != ".dword" || name.empty()) fail(1, "expected `.dword symbol` in .nv.constant4, got '" + s + "'");
    listing_.address_slots[offset] = name;
  }

  void finish_constants() {
    for (size_t i = 0; i < symbol_order_.size(); ++i) {
      ConstantSymbol& c = listing_.constants[symbol_order_[i]];
      const uint32_t next = i + 1 < symbol_order_.size() ? listing_.constants[symbol_order_[i + 1]].offset
                                                         : static_cast<uint32_t>(listing_.constant_bank.size());
      c.bytes = next - c.offset;
    }
    for (auto& [name, attrs] : pending_) {  // attributes read before their code section
      for (auto& f : listing_.functions) {
        if (f.name != name) continue;
        if (attrs.param_bytes) f.param_offset = attrs.param_offset, f.param_bytes = attrs.param_bytes;
        if (attrs.registers) f.registers = attrs.registers;
        if (attrs.frame_bytes) f.frame_bytes = attrs.frame_bytes;
        if (!attrs.param_places.empty()) f.param_places = attrs.param_places;
      }
    }
  }

  SassListing listing_;
  std::string kernel_constants_of_;  // the kernel whose .nv.constant2 is being read
  uint32_t line_ = 0;
  Kind kind_ = Kind::kOther;
  bool in_function_ = false, pending_high_ = false;
  uint32_t source_file_ = 0, source_line_ = 0;
  std::string info_function_, attribute_;
  std::vector<std::string> values_;
  std::vector<std::string> symbol_order_;
  std::map<std::string, SassFunction> pending_;
};

}  // namespace

const SassFunction* SassListing::find(const std::string& name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

SassListing parse_sass_listing(const std::string& text, const std::string& file) { return Reader(file).read(text); }

SassListing read_sass_listing(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "cannot read the SASS listing");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_sass_listing(text.str(), path);
}

}  // namespace warpsim::sass
