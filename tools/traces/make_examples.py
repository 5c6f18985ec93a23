#!/usr/bin/env python3
"""Regenerates traces/examples/ (warpsim trace format v1, docs/trace-format.md).

The example traces are committed; this script documents how they were made and lets anyone
change them. Run from the repository root:  python3 tools/traces/make_examples.py
"""
import gzip
import os

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "examples")
FULL = 0xFFFFFFFF


class Trace:
    def __init__(self, header):
        self.lines = [".version 1"]
        for line in header.strip("\n").splitlines():
            self.lines.append("# " + line if line else "#")

    def kernel(self, name, grid, block, shared=0, regs=32):
        gx, gy, gz = (list(grid) + [1, 1])[:3]
        bx, by, bz = (list(block) + [1, 1])[:3]
        self.lines += ["", f".kernel {name}", f".grid {gx} {gy} {gz}", f".block {bx} {by} {bz}",
                       f".shared {shared}", f".regs {regs}"]

    def cta(self, x, y=0, z=0):
        self.lines.append(f".cta {x} {y} {z}")

    def warp(self, w):
        self.lines.append(f".warp {w}")

    def inst(self, text, mask=None, addr=None):
        prefix = "" if mask is None or mask == FULL else f"{mask:08x} "
        suffix = "" if addr is None else f"; addr={addr}"
        self.lines.append(prefix + text + suffix)

    def write(self, name, compress=False):
        text = "\n".join(self.lines) + "\n"
        path = os.path.join(OUT, name)
        if compress:
            with gzip.GzipFile(path, "wb", mtime=0) as f:
                f.write(text.encode())
        else:
            with open(path, "w") as f:
                f.write(text)
        print(f"{path}: {len(self.lines)} lines")


