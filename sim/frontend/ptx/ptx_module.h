#pragma once
// The parsed form of a PTX module, as nvcc emits it: module directives, variables, and the
// functions (.entry kernels and .func callees) with their parameters, register declarations,
// labels and instructions. Nothing here is executed: program.h lowers it for the emulator.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpsim::ptx {

struct Operand {
  enum class Kind {
    kRegister,   // %r1, %tid.x
    kImmediate,  // 42, -1, 0x10 (integer) or 0f3F800000 / 0d... / 1.5 (float: bits set, is_float)
    kSymbol,     // a variable, label, function or parameter name
    kAddress,    // [base + offset]: base is a register or symbol (or empty for [imm])
    kVector,     // {%f1, %f2, _}
    kList,       // (a, b) in call
    kPair,       // %p1|%p2
    kSink,       // _
  };
  Kind kind = Kind::kImmediate;
  std::string name;            // register / symbol / address base
  int64_t value = 0;           // integer immediate or address offset
  uint64_t bits = 0;           // float immediate bits (f32 in the low half for 0f)
  bool is_float = false;
  bool is_double = false;
  bool negated = false;        // !%p as an operand (selp, etc.)
  std::vector<Operand> items;  // kVector, kList, kPair
  uint32_t line = 0, column = 0;
};

struct Instruction {
  std::string opcode;          // the full mnemonic: "ld.global.nc.v4.f32"
  std::optional<std::string> guard;  // predicate register of @%p / @!%p
  bool guard_negated = false;
  std::vector<Operand> operands;
  uint32_t line = 0, column = 0;
  uint32_t source_line = 0;    // from the latest .loc (0 if none)
  uint32_t source_file = 0;
  // Emulated but not handed to the timing model: the inliner's dispatch of an indirect call
  // beyond its first compare, which stands for the GPU's one indirect CALL (inliner.cpp).
  bool untimed = false;
};

struct Variable {
  std::string name;
  std::string space;           // ".shared", ".global", ".const", ".local", ".param"
  std::string type;            // ".b8", ".f32", ...
  uint32_t align = 0;
  uint32_t vector = 1;         // .v2 / .v4
  std::vector<uint64_t> dims;  // array dimensions; an empty dimension "[]" is 0
  bool is_extern = false;
  std::vector<Operand> initializer;
  uint32_t line = 0;
  uint64_t size_bytes() const;
};

struct RegisterDecl {
  std::string type;            // ".f32", ".pred", ...
  std::string name;            // "%r" for %r<33>, or the full name
  uint32_t count = 0;          // 0: a single register called `name`
  uint32_t vector = 1;
};

struct Function {
  std::string name;
  bool is_entry = false;
  bool is_declaration = false; // no body (.extern .func f(...);)
  std::vector<Variable> params;
  std::vector<Variable> returns;
  std::vector<RegisterDecl> registers;
  std::vector<Variable> locals;  // .shared / .local declared inside the body
  std::vector<Instruction> body;
  std::map<std::string, size_t> labels;  // label → index of the next instruction in body
  std::map<std::string, std::vector<uint64_t>> performance;  // .maxntid, .reqntid, .minnctapersm, ...
  uint32_t line = 0;
};

struct Module {
  std::string file;
  std::string version;         // "9.0"
  std::vector<std::string> targets;  // "sm_80", ...
  uint32_t address_size = 64;
  std::vector<Variable> globals;
  std::vector<Function> functions;
  std::map<uint32_t, std::string> files;  // .file index → path

  const Function* find(const std::string& name) const;
};

// Parses PTX text. Throws InputError "file:line:col: unexpected X, expected Y" on bad input.
Module parse_ptx(const std::string& text, const std::string& file_name);
Module parse_ptx_file(const std::string& path);

}  // namespace warpsim::ptx
