// What the emulator runs in place of the CUDA runtime and a GPU's fault handling: isspacep, the
// stack (alloca, stacksave, stackrestore), trap, and the device-side vprintf and __assertfail
// that printf() and assert() call.
#include <bit>

#include "common/error.h"
#include "common/format.h"
#include "frontend/ptx/cta_emulator.h"
#include "frontend/ptx/device_printf.h"
#include "frontend/ptx/inliner.h"
#include "frontend/ptx/value_bits.h"

namespace warpsim::ptx {
namespace {

bool in_window(uint64_t a, uint64_t base, uint64_t size) { return a >= base && a - base < size; }

}  // namespace

uint8_t CtaEmulator::generic_byte(uint64_t a, const WarpState& w, uint32_t lane, const EmuInst& in) {
  if (in_window(a, kGenericLocalBase, kGenericLocalSize)) return *memory_at(MemSpace::kLocal, a - kGenericLocalBase, 1, w, lane, in);
  if (in_window(a, kGenericSharedBase, kGenericSharedSize)) {
    return *memory_at(MemSpace::kSharedCluster, a - kGenericSharedBase, 1, w, lane, in);
  }
  return *memory_at(MemSpace::kGlobal, a, 1, w, lane, in);
}

// One lane's call, in lane order within a warp (a deterministic order for the heap's blocks and
// the printed lines).
uint64_t CtaEmulator::call_runtime(RuntimeFunction f, WarpState& w, const EmuInst& in, uint32_t l, const std::array<uint64_t, 5>& args) {
  auto string_at = [&](uint64_t a) {
    std::string s;
    if (a == 0) return std::string("(null)");
    for (uint8_t c; s.size() < 65536 && (c = generic_byte(a + s.size(), w, l, in)) != 0;) s += static_cast<char>(c);
    return s;
  };
  switch (f) {
    case RuntimeFunction::kMalloc: {
      if (!launch_.heap) fault(in, w, l, "internal: no device heap for malloc/free");
      const uint64_t p = launch_.heap->allocate(args[0]);
      if (p) launch_.memory->mark_unwritten(p, launch_.heap->block_at(p).second);  // a block freed before may be handed out again
      return p;
    }
    case RuntimeFunction::kFree:
      if (!launch_.heap) fault(in, w, l, "internal: no device heap for malloc/free");
      if (args[0] != 0 && !launch_.heap->release(args[0])) fault(in, w, l, "free(" + hex(args[0]) + ") of a pointer that malloc did not return, or that was freed already");
      return 0;
    case RuntimeFunction::kVprintf: {
      // The text goes to the launch's device output.
      const uint64_t buffer = args[1];
      PrintfArguments printf_args;
      printf_args.read = [&](uint64_t offset, uint32_t bytes) {
        uint64_t v = 0;
        for (uint32_t k = 0; k < bytes; ++k) v |= uint64_t{generic_byte(buffer + offset + k, w, l, in)} << (8 * k);
        return v;
      };
      printf_args.string = [&](uint64_t a) {  // %s: a string in global memory is read through initcheck
        std::string text = string_at(a);
        const bool global = !in_window(a, kGenericLocalBase, kGenericLocalSize) && !in_window(a, kGenericSharedBase, kGenericSharedSize);
        if (global && checks_global_) check_global(w, l, a, text.size() + 1, true, false, in);
        return text;
      };
      uint32_t count = 0;
      const std::string text = format_device_printf(string_at(args[0]), printf_args, count);
      if (launch_.device_output) launch_.device_output->append(text);
      return count;
    }
    case RuntimeFunction::kAssertFail:
      // The failing lane stops the run, as the failed assert stops the kernel (cudaErrorAssert).
      fault(in, w, l, string_at(args[1]) + ":" + std::to_string(static_cast<uint32_t>(args[2])) + ": " + string_at(args[3]) + ": Assertion `" + string_at(args[0]) + "` failed");
    case RuntimeFunction::kNone:
      break;
  }
  return 0;
}

void CtaEmulator::runtime_op(WarpState& w, const EmuInst& in, uint32_t exec) {
  const auto& ops = in.operands;
  // A call-site .param variable (in the thread's local memory) holding a 64-bit value.
  auto param = [&](const EmuOperand& o, uint32_t l) {
    uint64_t v = 0;
    std::memcpy(&v, memory_at(MemSpace::kLocal, address(w, o, l), 8, w, l, in), 8);
    return v;
  };
  switch (in.code) {
    case EmuOp::kIsspacep: {  // isspacep.space p, a: whether generic address a lies in that space
      const bool local = in.qualifier == 2, shared = in.qualifier >= 3, own_cta = in.qualifier == 4;
      for_lanes(exec, [&](uint32_t l) {
        const uint64_t a = read(w, ops.at(1), l);
        const bool is_local = in_window(a, kGenericLocalBase, kGenericLocalSize);
        const bool is_shared = in_window(a, kGenericSharedBase, kGenericSharedSize);
        const uint64_t rank = (a - kGenericSharedBase) >> kClusterRankShift;
        bool r = !is_local && !is_shared && in.qualifier == 1;  // .const and .param have no generic addresses here
        if (local) r = is_local;
        if (shared) r = is_shared && (!own_cta || rank == 0 || rank == rank_ + 1);
        write(w, ops[0].reg, l, r);
      });
      return;
    }
    case EmuOp::kAlloca:
    case EmuOp::kStackSave:
    case EmuOp::kStackRestore:
      // A thread's stack grows up in its local memory from above its static locals: alloca
      // returns a local address (PTX ISA: for ld.local/st.local), stacksave reads the pointer and
      // stackrestore sets it, which frees what was allocated since.
      for_lanes(exec, [&](uint32_t l) {
        uint32_t& top = w.stack_top[l];
        if (top == 0) top = static_cast<uint32_t>((launch_.program->static_local_bytes + 15) / 16 * 16);
        if (in.code == EmuOp::kStackRestore) {
          top = static_cast<uint32_t>(read(w, ops.at(0), l));
        } else if (in.code == EmuOp::kStackSave) {
          write(w, ops.at(0).reg, l, top);
        } else {
          // At least 8, the frame's own alignment (PTX ISA: max(immAlign, frame_align)).
          const uint64_t align = ops.size() > 2 ? std::max<uint64_t>(8, read(w, ops[2], l)) : 8;
          const uint64_t at = (top + align - 1) / align * align, end = at + read(w, ops.at(1), l);
          if (end > (1u << 20)) fault(in, w, l, "alloca beyond the 1 MiB of local memory per thread");
          top = static_cast<uint32_t>(end);
          write(w, ops.at(0).reg, l, at);
        }
      });
      return;
    case EmuOp::kTrap:
      if (exec) {
        fault(in, w, static_cast<uint32_t>(std::countr_zero(exec)),
              std::string("the kernel executed trap (on a GPU the launch fails)") +
                  (launch_.program->reads_envreg && launch_.grid_workspace == 0
                       ? "; the kernel reads %envreg, as cooperative groups' this_grid().sync() does, which traps unless the kernel is "
                         "launched cooperatively: give the launch 'cooperative: true'"
                       : ""));
      }
      return;
    case EmuOp::kAssertFail:
      // __assertfail(message, file, line, function, char size) from the call-site .param slots;
      // the line is a 32-bit one.
      if (exec) {
        const auto l = static_cast<uint32_t>(std::countr_zero(exec));
        const size_t n = ops.size();
        if (n < 5) fault(in, w, l, "__assertfail takes 5 parameters");
        uint32_t line = 0;
        std::memcpy(&line, memory_at(MemSpace::kLocal, address(w, ops[n - 3], l), 4, w, l, in), 4);
        call_runtime(RuntimeFunction::kAssertFail, w, in, l, {param(ops[n - 5], l), param(ops[n - 4], l), line, param(ops[n - 2], l), 1});
      }
      return;
    case EmuOp::kBadIndirectCall:
      // The inliner's dispatch found no function for the lanes left (inliner.h).
      if (exec) {
        const auto l = static_cast<uint32_t>(std::countr_zero(exec));
        const bool recursive = ops.size() > 2 && read(w, ops[2], l) == static_cast<uint64_t>(kRecursiveTarget);
        fault(in, w, l, "indirect call to " + hex(read(w, ops.at(1), l)) +
                            (recursive ? ", a function this call is already inside: the emulator inlines calls, so it cannot run recursion"
                                       : ", which is not the address of a function of this module taking this call's parameters (on a GPU the launch fails)"));
      }
      return;
    case EmuOp::kMalloc:
    case EmuOp::kFree: {
      // malloc(size) -> pointer and free(pointer); the call-site .param slots are in local memory.
      const bool alloc = in.code == EmuOp::kMalloc;
      const size_t n = ops.size();
      if (n < (alloc ? 3u : 2u)) fault(in, w, exec ? static_cast<uint32_t>(std::countr_zero(exec)) : 0, alloc ? "malloc takes 1 parameter and returns a pointer" : "free takes 1 parameter");
      for_lanes(exec, [&](uint32_t l) {
        const uint64_t p = call_runtime(alloc ? RuntimeFunction::kMalloc : RuntimeFunction::kFree, w, in, l, {param(ops[n - 1], l)});
        if (alloc) std::memcpy(memory_at(MemSpace::kLocal, address(w, ops[n - 2], l), 8, w, l, in), &p, 8);
      });
      return;
    }
    case EmuOp::kPrintf: {
      // vprintf(format, arguments) with an optional int result.
      const size_t n = ops.size();
      if (n < 3) fault(in, w, exec ? static_cast<uint32_t>(std::countr_zero(exec)) : 0, "vprintf takes 2 parameters");
      for_lanes(exec, [&](uint32_t l) {
        const auto count = static_cast<uint32_t>(call_runtime(RuntimeFunction::kVprintf, w, in, l, {param(ops[n - 2], l), param(ops[n - 1], l)}));
        if (n > 3) std::memcpy(memory_at(MemSpace::kLocal, address(w, ops[n - 3], l), 4, w, l, in), &count, 4);
      });
      return;
    }
    case EmuOp::kSassRuntimeCall:
      // CALL.ABS.NOINC Rn: the runtime function at Rn's address, with the arguments the ABI puts
      // in R4 on, a pair each (ptxas's SASS for device_malloc.cu and device_printf.cu: malloc's
      // size in R4:R5, vprintf's format and arguments in R4:R5 and R6:R7, __assertfail's line in
      // R8), and the result in R4 (R4:R5 for a pointer).
      for_lanes(exec, [&](uint32_t l) {
        const uint64_t target = read(w, ops.at(1), l);
        const RuntimeFunction f = runtime_function_at(target);
        if (f == RuntimeFunction::kNone) {
          fault(in, w, l, "CALL.ABS to " + hex(target) + ", which is not a CUDA runtime function the emulator provides (vprintf, malloc, free, __assertfail)");
        }
        std::array<uint64_t, 5> args{};
        for (size_t k = 0; k < args.size(); ++k) args[k] = element(w, ops.at(2), 2 * k, l) | element(w, ops[2], 2 * k + 1, l) << 32;
        const uint64_t r = call_runtime(f, w, in, l, args);
        if (f == RuntimeFunction::kMalloc || f == RuntimeFunction::kVprintf) write(w, ops[0].regs.at(0), l, static_cast<uint32_t>(r));
        if (f == RuntimeFunction::kMalloc) write(w, ops[0].regs.at(1), l, r >> 32);
      });
      return;
    default:
      return;
  }
}

}  // namespace warpsim::ptx