def vector_add():
    t = Trace("""vector_add: c[i] = a[i] + b[i] over 2^19 floats, as float4 (16 bytes per thread).
What to look for: almost no arithmetic per byte (1 add per 12 bytes moved), so the kernel is
memory-bound: the summary's "bound" line names DRAM bandwidth; DRAM reads are the 4 MiB of a
and b, while the 2 MiB written to c stay in L2 (write-back) when the kernel ends. Compare
--arch v100, a100 and h100: time follows HBM bandwidth, not FLOPs. On b200 the same 6 MiB is
too little to fill 7.7 TB/s and the kernel turns latency-bound: bandwidth needs bytes in flight.
Each warp: address arithmetic, two coalesced 16-byte loads (4 sectors per 128-byte line, 4 lines
per request), four FP32 adds, one store.""")
    ctas, threads = 512, 256
    t.kernel("vector_add", [ctas], [threads], 0, 16)
    a, b, c = 0x10000000, 0x20000000, 0x30000000
    for cx in range(ctas):
        t.cta(cx)
        for w in range(threads // 32):
            t.warp(w)
            first = (cx * threads + w * 32) * 16
            t.inst("mad.lo.s32 %r1, %ctaid.x, %ntid.x, %tid.x")
            t.inst("mul.wide.s32 %rd1, %r1, 16")
            t.inst("add.s64 %rd2, %rd10, %rd1")
            t.inst("add.s64 %rd3, %rd11, %rd1")
            t.inst("ld.global.v4.f32 {%f1,%f2,%f3,%f4}, [%rd2]", addr=f"0x{a + first:x}+16")
            t.inst("ld.global.v4.f32 {%f5,%f6,%f7,%f8}, [%rd3]", addr=f"0x{b + first:x}+16")
            for i in range(4):
                t.inst(f"add.f32 %f{9 + i}, %f{1 + i}, %f{5 + i}")
            t.inst("add.s64 %rd4, %rd12, %rd1")
            t.inst("st.global.v4.f32 [%rd4], {%f9,%f10,%f11,%f12}", addr=f"0x{c + first:x}+16")
            t.inst("exit")
    t.write("vector_add.trace.gz", compress=True)


def fma_ilp():
    t = Trace("""fma_ilp: instruction-level parallelism, latency-bound versus throughput-bound.
Two kernels of 256 FP32 FMAs in one warp:
  fma_ilp1        one dependent chain: every FMA waits for the previous result, so the warp
                  issues once per FMA latency (4 cycles): ~1024 cycles, stall "wait".
  fma_ilp4        four independent chains interleaved: the scheduler can issue while earlier
                  FMAs are in flight, so time falls towards the pipe's issue interval (2 cycles
                  per warp FMA on V100/A100 with 16 lanes per scheduler, 1 on H100).
fma_throughput.trace.gz has the third case: many warps on every SM.""")
    n = 256
    t.kernel("fma_ilp1", [1], [32], 0, 8)
    t.cta(0)
    t.warp(0)
    for _ in range(n):
        t.inst("fma.rn.f32 %f1, %f1, %f2, %f3")
    t.inst("st.global.f32 [%rd1], %f1", addr="0x1000+4")
    t.inst("exit")
    t.kernel("fma_ilp4", [1], [32], 0, 8)
    t.cta(0)
    t.warp(0)
    for i in range(n):
        r = 4 + i % 4
        t.inst(f"fma.rn.f32 %f{r}, %f{r}, %f2, %f3")
    t.inst("add.f32 %f4, %f4, %f5")
    t.inst("add.f32 %f6, %f6, %f7")
    t.inst("add.f32 %f4, %f4, %f6")
    t.inst("st.global.f32 [%rd1], %f4", addr="0x1000+4")
    t.inst("exit")
    t.write("fma_ilp.trace")
    t = Trace("""fma_throughput: 16 warps on each of 108 SMs (A100), each running one dependent chain of
64 FP32 FMAs. One warp alone would be latency-bound (see fma_ilp.trace), but 4 warps per
scheduler cover the 4-cycle latency, so the FMA pipe itself is the limit: "compute" bound with
math_pipe_throttle stalls on V100/A100 (16 FP32 lanes per scheduler: a warp FMA occupies the
pipe 2 cycles). H100 has 32 lanes per scheduler and runs the same work in fewer cycles.""")
    ctas = 108 * 4
    t.kernel("fma_throughput", [ctas], [128], 0, 8)
    for cx in range(ctas):
        t.cta(cx)
        for w in range(4):
            t.warp(w)
            for _ in range(64):
                t.inst("fma.rn.f32 %f1, %f1, %f2, %f3")
            t.inst("exit")
    t.write("fma_throughput.trace.gz", compress=True)


def divergence():
    t = Trace("""divergence: an if/else inside one warp, and a branch only one lane takes.
  uniform        all 32 lanes take the same path: 16 FMAs, SIMT efficiency ~100%.
  if_else_half   lanes 0-15 take the if-path, 16-31 the else-path (masks 0000ffff, ffff0000).
                 The warp runs both paths one after the other with half its lanes idle: the
                 time is the sum of both paths and SIMT efficiency falls towards 50%.
  one_lane       only lane 0 does the work (mask 00000001): the same issue time as a full
                 warp, 1/32 of the useful work; SIMT efficiency towards 3%.
Look at "SIMT efficiency" and cycles in each kernel's block of the summary.""")
    def prologue():
        t.inst("mov.u32 %r1, %tid.x")
        t.inst("setp.lt.u32 %p1, %r1, 16")
        t.inst("bra $L_else")  # trace masks already say who runs what
    t.kernel("uniform", [1], [32], 0, 8)
    t.cta(0)
    t.warp(0)
    prologue()
    for _ in range(16):
        t.inst("fma.rn.f32 %f1, %f1, %f2, %f3")
    t.inst("st.global.f32 [%rd1], %f1", addr="0x1000+4")
    t.inst("exit")
    t.kernel("if_else_half", [1], [32], 0, 8)
    t.cta(0)
    t.warp(0)
    prologue()
    for _ in range(16):
        t.inst("fma.rn.f32 %f1, %f1, %f2, %f3", mask=0x0000FFFF)
    t.inst("bra $L_join", mask=0x0000FFFF)
    for _ in range(16):
        t.inst("fma.rn.f32 %f1, %f1, %f4, %f5", mask=0xFFFF0000)
    t.inst("st.global.f32 [%rd1], %f1", addr="0x1000+4")
    t.inst("exit")
    t.kernel("one_lane", [1], [32], 0, 8)
    t.cta(0)
    t.warp(0)
    prologue()
    for _ in range(16):
        t.inst("fma.rn.f32 %f1, %f1, %f2, %f3", mask=0x00000001)
    t.inst("st.global.f32 [%rd1], %f1", mask=0x00000001, addr="0x1000")
    t.inst("exit")
    t.write("divergence.trace")


def loop_trip_counts():
    t = Trace("""loop_trip_counts: a loop whose trip count differs per lane: lane i runs i+1 times.
for (int k = 0; k <= threadIdx.x; ++k) acc = fma(acc, x, y);
The warp keeps issuing until its slowest lane (lane 31, 32 trips) is done; in trip k only lanes
k..31 are active, so the active mask shrinks by one lane per trip. Useful lane-work is
1+2+...+32 = 528 of 32*32 = 1024 lane-slots: SIMT efficiency of the loop body ~52%.""")
    t.kernel("per_lane_trip_count", [1], [32], 0, 8)
    t.cta(0)
    t.warp(0)
    t.inst("mov.u32 %r1, %tid.x")
    t.inst("mov.u32 %r2, 0")
    for k in range(32):
        mask = FULL & ~((1 << k) - 1)
        t.inst("fma.rn.f32 %f1, %f1, %f2, %f3", mask=mask)
        t.inst("add.s32 %r2, %r2, 1", mask=mask)
        t.inst("setp.le.u32 %p1, %r2, %r1", mask=mask)
        t.inst("bra $L_loop", mask=mask)
    t.inst("st.global.f32 [%rd1], %f1", addr="0x1000+4")
    t.inst("exit")
    t.write("loop_trip_counts.trace")


def shared_reduction():
    t = Trace("""shared_reduction: a 256-element block sum in shared memory with bar.sync, two ways.
  reduce_interleaved  step s: thread t (t % 2s == 0) adds sdata[t + s] into sdata[t]. Active
                      threads are spread out, so their addresses are 2s*4 bytes apart: lanes
                      hit the same bank and the access replays (2-, 4-, 8-, 16-way conflicts,
                      see l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum) and warps
                      diverge (low SIMT efficiency).
  reduce_sequential   step s: thread t < s adds sdata[t + s]: consecutive lanes, consecutive
                      words, no bank conflicts, and whole warps drop out instead of diverging.
Both end with bar.sync after every step; "barrier" stalls show warps waiting for each other.""")
    threads, base = 256, 0x0

    def load_global(w):
        t.inst("ld.global.f32 %f1, [%rd1]", addr=f"0x{0x40000000 + w * 128:x}+4")
        t.inst("st.shared.f32 [%r2], %f1", addr=f"0x{base + w * 128:x}+4")
        t.inst("bar.sync 0")

    for name in ("reduce_interleaved", "reduce_sequential"):
        t.kernel(name, [4], [threads], threads * 4, 16)
        for cx in range(4):
            t.cta(cx)
            for w in range(threads // 32):
                t.warp(w)
                load_global(w)
                s = 1 if name == "reduce_interleaved" else threads // 2
                while (s < threads) if name == "reduce_interleaved" else (s > 0):
                    lanes = []
                    for lane in range(32):
                        tid = w * 32 + lane
                        active = (tid % (2 * s) == 0) if name == "reduce_interleaved" else (tid < s)
                        if active:
                            lanes.append(lane)
                    mask = 0
                    for lane in lanes:
                        mask |= 1 << lane
                    if mask:
                        tids = [w * 32 + lane for lane in lanes]
                        a = ",".join(f"0x{base + (tid + s) * 4:x}" for tid in tids)
                        b = ",".join(f"0x{base + tid * 4:x}" for tid in tids)
                        t.inst("ld.shared.f32 %f2, [%r3]", mask=mask, addr=a)
                        t.inst("ld.shared.f32 %f3, [%r2]", mask=mask, addr=b)
                        t.inst("add.f32 %f3, %f3, %f2", mask=mask)
                        t.inst("st.shared.f32 [%r2], %f3", mask=mask, addr=b)
                    t.inst("bar.sync 0")
                    s = s * 2 if name == "reduce_interleaved" else s // 2
                if w == 0:
                    t.inst("ld.shared.f32 %f4, [%r4]", mask=0x1, addr=f"0x{base:x}")
                    t.inst("st.global.f32 [%rd2], %f4", mask=0x1, addr=f"0x{0x50000000 + cx * 4:x}")
                t.inst("exit")
    t.write("shared_reduction.trace")


def tensor_mma():
    t = Trace("""tensor_mma: the inner loop of a tensor-core GEMM tile, as the CUDA WMMA API compiles it: per
k-step, wmma.load brings A and B fragments from shared memory, then wmma.mma m16n16k16 (FP16
inputs, FP32 accumulate) updates four accumulator tiles. 4 warps per CTA, 108 CTAs.
What to look for: the tensor pipe in the metrics (sm__pipe_tensor_cycles_active), tensor FLOPs
(2*16*16*16 = 8192 per wmma.mma), and how --arch v100 / a100 / h100 / b200 change the time: the
per-SM FP16 tensor rate doubles each generation (1024, 2048, 4096, 8192 FLOP/clock).
Every architecture here runs FP16 m16n16k16. An mma.sync.m16n8k16 (Ampere and later) or a
.bf16 operand is rejected on --arch v100 with a message saying why.""")
    ctas, warps, ksteps = 108, 4, 32
    t.kernel("mma_tile_loop", [ctas], [warps * 32], 16384, 64)
    for cx in range(ctas):
        t.cta(cx)
        for w in range(warps):
            t.warp(w)
            for k in range(ksteps):
                off = (k % 4) * 4096 + w * 512
                t.inst("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [%r20]",
                       addr=f"0x{off:x}+16")
                t.inst("wmma.load.b.sync.aligned.col.m16n16k16.shared.f16 {%r9,%r10,%r11,%r12,%r13,%r14,%r15,%r16}, [%r21]",
                       addr=f"0x{off + 2048:x}+16")
                for tile in range(4):
                    acc = [f"%f{tile * 8 + i}" for i in range(8)]
                    t.inst(f"wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {{{','.join(acc)}}}, "
                           f"{{%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}}, {{%r9,%r10,%r11,%r12,%r13,%r14,%r15,%r16}}, {{{','.join(acc)}}}")
            for tile in range(4):
                t.inst(f"st.global.v4.f32 [%rd1], {{%f{tile*8},%f{tile*8+1},%f{tile*8+2},%f{tile*8+3}}}",
                       addr=f"0x{0x60000000 + ((cx * warps + w) * 4 + tile) * 512:x}+16")
            t.inst("exit")
    t.write("tensor_mma.trace.gz", compress=True)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    vector_add()
    fma_ilp()
    divergence()
    loop_trip_counts()
    shared_reduction()
    tensor_mma()
