#pragma once
// Functional execution of one CTA of a PTX kernel, one warp instruction at a time, with a SIMT
// reconvergence stack per warp (divergent branches reconverge at their immediate
// post-dominator). Each executed instruction becomes a WarpInst for the timing model.
//
// Barriers: a warp waiting at one of the CTA's barriers (bar.sync, bar.red) is not run until the
// barrier's phase completes. When the timing model asks such a warp for an instruction, the
// emulator first runs the other warps until the phase completes and queues what they executed,
// so all stores before a barrier are visible after it (cta_barriers.cpp).
#include <algorithm>
#include <array>
#include <bit>
#include <functional>
#include <map>
#include <string>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "common/dim3.h"
#include "common/fifo.h"
#include "frontend/kernel_source.h"
#include "frontend/ptx/device_heap.h"
#include "frontend/ptx/device_memory.h"
#include "frontend/ptx/function_addresses.h"
#include "frontend/ptx/grid_state.h"
#include "frontend/ptx/mma_block_sum.h"
#include "frontend/ptx/program.h"
#include "frontend/ptx/register_file.h"
#include "frontend/ptx/spin_watch.h"
#include "frontend/ptx/sync_clocks.h"
#include "frontend/ptx/tensor_map.h"
#include "frontend/ptx/texture_desc.h"
#include "frontend/ptx/value_bits.h"
#include "frontend/ptx/wgmma_layout.h"

namespace warpsim::ptx {

// A problem the kernel checkers found (docs/launch-format.md#checks).
struct Finding {
  std::string kind;     // "race", "uninitialized-shared-read", "divergent-barrier", "uninitialized-global-read", "stale-texture-read", "shuffle-from-inactive-lane", "try-cancel-after-failure", ...
  std::string message;  // file:line: what, by which thread of which CTA, and the other access
};

struct Findings {
  std::vector<Finding> list;
  // kind + line (for a race, the two accesses' lines, whichever came second) → count, so each
  // place (each pair of racing places, as compute-sanitizer's racecheck reports) is reported once
  std::map<std::string, uint64_t> seen;
  bool enabled = true;
  void add(const std::string& kind, uint32_t line, const std::string& message, uint32_t other_line = 0) {
    std::string key = kind + ":" + std::to_string(other_line ? std::min(line, other_line) : line);
    if (other_line) key += ":" + std::to_string(std::max(line, other_line));
    if (++seen[key] == 1 && list.size() < 50) list.push_back(Finding{kind, message});
  }
};

// What kernels print with printf. CUDA keeps it in a FIFO of cudaLimitPrintfFifoSize bytes
// (1 MiB by default) and drops what does not fit; this keeps as much text and then says so.
struct DeviceOutput {
  static constexpr size_t kLimit = size_t{1} << 20;
  std::string text;
  bool truncated = false;
  void append(const std::string& s) {
    if (truncated) return;
    if (text.size() + s.size() > kLimit) {
      truncated = true;
      text += "[warpsim: device printf output beyond 1 MiB dropped, as CUDA's default printf FIFO would]\n";
      return;
    }
    text += s;
  }
};

struct LaunchContext {
  const Program* program = nullptr;
  DeviceMemory* memory = nullptr;
  std::vector<uint8_t> params;  // the kernel's parameter buffer
  Dim3 grid, block;
  Dim3 cluster;                 // thread-block cluster shape; (1,1,1) without clusters
  bool explicit_cluster = false;  // %is_explicit_cluster: launched with a cluster shape
  uint64_t grid_id = 1;         // %gridid: the launch's number in the launch file, from 1
  uint64_t grid_workspace = 0;  // a cooperative launch's grid-barrier workspace (%envreg1:%envreg2); 0 otherwise
  DeviceHeap* heap = nullptr;   // what in-kernel malloc and free use (null: the module calls neither)
  uint32_t dynamic_shared_bytes = 0;
  uint32_t shared_allocation_unit = 128;  // %total_smem_size is a multiple of it
  DeviceOutput* device_output = nullptr;  // where printf writes; null: nowhere
  std::string file;             // PTX file, for messages
  Findings* findings = nullptr; // where the checkers report; null disables them
  // Volta-style independent thread scheduling: each lane has its own PC; the warp runs one group
  // of lanes sharing a PC at a time, the lowest PC first (so paths meet again where they join),
  // but hands the warp to the next group after a spin-wait iteration or 64 steps, so that a lane
  // spinning on another always lets it progress (step_independent). *.sync instructions wait for
  // every live lane. False: the classic stack.
  bool independent_thread_scheduling = false;
  // How the tensor cores add products, by input precision (the config's tensor.block_sum; empty:
  // IEEE arithmetic, one rounding per product).
  MmaSumSpecs mma_sums{};
  bool warp_fp8_via_fp16 = false;  // GpuSpec::tensor.warp_fp8_via_fp16: mma.sync FP8 adds as two k16 FP16 MMAs
  uint64_t max_warp_instructions = 100'000'000;  // a warp past this is reported as stuck (livelock)
  // OpInfo records for instructions whose shape is known only at run time (tcgen05.mma's comes
  // from its instruction descriptor), by warpsim's full mnemonic; entries never move.
  std::map<std::string, OpInfo>* run_time_ops = nullptr;
};

class CtaEmulator;

// The CTAs of one thread-block cluster, emulated together: distributed shared memory reaches a
// sibling's shared memory, and barrier.cluster runs the siblings' warps up to their arrive. A
// CTA the timing model has retired leaves its shared memory here (a late read is the kernel's
// bug, but must not crash the emulator).
struct ClusterState {
  std::vector<CtaEmulator*> ctas;                   // by rank; null once retired
  std::vector<std::vector<uint8_t>> retired_shared;  // by rank
  uint32_t catching_up = 0;                         // nesting of barrier.cluster catch-ups
  bool yielding = false;                            // some CTA's failing mbarrier wait is running the others ahead
  uint64_t effects = 0;                             // instructions executed with effects beyond registers (spin_watch.h)
  uint32_t retired = 0;                             // CTAs that have exited (a null rank may also be one not yet begun)
};

class CtaEmulator : public CtaWork {
 public:
  // `cluster`: the cluster this CTA belongs to (null when the kernel has none), `rank` its place
  // there; `grid`: its launch's CTAs (null: not watched for polls of global memory).
  CtaEmulator(const LaunchContext& launch, Dim3 cta_id, std::shared_ptr<ClusterState> cluster = nullptr, uint32_t rank = 0,
              std::shared_ptr<GridState> grid = nullptr);
  ~CtaEmulator() override;
  CtaEmulator(const CtaEmulator&) = delete;
  CtaEmulator& operator=(const CtaEmulator&) = delete;
  Dim3 id() const override { return id_; }
  void placed(uint32_t sm, uint32_t sms) override { sm_ = sm, sms_ = sms; }
  uint32_t num_warps() const override { return static_cast<uint32_t>(warps_.size()); }
  WarpStream& warp(uint32_t index) override { return streams_[index]; }
  bool waiting_at_barrier(uint32_t index) const override { return warps_[index].barrier_wait >= 0 && warps_[index].queue.empty(); }

