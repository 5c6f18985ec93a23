#include "frontend/ptx/inliner.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "frontend/ptx/function_addresses.h"

namespace warpsim::ptx {
namespace {

class Inliner {
 public:
  explicit Inliner(const Module& m) : m_(m) {}

  Function run(const Function& entry) {
    entry_ = &entry;
    Function flat = entry;
    flat.body.clear();
    flat.labels.clear();
    emit(entry, "", {}, {}, "", 0);
    flat.body = std::move(body_);
    flat.labels = std::move(labels_);
    flat.registers.insert(flat.registers.end(), registers_.begin(), registers_.end());
    flat.locals.insert(flat.locals.end(), locals_.begin(), locals_.end());
    return flat;
  }

 private:
  using Names = std::map<std::string, std::string>;

  void rename(Operand& o, const Function& f, const std::string& prefix, const Names& regs, const Names& aliases) const {
    if (o.kind == Operand::Kind::kRegister) {
      auto it = regs.find(o.name);
      if (it != regs.end()) o.name = it->second;
    } else if (o.kind == Operand::Kind::kSymbol || o.kind == Operand::Kind::kAddress) {
      if (o.name.empty() || o.name[0] == '%') {
        auto it = regs.find(o.name);
        if (it != regs.end()) o.name = it->second;
      } else if (f.labels.count(o.name)) {
        o.name = prefix + o.name;
      } else if (aliases.count(o.name)) {
        o.name = aliases.at(o.name);
      }
    }
    for (auto& item : o.items) rename(item, f, prefix, regs, aliases);
  }

  void emit(const Function& f, const std::string& prefix, const Names& regs, const Names& aliases, const std::string& ret_label,
            int depth) {
    std::map<size_t, std::vector<std::string>> labels_at;
    for (const auto& [name, index] : f.labels) labels_at[index].push_back(name);
    for (size_t i = 0; i <= f.body.size(); ++i) {
      for (const auto& l : labels_at[i]) labels_[prefix + l] = body_.size();
      if (i == f.body.size()) break;
      Instruction in = f.body[i];
      for (auto& o : in.operands) rename(o, f, prefix, regs, aliases);
      if (in.guard) {
        auto it = regs.find(*in.guard);
        if (it != regs.end()) in.guard = it->second;
      }
      if (in.opcode.rfind("call", 0) == 0) {
        inline_call(in, depth);
        continue;
      }
      if (!ret_label.empty() && (in.opcode == "ret" || in.opcode.rfind("ret.", 0) == 0)) {
        in.opcode = "bra.uni";
        Operand target;
        target.kind = Operand::Kind::kSymbol;
        target.name = ret_label;
        in.operands = {target};
      }
      body_.push_back(std::move(in));
    }
  }

  bool runtime_builtin(const std::string& name) const {
    const Function* f = m_.find(name);
    return (name == "vprintf" || name == "__assertfail" || name == "malloc" || name == "free") && (!f || f->is_declaration);
  }

  void inline_call(const Instruction& call, int depth) {
    auto fail = [&](const std::string& m) { throw InputError(SourceLocation{m_.file, call.line, call.column}, m); };
    // call (ret...), name, (args...)  |  call name, (args)  |  call (ret), name  |  call name
    // call (ret...), %rd, (args...), prototype: an indirect call through a function pointer.
    const Operand* rets = nullptr;
    const Operand* callee_name = nullptr;
    const Operand* args = nullptr;
    for (const auto& o : call.operands) {
      if (o.kind == Operand::Kind::kList) {
        (callee_name ? args : rets) = &o;
      } else if ((o.kind == Operand::Kind::kSymbol || o.kind == Operand::Kind::kRegister) && !callee_name) {
        callee_name = &o;
      }
    }
    if (!callee_name) fail("expected the name of the called function");
    if (callee_name->kind == Operand::Kind::kRegister) return indirect_call(call, *callee_name, rets, args, depth);
    if (runtime_builtin(callee_name->name)) {
      // The CUDA runtime's device-side vprintf, __assertfail, malloc and free have no PTX body: the emulator
      // runs them itself. The call keeps its opcode and the callee's name, and its return and
      // argument lists become the call-site .param variables' addresses, in order.
      Instruction builtin = call;
      builtin.operands = {*callee_name};
      for (const Operand* list : {rets, args}) {
        if (!list) continue;
        for (const Operand& item : list->items) {
          Operand slot = item;
          slot.kind = Operand::Kind::kAddress;
          slot.value = 0;
          builtin.operands.push_back(slot);
        }
      }
      body_.push_back(std::move(builtin));
      return;
    }
    const Function* callee = m_.find(callee_name->name);
    if (!callee || callee->is_declaration) fail("call to '" + callee_name->name + "', which has no body in this module (the emulator cannot run it)");
    if (std::find(inlining_.begin(), inlining_.end(), callee) != inlining_.end()) {
      std::string chain = entry_->name + " -> ";
      for (const Function* f : inlining_) chain += f->name + " -> ";
      fail("recursion (" + chain + callee->name + "): the emulator inlines calls, so it cannot run a function that calls itself");
    }
    inline_body(call, *callee, rets, args, depth);
  }

