// A hand-written recursive-descent parser for the PTX that nvcc emits (.version 6.x to 9.0,
// sm_70 to sm_100). Every error reads "file:line:col: unexpected X, expected Y".
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/error.h"
#include "frontend/ptx/ptx_lexer.h"
#include "frontend/ptx/ptx_module.h"

namespace warpsim::ptx {

uint64_t Variable::size_bytes() const {
  uint64_t element = 1;
  if (type.size() > 2) {
    std::string digits;
    for (char c : type)
      if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
    if (!digits.empty()) element = std::stoull(digits) / 8;
    if (type == ".pred") element = 1;
  }
  uint64_t n = element * vector;
  for (uint64_t d : dims) n *= d;
  return n;
}

// A function may be declared before its definition (nvcc forward-declares the libdevice
// helpers it calls, such as __internal_trig_reduction_slowpathd): the definition wins.
const Function* Module::find(const std::string& name) const {
  const Function* found = nullptr;
  for (const auto& f : functions)
    if (f.name == name && (!found || found->is_declaration)) found = &f;
  return found;
}

namespace {

bool is_space(const std::string& w) {
  return w == ".global" || w == ".shared" || w == ".const" || w == ".local" || w == ".param" || w == ".tex" ||
         w.rfind(".shared::", 0) == 0;
}

bool is_type(const std::string& w) {
  static const char* kTypes[] = {".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32",
                                 ".s64", ".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64", ".pred", ".tf32", ".e4m3",
                                 ".e5m2", ".texref", ".samplerref", ".surfref"};
  for (const char* t : kTypes)
    if (w == t) return true;
  return false;
}

class Parser {
 public:
  static constexpr uint64_t kMaxRegisters = uint64_t{1} << 20;  // per declaration (%r<N>)

  Parser(const std::string& text, const std::string& file) : file_(file), tokens_(tokenize_ptx(text, file)) {}

  Module module() {
    Module m;
    m.file = file_;
    while (!at_end()) top_level(m);
    return m;
  }