 private:
  struct StackEntry {
    uint32_t pc, rpc, mask;
  };
  // At most one address per lane, kept inside the record: a separate allocation would be one more
  // cold cache line for the timing model to fetch when the instruction issues.
  struct AddressList {
    std::array<uint64_t, 32> at;
    uint32_t count = 0;
    void push_back(uint64_t a) { at[count++ & 31] = a; }
    void clear() { count = 0; }
    bool empty() const { return count == 0; }
    const uint64_t* data() const { return at.data(); }
  };
  struct Record {  // one executed instruction, owning its address list (its registers are the Program's)
    WarpInst inst;
    AddressList addresses;
    std::vector<RegId> async_regs;  // cp.async and its waits: registers chosen at run time (else empty)
  };
  struct WarpState {
    uint32_t index = 0;
    RegisterFile regs;
    std::vector<StackEntry> stack;
    // bar.sync or bar.red waiting for its barrier's phase to complete: the barrier (-1: none),
    // the instruction, and for bar.red its form, destination and the lanes that get the result.
    const uint32_t* clock_row = nullptr;  // the race checker's SyncClocks::row for this warp (null: checker off)
    int32_t barrier_wait = -1;
    uint32_t barrier_pc = 0;
    uint8_t barrier_form = 0;
    int32_t barrier_dst = -1;
    uint32_t barrier_lanes = 0;
    uint32_t cluster_arrivals = 0;  // barrier.cluster.arrive instructions executed
    bool done = false;
    Fifo<Record> queue;          // executed ahead (to reach a barrier), not yet handed out
    std::array<uint32_t, 32> pcs{};  // independent thread scheduling: each lane's PC
    // SASS: lanes a WARPSYNC.EXCLUSIVE set apart run only with lanes of the same tag (the mask
    // they synchronised on) until a BSYNC brings them together (0: not set apart); and lanes
    // that executed YIELD since they last passed a BSSY or BSYNC, which a BSYNC does not wait
    // for (a spinning lane would otherwise hold a barrier its lock holder must pass).
    std::array<uint32_t, 32> tags{};
    uint32_t yielded = 0;
    // SASS: lanes that executed a BSYNC and wait at it for the rest of its barrier. Each group
    // that reaches a BSYNC issues it, so a region that splits a warp into k groups issues its
    // BSYNC k times, as the H200's instruction counts show (docs/validation.md).
    uint32_t parked = 0;
    uint32_t live = 0;               // lanes that have not exited
    uint32_t turn = 0;               // the PC last run
    uint32_t run_length = 0;         // steps the lowest-PC group has run without a turn for others
    uint32_t following = 0;          // after a hand-over: the lanes of the group that runs until its next branch
    bool waited_on_memory = false;   // an atomic or a volatile/relaxed/acquire load since the last branch
    uint64_t executed = 0;
    uint32_t carry = 0;              // per lane: the condition code's carry flag (add.cc, addc, ...)
    std::array<uint32_t, 32> stack_top{};  // per lane: alloca's stack pointer in local memory (0: not yet used)
    // cp.async groups, as the timing model sees them: each cp.async writes a pseudo register
    // (Program::async_copy_reg_base + k, k rotating), commit_group closes the open group, and
    // wait_group reads the registers of the groups it waits for.
    uint32_t async_next = 0;
    std::vector<RegId> async_open;
    Fifo<std::vector<RegId>> async_groups;
    uint32_t failed_polls = 0;  // mbarrier waits failed in a row
    SpinWatch spin;             // whether those polls go round a loop that writes nothing
    // While failed_polls is past the watch's threshold: registers (by slot, slot(r) >> 1) whose
    // value comes from a clock read, which the watch leaves out (a backoff reads the time).
    std::vector<uint8_t> timed;
    // Polls of memory (a taken backward branch after an atomic or a strong load), watched as the
    // mbarrier polls are but with the grid as the unit; where the last strong load or atomic read.
    uint32_t memory_polls = 0;
    SpinWatch grid_spin;
    const EmuInst* poll = nullptr;  // the last strong load or atomic, and its first lane's address
    uint64_t poll_address = 0;
    uint64_t changed_address = 0;   // the word its last atomic that changed memory changed,
    uint32_t changed_lanes = 0;     // and the lanes that changed it (since it last moved)
  };
  class Stream : public WarpStream {
   public:
    Stream(CtaEmulator& cta, uint32_t warp) : cta_(cta), warp_(warp) {}
    const WarpInst* next() override;