  // An indirect call becomes a compare and a branch per function it could reach (those whose
  // address the module takes, whose parameters and return values have the call's sizes), each
  // to an inlined copy of that function: what a compiler's devirtualised dispatch does. Lanes
  // holding different pointers diverge and reconverge after the call, as on the GPU. A pointer
  // that is no such function's address stops the run with a message (on a GPU: an illegal
  // instruction).
  void indirect_call(const Instruction& call, const Operand& pointer, const Operand* rets, const Operand* args, int depth) {
    const size_t n_args = args ? args->items.size() : 0, n_rets = rets ? rets->items.size() : 0;
    // Functions this call is already inside are not inlined again (that would never end); a
    // pointer to one of them stops the run at the call, as recursion (kRecursiveTarget).
    std::vector<const Function*> targets, recursive;
    if (!address_taken_) address_taken_ = address_taken_functions(m_);
    for (const Function* f : *address_taken_) {
      if (!same_sizes(f->params, args) || !same_sizes(f->returns, rets)) continue;
      (std::find(inlining_.begin(), inlining_.end(), f) != inlining_.end() ? recursive : targets).push_back(f);
    }
    if (targets.empty() && recursive.empty()) {
      throw InputError(SourceLocation{m_.file, call.line, call.column},
                       "indirect call, but no function of this module with its " + std::to_string(n_args) + " parameter(s) and " +
                           std::to_string(n_rets) + " return value(s) of these sizes has its address taken (the emulator runs calls to functions of the same module only)");
    }
    if (call.guard) throw InputError(SourceLocation{m_.file, call.line, call.column}, "a predicated indirect call is not supported by the emulator");
    const std::string prefix = "__icall" + std::to_string(++indirect_calls_) + "_";
    RegisterDecl match{".pred", "%" + prefix + "match", 0, 1};
    registers_.push_back(match);
    auto make = [&](const std::string& opcode, std::vector<Operand> operands) {
      Instruction in;
      in.opcode = opcode;
      in.operands = std::move(operands);
      in.line = call.line, in.column = call.column, in.source_line = call.source_line, in.source_file = call.source_file;
      return in;
    };
    auto symbol = [](const std::string& name) {
      Operand o;
      o.kind = Operand::Kind::kSymbol;
      o.name = name;
      return o;
    };
    Operand flag;
    flag.kind = Operand::Kind::kRegister;
    flag.name = match.name;
    auto immediate = [](int64_t v) {
      Operand o;
      o.kind = Operand::Kind::kImmediate;
      o.value = v;
      return o;
    };
    // The timing model sees the first compare as the GPU's one indirect CALL, and each inlined
    // copy's closing branch as its RET; the rest of the dispatch is emulated but not timed.
    bool first = true;
    auto dispatch = [&](const Function* f, const std::string& label) {
      body_.push_back(make("setp.eq.u64", {flag, pointer, immediate(static_cast<int64_t>(*function_address(m_, f->name)))}));
      body_.back().untimed = !first;
      first = false;
      Instruction branch = make("bra", {symbol(label)});
      branch.guard = match.name;
      branch.untimed = true;
      body_.push_back(std::move(branch));
    };
    for (size_t k = 0; k < targets.size(); ++k) dispatch(targets[k], prefix + std::to_string(k));
    for (const Function* f : recursive) dispatch(f, prefix + "recursive");
    body_.push_back(make("call", {symbol(kBadIndirectCall), pointer, immediate(kNoTarget)}));
    body_.push_back(make("bra.uni", {symbol(prefix + "end")}));
    if (!recursive.empty()) {
      labels_[prefix + "recursive"] = body_.size();
      body_.push_back(make("call", {symbol(kBadIndirectCall), pointer, immediate(kRecursiveTarget)}));
      body_.push_back(make("bra.uni", {symbol(prefix + "end")}));
    }
    for (size_t k = 0; k < targets.size(); ++k) {
      labels_[prefix + std::to_string(k)] = body_.size();
      inline_body(call, *targets[k], rets, args, depth);
      body_.push_back(make("bra.uni", {symbol(prefix + "end")}));
    }
    labels_[prefix + "end"] = body_.size();
  }