 private:
  const Token& peek(size_t ahead = 0) const { return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)]; }
  bool at_end() const { return peek().kind == Token::Kind::kEnd; }
  const Token& take() { return tokens_[pos_ < tokens_.size() - 1 ? pos_++ : pos_]; }
  bool accept(const char* s) {
    if (peek().is(s)) {
      ++pos_;
      return true;
    }
    return false;
  }
  [[noreturn]] void fail(const Token& t, const std::string& expected) const {
    throw InputError(SourceLocation{file_, t.line, t.column}, "unexpected " + describe(t) + ", expected " + expected);
  }
  const Token& expect(const char* s) {
    if (!peek().is(s)) fail(peek(), std::string("'") + s + "'");
    return take();
  }
  std::string word(const char* expected) {
    if (peek().kind != Token::Kind::kWord) fail(peek(), expected);
    return take().text;
  }
  uint64_t number(const char* expected) {
    const Token& t = peek();
    if (t.kind != Token::Kind::kNumber) fail(t, expected);
    ++pos_;
    uint64_t v = 0;
    std::string s = t.text;
    if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.pop_back();
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      s = s.substr(2);
      base = 16;
    }
    auto r = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) fail(t, expected);
    return v;
  }
  // Skips the rest of the tokens on `line` (for .loc / .file, which have no ';').
  void skip_line(uint32_t line) {
    while (!at_end() && peek().line == line) ++pos_;
  }

  void top_level(Module& m) {
    const Token& t = peek();
    if (t.is(".version")) {
      ++pos_;
      const Token& v = take();
      if (v.kind != Token::Kind::kNumber) fail(v, "a version such as 9.0");
      m.version = v.text;
      return;
    }
    if (t.is(".target")) {
      ++pos_;
      do m.targets.push_back(word("a target such as sm_80")); while (accept(","));
      return;
    }
    if (t.is(".address_size")) {
      ++pos_;
      m.address_size = static_cast<uint32_t>(number("32 or 64"));
      return;
    }
    if (t.is(".file")) {
      ++pos_;
      uint32_t index = static_cast<uint32_t>(number("a file number"));
      if (peek().kind != Token::Kind::kString) fail(peek(), "a quoted file name");
      m.files[index] = take().text;
      skip_line(t.line);
      return;
    }
    if (t.is(".section")) {  // debug sections: skip their braces
      ++pos_;
      word("a section name");
      expect("{");
      int depth = 1;
      while (depth > 0 && !at_end()) {
        if (peek().is("{")) ++depth;
        if (peek().is("}")) --depth;
        ++pos_;
      }
      return;
    }
    bool is_extern = false;
    while (peek().is(".visible") || peek().is(".extern") || peek().is(".weak") || peek().is(".common")) {
      is_extern |= peek().is(".extern");
      ++pos_;
    }
    if (peek().is(".entry") || peek().is(".func")) {
      m.functions.push_back(function());
      return;
    }
    if (peek().kind == Token::Kind::kWord && is_space(peek().text)) {
      Variable v = variable();
      v.is_extern = is_extern;
      expect(";");
      m.globals.push_back(std::move(v));
      return;
    }
    fail(peek(), "a module directive (.version, .target, .address_size, .entry, .func, .global, .shared, .const)");
  }

  // [.space] [.align N] [.vN] .type name [dims] [= initializer]   (without the ';')
  Variable variable() {
    Variable v;
    v.line = peek().line;
    if (peek().kind == Token::Kind::kWord && is_space(peek().text)) v.space = take().text;
    while (true) {
      if (accept(".align")) {
        v.align = static_cast<uint32_t>(number("an alignment"));
      } else if (peek().is(".v2") || peek().is(".v4") || peek().is(".v8")) {
        v.vector = static_cast<uint32_t>(take().text[2] - '0');
      } else if (peek().is(".ptr") || peek().is(".global") || peek().is(".shared") || peek().is(".const") ||
                 peek().is(".local")) {
        ++pos_;  // .param .u64 .ptr .global .align 8 p
      } else {
        break;
      }
    }
    if (peek().kind != Token::Kind::kWord || !is_type(peek().text)) fail(peek(), "a type such as .b8, .u32 or .f32");
    v.type = take().text;
    while (true) {  // .param .u64 .ptr .global .align 1 name
      if (accept(".align")) {
        v.align = static_cast<uint32_t>(number("an alignment"));
      } else if (peek().is(".ptr") || (peek().kind == Token::Kind::kWord && is_space(peek().text))) {
        ++pos_;
      } else {
        break;
      }
    }
    v.name = word("a name");
    while (accept("[")) {
      v.dims.push_back(peek().is("]") ? 0 : number("an array size"));
      expect("]");
    }
    if (accept("=")) v.initializer = initializer();
    return v;
  }

  std::vector<Operand> initializer() {
    std::vector<Operand> items;
    if (accept("{")) {
      if (!peek().is("}")) {
        do {
          auto inner = initializer();
          items.insert(items.end(), inner.begin(), inner.end());
        } while (accept(","));
      }
      expect("}");
      return items;
    }
    // generic(name)+offset: a pointer to a __device__ variable (`float* table[] = {a, b + 1}`).
    if (peek().is("generic") && peek(1).is("(")) {
      pos_ += 2;
      Operand o = operand();
      if (o.kind != Operand::Kind::kSymbol) fail(peek(), "a variable's name inside generic( )");
      expect(")");
      if (accept("+")) o.value = static_cast<int64_t>(number("an offset"));
      items.push_back(std::move(o));
      return items;
    }
    items.push_back(operand());
    return items;
  }

  Function function() {
    Function f;
    plain_registers_.clear();
    f.line = peek().line;
    f.is_entry = take().text == ".entry";
    if (!f.is_entry && peek().is("(")) f.returns = param_list();
    f.name = word("a function name");
    if (peek().is("(")) f.params = param_list();
    while (peek().kind == Token::Kind::kWord && peek().text[0] == '.' && !peek().is(".reg")) {
      std::string directive = take().text;  // .maxntid 256, 1, 1  /  .noreturn  /  .pragma "..."
      std::vector<uint64_t> values;
      if (peek().kind == Token::Kind::kNumber) {
        do values.push_back(number("a number")); while (accept(","));
      } else if (peek().kind == Token::Kind::kString) {
        ++pos_;
        accept(";");
      }
      f.performance[directive] = values;
    }
    if (accept(";")) {
      f.is_declaration = true;
      return f;
    }
    expect("{");
    block(f);
    return f;
  }

  std::vector<Variable> param_list() {
    std::vector<Variable> params;
    expect("(");
    if (!peek().is(")")) {
      do {
        if (!peek().is(".param") && !peek().is(".reg")) fail(peek(), "'.param' or '.reg'");
        params.push_back(variable());
      } while (accept(","));
    }
    expect(")");
    return params;
  }

  // Statements until the matching '}'. Nested { } scopes are flattened into the function; the
  // registers a nested scope declares get names of their own, because nvcc's inline-asm blocks
  // each declare the same temporaries (`.reg .b32 __$1;`).
  void block(Function& f) {
    while (true) {
      const Token& t = peek();
      if (t.kind == Token::Kind::kEnd) fail(t, "'}' to close the body of " + f.name);
      if (accept("}")) return;
      if (accept("{")) {
        scopes_.emplace_back();
        block(f);
        scopes_.pop_back();
        continue;
      }
      if (t.is(".reg")) {
        ++pos_;
        RegisterDecl base;
        if (peek().is(".v2") || peek().is(".v4")) base.vector = static_cast<uint32_t>(take().text[2] - '0');
        if (peek().kind != Token::Kind::kWord || !is_type(peek().text)) fail(peek(), "a register type such as .b32 or .pred");
        base.type = take().text;
        do {
          RegisterDecl r = base;
          r.name = word("a register name such as %r");
          if (accept("<")) {
            const Token& at = peek();
            const uint64_t count = number("a register count");
            // nvcc declares thousands at most; millions would only exhaust memory (each is
            // named, numbered and held per lane of every warp).
            if (count > kMaxRegisters) fail(at, "a register count of at most " + std::to_string(kMaxRegisters));
            r.count = static_cast<uint32_t>(count);
            expect(">");
          }
          // A register name need not start with '%' (PTX ISA, "Identifiers"); such names are
          // given one here, so that everything downstream (and traces) sees register names alike.
          if (r.name[0] != '%') {
            if (r.count == 0) plain_registers_.insert(r.name);
            for (uint32_t i = 0; i < r.count; ++i) plain_registers_.insert(r.name + std::to_string(i));
            r.name = "%" + r.name;
          }
          // "$" keeps the unique name a valid trace register name ("#" would start a comment there).
          if (!scopes_.empty()) {
            const std::string unique = r.name + "$" + std::to_string(++scoped_registers_);
            if (r.count == 0) scopes_.back()[r.name] = unique;
            for (uint32_t i = 0; i < r.count; ++i) scopes_.back()[r.name + std::to_string(i)] = unique + std::to_string(i);
            r.name = unique;
          }
          f.registers.push_back(r);
        } while (accept(","));
        expect(";");
        continue;
      }
      if (t.kind == Token::Kind::kWord && (is_space(t.text) || t.is(".align"))) {
        Variable v = variable();
        expect(";");
        // Each call sequence's { } declares its own param0, retval0, ...: names of their own here
        // too, so that every call site's parameters keep their own sizes.
        if (!scopes_.empty()) {
          const std::string unique = v.name + "$" + std::to_string(++scoped_registers_);
          scopes_.back()[v.name] = unique;
          v.name = unique;
        }
        f.locals.push_back(std::move(v));
        continue;
      }
      if (t.is(".loc")) {
        ++pos_;
        file_index_ = static_cast<uint32_t>(number("a file number"));
        source_line_ = static_cast<uint32_t>(number("a line number"));
        skip_line(t.line);
        continue;
      }
      if (t.is(".pragma")) {
        ++pos_;
        if (peek().kind == Token::Kind::kString) ++pos_;
        expect(";");
        continue;
      }
      if (t.kind == Token::Kind::kWord && peek(1).is(":") && t.text[0] != '.' && t.text[0] != '%') {
        f.labels[t.text] = f.body.size();
        pos_ += 2;
        continue;
      }
      Instruction in = instruction();
      if (!in.opcode.empty()) f.body.push_back(std::move(in));
    }
  }

  // The name a register has in the innermost scope that declares it.
  std::string scoped(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto found = it->find(name); found != it->end()) return found->second;
    return name;
  }
  // first|second: setp's and shfl's predicate pairs, elect.sync's id|predicate.
  Operand pair_with(const Operand& first) {
    Operand pair;
    pair.kind = Operand::Kind::kPair;
    pair.line = first.line;
    pair.column = first.column;
    pair.items.push_back(first);
    pair.items.push_back(operand());
    return pair;
  }
  // A register declared without '%' under the name it was given (see block()).
  std::string register_name(const std::string& word) const { return plain_registers_.count(word) ? "%" + word : word; }
  void rename_scoped(Operand& o) const {
    o.name = scoped(o.name);
    for (Operand& item : o.items) rename_scoped(item);
  }

  Instruction instruction() {
    Instruction in;
    in.line = peek().line;
    in.column = peek().column;
    in.source_line = source_line_;
    in.source_file = file_index_;
    if (accept("@")) {
      if (accept("!")) in.guard_negated = true;
      if (peek().kind != Token::Kind::kWord || (peek().text[0] != '%' && !plain_registers_.count(peek().text))) {
        fail(peek(), "a predicate register after '@'");
      }
      in.guard = register_name(take().text);
    }
    const Token& op = peek();
    if (op.is(".callprototype")) {
      // `name: .callprototype (.param .b32 _) _ (.param .b32 _);` declares the signature an
      // indirect call names; the inliner reads the signature from the call itself (inliner.h).
      while (!peek().is(";") && peek().kind != Token::Kind::kEnd) ++pos_;
      expect(";");
      in.opcode = "";
      return in;
    }
    if (op.kind != Token::Kind::kWord || op.text[0] == '.' || op.text[0] == '%') fail(op, "an instruction");
    in.opcode = take().text;
    if (peek().is("}")) fail(peek(), "';'");
    if (!peek().is(";")) {
      do in.operands.push_back(operand()); while (accept(","));
    }
    expect(";");
    if (!scopes_.empty()) {
      if (in.guard) *in.guard = scoped(*in.guard);
      for (Operand& o : in.operands) rename_scoped(o);
    }
    return in;
  }

  Operand immediate(const Token& t, bool negative) {
    Operand o;
    o.kind = Operand::Kind::kImmediate;
    o.line = t.line;
    o.column = t.column;
    const std::string& s = t.text;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
      o.is_float = true;
      o.is_double = s[1] == 'd' || s[1] == 'D';
      auto r = std::from_chars(s.data() + 2, s.data() + s.size(), o.bits, 16);
      if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.size() != (o.is_double ? 18u : 10u)) {
        fail(t, o.is_double ? "a 0d float with 16 hex digits" : "a 0f float with 8 hex digits");
      }
      if (negative) o.bits ^= o.is_double ? 0x8000000000000000ull : 0x80000000ull;
      return o;
    }
    if (s.find_first_of(".eE") != std::string::npos && !(s.size() > 1 && (s[1] == 'x' || s[1] == 'X'))) {
      double d = std::strtod(s.c_str(), nullptr);
      if (negative) d = -d;
      o.is_float = o.is_double = true;
      std::memcpy(&o.bits, &d, sizeof d);
      return o;
    }
    --pos_;
    uint64_t v = number("a number");
    o.value = static_cast<int64_t>(negative ? 0 - v : v);  // modulo 2^64: -9223372036854775808 is a valid literal
    return o;
  }

  Operand operand() {
    const Token& t = peek();
    Operand o;
    o.line = t.line;
    o.column = t.column;
    if (accept("{")) {
      o.kind = Operand::Kind::kVector;
      if (!peek().is("}")) {
        do o.items.push_back(operand()); while (accept(","));
      }
      expect("}");
      return o;
    }
    if (accept("(")) {
      o.kind = Operand::Kind::kList;
      if (!peek().is(")")) {
        do o.items.push_back(operand()); while (accept(","));
      }
      expect(")");
      return o;
    }
    if (accept("[")) {
      o.kind = Operand::Kind::kAddress;
      if (peek().kind == Token::Kind::kWord) {
        o.name = register_name(take().text);
        if (accept("+")) {
          bool negative = accept("-");
          uint64_t v = number("an offset");
          o.value = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
        } else if (accept("-")) {
          o.value = -static_cast<int64_t>(number("an offset"));
        }
      } else {
        o.value = static_cast<int64_t>(number("an address"));
      }
      if (accept(",")) {  // [tensorMap, {c0, c1, ...}]: a bulk tensor copy's coordinates
        if (!peek().is("{")) fail(peek(), "'{' starting the tensor coordinates");
        o.items.push_back(operand());
      }
      expect("]");
      return o;
    }
    if (accept("-")) {
      const Token& n = take();
      if (n.kind != Token::Kind::kNumber) fail(n, "a number after '-'");
      return immediate(n, true);
    }
    if (accept("!")) {
      Operand inner = operand();
      inner.negated = true;
      return inner;
    }
    if (t.kind == Token::Kind::kNumber) {
      ++pos_;
      return immediate(t, false);
    }
    if (t.kind == Token::Kind::kWord) {
      ++pos_;
      if (t.text == "_") {
        o.kind = Operand::Kind::kSink;
        return accept("|") ? pair_with(o) : o;  // _|%p: elect.sync's lane id unused
      }
      o.kind = t.text[0] == '%' || plain_registers_.count(t.text) ? Operand::Kind::kRegister : Operand::Kind::kSymbol;
      o.name = register_name(t.text);
      if (o.kind == Operand::Kind::kRegister && accept("|")) return pair_with(o);
      if (o.kind == Operand::Kind::kSymbol && accept("+")) {  // symbol+offset in initializers / mov
        o.value = static_cast<int64_t>(number("an offset"));
      }
      return o;
    }
    fail(t, "an operand (register, number, address in [ ], vector in { } or name)");
  }

  std::string file_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  uint32_t source_line_ = 0, file_index_ = 0;
  std::vector<std::map<std::string, std::string>> scopes_;  // nested { } blocks: declared name -> unique name
  std::set<std::string> plain_registers_;                    // this function's registers declared without '%'
  uint32_t scoped_registers_ = 0;
};

}  // namespace

Module parse_ptx(const std::string& text, const std::string& file_name) { return Parser(text, file_name).module(); }

Module parse_ptx_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "cannot open PTX file");
  std::stringstream s;
  s << in.rdbuf();
  return parse_ptx(s.str(), path);
}

}  // namespace warpsim::ptx