   private:
    // A warp is emulated kBatch instructions at a time while its registers are in the cache; the
    // timing model then takes them one by one. Slots are reused, so nothing is allocated per
    // instruction. Larger batches leave records cold before they issue (docs/performance.md).
    static constexpr uint32_t kBatch = 4;
    CtaEmulator& cta_;
    uint32_t warp_;
    Record current_;                    // taken from the warp's queue (executed to reach a barrier)
    std::array<Record, kBatch> batch_;
    uint32_t filled_ = 0, taken_ = 0;
  };

  bool step(WarpState& w, Record& out);   // false when the warp has finished
  // sass_step.cpp: a warp running SASS (Program::sass), under its convergence barriers.
  bool step_sass(WarpState& w, Record& out);
  // The lanes a group at `in` still waits for (BSYNC, WARPSYNC, BAR); 0 when it can run.
  uint32_t sass_group_waits(const WarpState& w, const EmuInst& in, uint32_t group) const;
  // The lanes of the BSYNC `in`'s barrier that are neither in `group` nor parked at it.
  uint32_t sass_bsync_missing(const WarpState& w, const EmuInst& in, uint32_t group) const;
  static uint32_t parked_at(const WarpState& w, uint32_t pc);  // the lanes that issued the BSYNC at pc and wait there
  // sass_execute.cpp: SASS's arithmetic and VOTE, and the addresses it writes.
  void sass_alu(WarpState& w, const EmuInst& in, uint32_t exec);
  void sass_vote(WarpState& w, const EmuInst& in, uint32_t exec);
  uint64_t sass_source(const WarpState& w, const EmuOperand& o, uint32_t lane) const;
  void sass_result(WarpState& w, const EmuOperand& o, uint32_t lane, uint64_t v);
  void broadcast_results(WarpState& w, const EmuInst& in, uint32_t exec);
  uint64_t sass_address(const WarpState& w, const EmuOperand& o, uint32_t lane) const;
  bool untimed(const Record& r) const { return launch_.program->insts[r.inst.pc].untimed; }
  bool step_independent(WarpState& w, Record& out);
  // A branch under independent scheduling (PTX or SASS) ends a hand-over, and a taken backward
  // one after waiting on memory (a spin-wait iteration) hands the warp on at the next step.
  void after_branch(WarpState& w, const EmuInst& in, uint32_t pc, uint32_t target, bool taken);
  void begin_record(const EmuInst& in, uint32_t exec, Record& out) const;
  static void compress_addresses(Record& out);  // the active mask must be set
  uint32_t guard_lanes(const WarpState& w, const EmuInst& in, uint32_t mask) const;
  // cta_barriers.cpp: the CTA's sixteen barriers (PTX ISA "bar, barrier").
  struct CtaBarrier {
    uint32_t arrived = 0;          // warps arrived in the phase under way (0: none under way)
    uint32_t expected = 0;         // warps the phase expects; 0: every warp that has not exited
    uint32_t popc = 0;             // bar.red: lanes whose predicate was true so far,
    bool all = true, any = false;  // and whether all / any were
    PhaseClock clock;              // the race checker's: what the arriving warps had seen
  };
  std::array<CtaBarrier, 16> barriers_;
  void barrier_op(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);
  void complete_barrier_if_done(uint32_t id);
  void check_can_complete(uint32_t id, const EmuInst& at) const;  // throws when the phase never can
  void warp_finished();  // a warp exited: phases expecting every live warp may now be complete
  // Runs the other warps until `w`'s barrier phase completes; a clear error if it never can.
  void wait_at_barrier(WarpState& w);
  SyncClocks clocks_;  // happens-before for the shared-memory checker (enabled with it)
  // Words that atomics and strong accesses synchronise through (shared ones with bit 63 set).
  std::unordered_map<uint64_t, PhaseClock> memory_clocks_;
  void sync_through_memory(WarpState& w, MemSpace space, const std::array<uint64_t, 32>& lane_address, uint32_t exec, bool release,
                           bool acquire);
  void execute(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);
  void execute_op(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);
  void load_store(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);  // memory_access.cpp
  void atomic(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);  // atom, red (atomics.cpp)
  void move_b128(WarpState& w, const EmuInst& in, uint32_t exec);            // mov.b128 (atomics.cpp)
  void async_store(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);  // st.async, red.async (async_stores.cpp)
  void async_copy_group(WarpState& w, const EmuInst& in, Record& out);  // cp.async (and its waits' and arrives') pseudo registers
  void finish_lanes(WarpState& w, uint32_t lanes);
  // mbarrier_ops.cpp: transaction barriers (state per shared address) and bulk copies.
  struct Mbarrier {
    uint32_t expected = 0, pending = 0;
    int64_t tx = 0;      // transaction bytes expected and not yet copied
    uint32_t phase = 0;  // phases completed
    // The race checker's: what this CTA's warps arriving in the phase under way had seen, and
    // the same for the last two completed phases (by parity: a wait names one of those).
    PhaseClock clock;
    std::array<PhaseClock, 2> completed;
    // The state token an arrive returns: the phase it arrived on (bits 0-31), the pending count
    // before it (bits 43-62, where the hardware's token keeps its count: SASS reads
    // mbarrier.pending_count from there), and bit 63 when the arrive was .noComplete, the only
    // token the PTX ISA lets mbarrier.pending_count read.
    static uint64_t token(uint32_t phase, uint32_t pending_before, bool no_complete) {
      return phase | uint64_t{pending_before & 0xfffffu} << 43 | uint64_t{no_complete} << 63;
    }
    // The hardware's 64-bit word, as ptxas's SASS shows it (SYNCS.EXCH.64 initialises a barrier
    // of n arrivals with (2^20 - n) << 1 | (2^20 - n) << 43): the count to reload at bits 1-20,
    // the arrivals still to come as 2^20 minus them at bits 43-62, counting up, so that the
    // arrival completing the phase carries into bit 63, the phase's parity. An arrive returns
    // this word; a SASS wait (SYNCS.PHASECHK) compares bit 63 of it (bit 31 of its high word).
    // The transaction count's bits are not modelled (0 here).
    static uint64_t hardware_word(uint32_t phase, uint32_t pending, uint32_t expected) {
      constexpr uint32_t kWrap = 1u << 20;
      return uint64_t{phase & 1} << 63 | uint64_t{(kWrap - pending) & (kWrap - 1)} << 43 | uint64_t{(kWrap - expected) & (kWrap - 1)} << 1;
    }
    static uint32_t token_phase(uint64_t token) { return static_cast<uint32_t>(token); }
    static uint32_t token_pending(uint64_t token) { return static_cast<uint32_t>(token >> 43) & 0xfffffu; }
    static bool token_no_complete(uint64_t token) { return token >> 63; }
  };
  Mbarrier& mbarrier_at(uint64_t address, const WarpState& w, uint32_t lane, const EmuInst& in);
  uint8_t* bytes_at(MemSpace space, uint64_t address, uint32_t size, const WarpState& w, uint32_t lane, const EmuInst& in);
  void complete_phase_if_done(Mbarrier& b) const;
  void mbarrier_op(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);
  void mbarrier_pending_count(WarpState& w, const EmuInst& in, uint32_t exec);
  void warp_op(WarpState& w, const EmuInst& in, uint32_t exec);  // warp_ops.cpp
  [[gnu::cold]] void report_inactive_source(const WarpState& w, const EmuInst& in, uint32_t lane, uint32_t source) const;
  [[gnu::cold]] void report_outside_membermask(const WarpState& w, const EmuInst& in, uint32_t lane, uint32_t mask) const;
  // isspacep, alloca and the stack, trap, and the CUDA runtime's vprintf and __assertfail (runtime_ops.cpp).
  void runtime_op(WarpState& w, const EmuInst& in, uint32_t exec);
  uint64_t call_runtime(RuntimeFunction f, WarpState& w, const EmuInst& in, uint32_t lane, const std::array<uint64_t, 5>& args);
  // A byte at a generic address (global, or this lane's shared or local memory), for printf.
  uint8_t generic_byte(uint64_t address, const WarpState& w, uint32_t lane, const EmuInst& in);
  // texture_ops.cpp: tex, tld4, txq, suld, sust on the objects launch files make.
  void texture_op(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);
  void surface_op(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);
  TextureDesc texture_object(const WarpState& w, const EmuInst& in, uint32_t lane, bool surface);
  void timed_access(const WarpState& w, const EmuInst& in, uint32_t bytes, uint64_t row_bytes, uint64_t slice_bytes, Record& out);
  void check_texture_coherence(const WarpState& w, uint32_t lane, uint64_t address, uint32_t size, const EmuInst& in);
  void bulk_copy(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);
  void bulk_tensor_copy(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);
  void bulk_store(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);
  void bulk_tensor_store(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);
  void bulk_reduce(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);
  void tensor_operand(WarpState& w, const EmuInst& in, const EmuOperand& map, uint32_t lane, TensorMap& t, int64_t* coords);
  static uint64_t box_footprint(const TensorMap& t, const int64_t* coords, MbarrierUse& use);
  uint16_t copy_destinations(WarpState& w, const EmuInst& in, size_t mask_operand, uint32_t lane);
  std::vector<uint8_t> shared_box(const WarpState& w, const EmuInst& in, uint32_t lane, uint64_t s, uint32_t bytes, uint32_t swizzle);
  void record_lane_copy(const WarpState& w, const EmuInst& in, uint32_t lane, const MbarrierUse& here, bool& first, MbarrierUse& use) const;
  void land_copy(WarpState& w, const EmuInst& in, uint32_t lane, std::span<const uint8_t> bytes, uint64_t d, uint32_t swizzle, uint64_t m,
                 uint16_t ctas);
  // launch_control.cpp: clusterlaunchcontrol (Blackwell's work stealing).
  void launch_control(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);
  uint64_t own_shared_offset(const WarpState& w, const EmuInst& in, const EmuOperand& o, uint32_t lane);
  // cluster_ops.cpp: thread-block clusters.
  void cluster_op(WarpState& w, const EmuInst& in, uint32_t exec);  // mapa, getctarank, barrier.cluster
  void cluster_catch_up(uint32_t arrivals, const EmuInst& in);       // every warp of the cluster to that many arrives
  // A generic or .shared::cluster access: decides its space from the lanes' addresses (rewriting
  // them to that space's addresses) and points the record at the matching OpInfo.
  MemSpace resolve_space(const WarpState& w, const EmuInst& in, uint32_t exec, std::array<uint64_t, 32>& lane_address, Record& out);
  uint8_t* cluster_shared_at(uint64_t address, uint32_t size, const WarpState& w, uint32_t lane, const EmuInst& in);
  std::shared_ptr<ClusterState> cluster_;
  uint32_t rank_ = 0;  // in the cluster
  // The race checker's view of barrier.cluster in this CTA: by parity of the phase, what its
  // warps arriving had seen, and which phase (a warp's arrive count) the slot holds.
  std::array<PhaseClock, 2> cluster_clock_;
  std::array<uint32_t, 2> cluster_phase_{};
  std::map<uint64_t, Mbarrier> mbarriers_;
  // A failing mbarrier wait first runs the CTA's other warps ahead (into their queues, as for a
  // barrier) until the phase completes, so that the wait's outcome does not depend on the order
  // warps happen to be emulated in (warpsim run and warpsim trace then agree).
  // `greedy`: each warp runs until it must wait, rather than one instruction per warp in turn.
  void run_others_until(const WarpState& waiting, const std::function<bool()>& done, uint64_t max_steps = uint64_t{1} << 22,
                        bool greedy = false);
  bool wait_satisfied(const WarpState& w, const EmuInst& in, uint32_t exec) const;
  uint64_t wait_operand(const WarpState& w, const EmuInst& in, uint32_t lane) const;  // the phase or parity a wait names
  bool blocked_on_wait(const WarpState& w) const;
  bool yielding_ = false;
  // stuck_waits.cpp: a failing (or passing) poll of an mbarrier; reports a phase that can never complete.
  void watch_poll(WarpState& w, const EmuInst& in, uint32_t exec, bool failed);
  void track_timed(WarpState& w, const EmuInst& in);
  struct Census {
    uint32_t exited = 0, at_barrier = 0, polling = 0, retired = 0;
    bool may_write = false;
  };
  Census census(const WarpState* except);
  // Counts warp `o` (`polling`: seen in a loop that writes nothing); false, with may_write set,
  // when it may still write.
  static bool tally(Census& c, const WarpState& o, bool polling);
  // A taken backward branch after a strong load or atomic: reports a poll nothing in the grid can satisfy.
  void watch_memory_poll(WarpState& w, const EmuInst& in);
  void note_poll(WarpState& w, const EmuInst& in, uint64_t address) const { w.waited_on_memory = true, w.poll = &in, w.poll_address = address; }
  Census grid_census(const WarpState* except) const;
  // For the livelock report: the CTAs a warp that polls memory may be waiting for have not begun.
  std::string waiting_for_ctas(const WarpState& w) const;
  std::shared_ptr<GridState> grid_;
  size_t grid_index_ = 0;  // in grid_->live
  // Where this CTA saw a try_cancel answer say "failed" (query_cancel.is_canceled false); 0 if
  // it has not. Another try_cancel after that is undefined behaviour (PTX ISA).
  uint32_t failed_cancel_seen_at_ = 0;
  std::span<const uint32_t> warp_state(const WarpState& w);
  uint64_t& unit_effects() { return cluster_ ? cluster_->effects : effects_; }
  uint64_t unit_effects() const { return cluster_ ? cluster_->effects : effects_; }
  void count_effects(const EmuInst& in) {  // for an executed instruction that is not register_only
    ++unit_effects();
    if (grid_ && !in.grid_register_only) ++grid_->effects;
  }
  uint64_t effects_ = 0;                   // as ClusterState::effects, for a CTA outside clusters
  std::vector<uint32_t> spin_scratch_;
  int64_t filling_warp_ = -1;  // the warp whose Stream is filling its batch: never run ahead here
  // Registers are by far the commonest operand: that case is inline, the rest out of line.
  bool arithmetic_fast32(WarpState& w, const EmuInst& in, uint32_t exec);
  uint64_t read(const WarpState& w, const EmuOperand& o, uint32_t lane) const {
    if (o.kind == EmuOperand::Kind::kReg) {
      uint64_t v = w.regs.get(o.reg, lane);
      return o.negated ? (v ^ 1) : v;
    }
    if (o.kind == EmuOperand::Kind::kImm) return o.bits;
    return read_other(w, o, lane);  // special registers (operand_values.cpp)
  }
  uint64_t read_other(const WarpState& w, const EmuOperand& o, uint32_t lane) const;
  // Element k of a braced list (a register, an immediate, or a sink, which reads 0) for `lane`.
  uint64_t element(const WarpState& w, const EmuOperand& o, size_t k, uint32_t lane) const {
    const int32_t r = o.regs[k];
    return r == -2 ? o.immediates[k] : r >= 0 ? w.regs.get(r, lane) : 0;
  }
  // An f32 source of an instruction with .ftz (`flush`): subnormals read as zeros of their sign.
  uint64_t read_flushed(const WarpState& w, const EmuOperand& o, uint32_t lane, bool flush, uint32_t bits = 32) const {
    if (!flush) return read(w, o, lane);
    return bits == 16 ? flush_subnormal16(read(w, o, lane)) : flush_subnormal32(read(w, o, lane));
  }
  // The address an [reg + offset] (or [symbol + offset]) operand names for `lane`.
  uint64_t address(const WarpState& w, const EmuOperand& o, uint32_t lane) const {
    if (o.sass_address) [[unlikely]] return sass_address(w, o, lane);
    const uint64_t a = (o.reg >= 0 ? w.regs.get(o.reg, lane) : 0) + o.bits;
    return o.address32 ? static_cast<uint32_t>(a) : a;
  }
  // Inline: nearly every instruction writes a register per lane.
  void write(WarpState& w, int32_t reg, uint32_t lane, uint64_t bits) {
    if (reg < 0) return;
    const uint32_t width = launch_.program->storage_bits[static_cast<size_t>(reg)];
    w.regs.set(reg, lane, width == 1 ? (bits & 1) : mask_bits(bits, width));
  }
  uint8_t* memory_at(MemSpace space, uint64_t address, uint32_t size, const WarpState& w, uint32_t lane, const EmuInst& in);
  [[noreturn]] void fault(const EmuInst& in, const WarpState& w, uint32_t lane, const std::string& message) const;