  // Whether the call site's .param variables have the sizes of a function's parameters (or
  // return values): the signature the call's .callprototype declares.
  bool same_sizes(const std::vector<Variable>& formals, const Operand* actuals) const {
    const size_t n = actuals ? actuals->items.size() : 0;
    if (n != formals.size()) return false;
    for (size_t k = 0; k < n; ++k) {
      const Variable* actual = call_site_param(actuals->items[k].name);
      if (actual && actual->size_bytes() != formals[k].size_bytes()) return false;
    }
    return true;
  }
  const Variable* call_site_param(const std::string& name) const {
    for (const auto* list : {&entry_->locals, &locals_})
      for (const Variable& v : *list)
        if (v.name == name) return &v;
    return nullptr;
  }

  void inline_body(const Instruction& call, const Function& callee, const Operand* rets, const Operand* args, int depth) {
    auto fail = [&](const std::string& m) { throw InputError(SourceLocation{m_.file, call.line, call.column}, m); };
    if (depth >= 32) fail("calls nested deeper than 32 (the emulator inlines every call)");
    if (body_.size() > kMaxInstructions) fail("inlining the kernel's calls makes it longer than " + std::to_string(kMaxInstructions) + " instructions");
    const std::string prefix = "__c" + std::to_string(++calls_) + "_";
    Names regs, aliases;
    for (const auto& r : callee.registers) {
      RegisterDecl copy = r;
      copy.name = "%" + prefix + r.name.substr(1);
      registers_.push_back(copy);
      if (r.count == 0) {
        regs[r.name] = copy.name;
      } else {
        for (uint32_t k = 0; k < r.count; ++k) regs[r.name + std::to_string(k)] = copy.name + std::to_string(k);
      }
    }
    for (const auto& v : callee.locals) {
      Variable copy = v;
      copy.name = prefix + v.name;
      aliases[v.name] = copy.name;
      locals_.push_back(copy);
    }
    auto bind = [&](const std::vector<Variable>& formals, const Operand* actuals, const char* what) {
      size_t n = actuals ? actuals->items.size() : 0;
      if (n != formals.size()) {
        fail(callee.name + " takes " + std::to_string(formals.size()) + " " + what + ", the call passes " + std::to_string(n));
      }
      for (size_t k = 0; k < n; ++k) aliases[formals[k].name] = actuals->items[k].name;
    };
    bind(callee.params, args, "parameters");
    bind(callee.returns, rets, "return values");
    const std::string ret_label = prefix + "return";
    inlining_.push_back(&callee);
    emit(callee, prefix, regs, aliases, ret_label, depth + 1);
    inlining_.pop_back();
    labels_[ret_label] = body_.size();
  }

  // Indirect calls to every target of every indirect call inside every target can multiply.
  static constexpr size_t kMaxInstructions = 4'000'000;
  const Module& m_;
  const Function* entry_ = nullptr;
  std::vector<const Function*> inlining_;  // the functions being inlined, outermost first
  std::optional<std::vector<const Function*>> address_taken_;  // found at the first indirect call
  std::vector<Instruction> body_;
  std::map<std::string, size_t> labels_;
  std::vector<RegisterDecl> registers_;
  std::vector<Variable> locals_;
  int calls_ = 0;
  int indirect_calls_ = 0;
};

}  // namespace

Function inline_calls(const Module& module, const Function& entry) { return Inliner(module).run(entry); }

}  // namespace warpsim::ptx