  const LaunchContext& launch_;
  Dim3 id_;
  uint32_t sm_ = 0, sms_ = 1;  // where the GPU placed the CTA (%smid, %nsmid)
  std::vector<WarpState> warps_;
  std::vector<Stream> streams_;  // one block per CTA: a grid of small CTAs builds many
  std::vector<uint8_t> shared_;
  // Shared-memory checker state per 4-byte word: who last wrote and read it, at which of the
  // accessing warp's clocks (SyncClocks; 0: never), and whether it was ever written.
  struct WordAccess {
    // 16 bytes: the checker touches one per shared word accessed, and in a big grid these are
    // cache misses, so size is speed (24 bytes cost the SGEMM benchmark about 5%).
    // `write` and `read` pack the thread's index in the CTA (bits 0-9: at most 1024 threads; its
    // warp is thread / 32), the instruction's index + 1 (bits 10-26; 0 when past 2^17 - 2) and
    // which of the word's 4 bytes the access touched (bits 27-30: threads storing different
    // bytes of one word, as a byte histogram does, do not race); bit 31 of `write` says the word
    // was ever written.
    static constexpr uint32_t kThreadMask = 0x3ff, kWrittenBit = 0x80000000u, kBytesShift = 27, kBytesBits = 0xfu << kBytesShift;
    uint32_t write_clock = 0, read_clock = 0;
    uint32_t write = 0, read = 0;
    static uint32_t pack(uint32_t thread, uint32_t instruction) {
      return thread | (instruction < 0x1fffe ? (instruction + 1) << 10 : 0u);
    }
    static uint32_t thread_of(uint32_t packed) { return packed & kThreadMask; }
    static uint32_t warp_of(uint32_t packed) { return (packed & kThreadMask) / 32; }
    static uint32_t instruction_plus_one(uint32_t packed) { return (packed >> 10) & 0x1ffff; }
    static uint32_t bytes_of(uint32_t packed) { return (packed >> kBytesShift) & 0xf; }
  };
  // An earlier access (packed as in WordAccess, at its warp's clock `clock`) by another lane of
  // the warp making access `me` at clock `now`, in another instruction, with the warp's clock not
  // advanced between them (no __syncwarp, barrier or other release). Accesses by one instruction
  // are its lanes' own business (several lanes storing to one word: one of them wins).
  static bool same_warp_unordered(uint32_t earlier, uint32_t clock, uint32_t me, uint32_t now) {
    return clock == now && WordAccess::warp_of(earlier) == WordAccess::warp_of(me) &&
           WordAccess::thread_of(earlier) != WordAccess::thread_of(me) &&
           WordAccess::instruction_plus_one(earlier) != WordAccess::instruction_plus_one(me);
  }
  // The same instruction of the same warp, with nothing released in between: its lanes' bytes
  // of a word add up in one record (the thread kept is the last; the bytes are all of theirs).
  static bool same_instruction(uint32_t earlier, uint32_t clock, uint32_t me, uint32_t now) {
    return clock == now && WordAccess::warp_of(earlier) == WordAccess::warp_of(me) &&
           WordAccess::instruction_plus_one(earlier) == WordAccess::instruction_plus_one(me);
  }
  std::vector<WordAccess> shared_words_;
  // A word read by two warps that nothing orders (FastTrack's read-shared state: every warp
  // reading a tile after a barrier) keeps one read record per warp, in a block of this pool, until
  // a whole-word store ends them. Its WordAccess says so with read_clock == kSharedReads and read
  // = the block's index. One latest reader would lose an earlier reader of another warp, and
  // with it the race that reader has with a later store by the latest reader's warp.
  struct ReadRecord {
    uint32_t clock = 0, read = 0;  // as WordAccess's read_clock and read
  };
  static constexpr uint32_t kSharedReads = 0xffffffffu;
  // At most 1 MiB of records per CTA; past it a word keeps its latest reader only (and may miss
  // races, never report false ones), so that a big CTA's checker cannot take gigabytes.
  static constexpr size_t kMaxReadRecords = (size_t{1} << 20) / sizeof(ReadRecord);
  std::vector<ReadRecord> read_records_;     // blocks of read_block_size_ (the CTA's warps)
  std::vector<uint32_t> free_read_blocks_;  // indices of blocks no word uses
  uint32_t read_block_size_ = 0;
  ReadRecord* read_block(uint32_t index) { return &read_records_[size_t{index} * read_block_size_]; }
  // The read of `warp` at `now`, which an earlier unordered read of another warp precedes: both
  // kept in a new block (false when the pool is full: the caller keeps the latest reader only).
  bool share_reads(WordAccess& a, uint32_t warp, uint32_t read, uint32_t now);
  // The racing read (packed as WordAccess::read) a store by `me` at `now` to `bytes` would meet
  // among a shared word's records; 0 if none. The store to the whole word then frees the block.
  uint32_t racing_shared_read(WordAccess& a, const uint32_t* known, uint32_t me, uint32_t now, uint32_t bytes);
  // The shared-memory checkers for the access of `size` bytes at lane_address[l] by each lane l
  // in exec, lowest lane first.
  void check_shared(const WarpState& w, uint32_t exec, const std::array<uint64_t, 32>& lane_address, uint32_t size, bool write, bool atomic,
                    const EmuInst& in) {
    if (shared_words_.empty()) return;
    uint64_t bits_seen = size;
    for (uint32_t m = exec; m; m &= m - 1) bits_seen |= lane_address[std::countr_zero(m)];
    // Whole aligned words (nearly every access) skip the byte masks' arithmetic.
    if ((bits_seen & 3) == 0) return check_shared_words<false>(w, exec, lane_address, size, write, atomic, in);
    check_shared_words<true>(w, exec, lane_address, size, write, atomic, in);
  }
  // The same for one lane's access.
  void check_shared(const WarpState& w, uint32_t lane, uint64_t address, uint32_t size, bool write, bool atomic, const EmuInst& in) {
    if (shared_words_.empty()) return;
    std::array<uint64_t, 32> lane_address;
    lane_address[lane] = address;
    check_shared(w, 1u << lane, lane_address, size, write, atomic, in);
  }
  // One call per warp, not per lane: the checks of one word are a few compares, and a call per
  // lane cost as much again (memory_access.cpp).
  template <bool kPartial>  // kPartial: some access covers part of a word
  void check_shared_words(const WarpState& w, uint32_t exec, const std::array<uint64_t, 32>& lane_address, uint32_t size, bool write, bool atomic,
                          const EmuInst& in);
  // Buffers allocated with `init: none` (compute-sanitizer's initcheck): a global access by `lane`
  // to [address, address + size) that reads reports bytes nothing has written; one that writes
  // marks them written. Only while checks_global_.
  bool checks_global_ = false;
  void check_global(const WarpState& w, uint32_t lane, uint64_t address, uint64_t size, bool read, bool write, const EmuInst& in);
  // bytes_at for global memory, with check_global.
  uint8_t* global_bytes(uint64_t address, uint32_t size, bool read, bool write, const WarpState& w, uint32_t lane, const EmuInst& in) {
    if (checks_global_) check_global(w, lane, address, size, read, write, in);
    return bytes_at(MemSpace::kGlobal, address, size, w, lane, in);
  }
  // Another CTA's shared memory (cluster_ops.cpp): writes mark its words written, reads of words
  // nothing wrote are reported; races across CTAs are not checked.
  void check_remote_shared(const WarpState& w, uint32_t lane, uint64_t address, uint32_t size, bool write, const EmuInst& in);
  // `racing_read`: the earlier read a store races with (packed as WordAccess::read; 0: none).
  [[gnu::noinline, gnu::cold]] void report_shared(const WarpState& w, uint32_t lane, uint64_t word, bool write, bool uninitialized,
                                                 bool after_write, uint32_t racing_read, const EmuInst& in);
  std::string thread_name(const WarpState& w, uint32_t lane) const;
  // Where `in` is in the CUDA source, from the PTX's .loc ("kernel.cu:30"); "" when it says nothing.
  std::string source_of(const EmuInst& in) const;
  void matrix_op(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);  // matrix_ops.cpp
  void arithmetic(WarpState& w, const EmuInst& in, uint32_t exec);                // arithmetic.cpp
  static uint64_t with_carry(WarpState& w, const EmuInst& in, uint32_t lane, uint64_t a, uint64_t b, uint64_t c);
  static double min_max(const EmuInst& in, double a, double b, double c, bool three);
  void permute_bytes(WarpState& w, const EmuInst& in, uint32_t exec);
  void simd_video(WarpState& w, const EmuInst& in, uint32_t exec);
  void convert(WarpState& w, const EmuInst& in, uint32_t exec);         // conversions.cpp
  void convert_packed(WarpState& w, const EmuInst& in, uint32_t exec);
  void convert_pack_integers(WarpState& w, const EmuInst& in, uint32_t exec);
  static double modified(const EmuInst& in, double x);
  // An integer value (held exactly in a double, or a rounded float) clamped to type t's range.
  static uint64_t saturated(double x, const ValueType& t);
  void mma_sync(WarpState& w, const EmuInst& in);  // mma_sync.cpp
  void mma_sync_exact(WarpState& w, const EmuInst& in);  // integer and FP64 forms
  void expand_sparse_a(const WarpState& w, const EmuInst& in, const double* stored, double* a);
  void wmma_mma(WarpState& w, const EmuInst& in);
  void wgmma(WarpState& w, const EmuInst& in, uint32_t exec);  // wgmma.cpp
  // Rows [row0, row0 + rows) of an operand (M or N rows, `k` elements of `type` each) in shared
  // memory through descriptor `d`, K-major or MN-major (wgmma_layout.h), times `scale`, as
  // out[row * k + kk]. FP4 is padded (16 per 16-byte chunk) unless `packed_fp4` (32 per chunk,
  // as the block-scaled kind::mxf4 and kind::mxf4nvf4 read it).
  // `cta`: the cluster's CTA whose shared memory holds it, as rank + 1 (0: this CTA).
  std::vector<float> smem_operand(const MatrixDescriptor& d, bool mn_major, const std::string& type, uint32_t row0, uint32_t rows,
                                  uint32_t k, double scale, const WarpState& w, uint32_t lane, const EmuInst& in, bool packed_fp4 = false,
                                  uint64_t cta = 0);
  // tensor_memory.cpp: Blackwell's tcgen05 instructions and the CTA's tensor memory (128 lanes x
  // 512 columns of 32 bits; an address is lane << 16 | column), allocated 32 columns at a time.
  void tcgen05_op(WarpState& w, const EmuInst& in, uint32_t exec, Record& out);
  void tcgen05_mma(WarpState& w, const EmuInst& in, uint32_t lane, Record& out);
  // Rows [0, rows) of an A operand held in tensor memory at `taddr`, times `scale`, as out[row * k + kk].
  std::vector<float> tmem_operand(uint32_t taddr, const std::string& type, uint32_t rows, uint32_t k, double scale, const WarpState& w,
                                  uint32_t lane, const EmuInst& in, CtaEmulator* owner = nullptr);
  // A cell of the tensor memory of `owner` (null: this CTA; else the other CTA of a pair).
  uint32_t& tmem_at(uint32_t lane, uint32_t column, const WarpState& w, uint32_t thread, const EmuInst& in, CtaEmulator* owner = nullptr);
  // The two CTAs a .cta_group::2 instruction spans (even rank first), with checks.
  std::array<CtaEmulator*, 2> cta_pair(const WarpState& w, uint32_t lane, const EmuInst& in);
  // tcgen05_block_scale.cpp: tcgen05.cp (shared memory into tensor memory), and the scale factors
  // a block-scaled MMA reads: `blocks` per row for rows [0, rows), as out[row * blocks + b].
  void tcgen05_copy(WarpState& w, const EmuInst& in, uint32_t lane);
  // Multiplies each element of A (m x k) and B (n x k) by its block's scale factor.
  void apply_block_scales(const WarpState& w, const EmuInst& in, uint32_t lane, uint32_t idesc, uint32_t m, uint32_t n, uint32_t k,
                          std::vector<float>& a, std::vector<float>& b);
  std::vector<double> tmem_scale_factors(uint32_t taddr, uint32_t rows, uint32_t blocks, uint32_t first_byte, bool ue4m3, const WarpState& w,
                                         uint32_t lane, const EmuInst& in);
  std::vector<uint32_t> tmem_;
  uint16_t tmem_allocated_ = 0;  // one bit per 32 columns
  template <class F>
  static void for_lanes(uint32_t exec, F&& f) {  // each lane set in exec, lowest first
    for (uint32_t m = exec; m;) {
      const auto l = static_cast<uint32_t>(std::countr_zero(m));
      m &= m - 1;
      f(l);
    }
  }
  std::vector<std::vector<uint8_t>> local_;  // per thread, grown on demand (empty until the CTA first uses local memory)
};

}  // namespace warpsim::ptx
