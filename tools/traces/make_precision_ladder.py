#!/usr/bin/env python3
"""Regenerates traces/tutorials/precision_*.trace.gz for docs/tutorials/precision.md.

Each trace is the same tensor-bound kernel in one input precision, with no memory traffic, so the
tensor pipe is the only limit. The warp-level forms: 592 CTAs (4 per SM on a B200, several waves
elsewhere) of 4 warps, each warp issuing 64 MMAs into eight independent accumulators:
  fp16  wmma.mma m16n16k16, f16 inputs   (Volta and later)      8192 FLOP per instruction
  bf16  wmma.mma m16n16k16, bf16 inputs  (Ampere and later)     8192
  fp8   mma.sync m16n8k32, e4m3 inputs   (Ada/Hopper and later) 8192
  fp16_sparse  mma.sp m16n8k32, f16, 2:4 sparse A (Ampere and later) 8192 dense-equivalent, 4096 performed
On Hopper warp-level MMAs run below the tensor peak (configs/h100.yaml,
tensor.warp_mma_fraction_of_peak); its peak is wgmma's, so two more traces use it: 592 CTAs of one
warpgroup (4 warps), each warp issuing 16 wgmma.mma_async m64n256 into two accumulators (a warp
computes a quarter of each), then committing the group and waiting for it:
  fp16_wgmma  wgmma m64n256k16, f16 inputs   (sm_90a: H100, H200)  524288 FLOP per instruction (a quarter per warp)
  fp8_wgmma   wgmma m64n256k32, e4m3 inputs  (sm_90a)              1048576
Blackwell's peak is tcgen05.mma's (B200's warp-level MMAs run below it too), and FP4 has no
warp-level MMA there (mma.sync takes FP4 only on sm_120; ptxas 13.0 refuses it for sm_100a), so
four traces use tcgen05.mma: 592 CTAs of one warp whose first thread issues 16 MMAs of m128n256
into tensor memory, commits them to an mbarrier and waits on it:
  fp16_tcgen05  kind::f16, f16 inputs, K = 16                    1048576 FLOP per instruction
  fp8_tcgen05   kind::f8f6f4 with e4m3 inputs, K = 32             2097152
  fp4           kind::mxf4nvf4.block_scale (NVFP4), K = 64         4194304 FLOP per instruction
  fp4_f8f6f4    kind::f8f6f4 with e2m1 inputs (unscaled), K = 32  2097152
Run from the repository root:  python3 tools/traces/make_precision_ladder.py
"""
import gzip
import os

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "traces", "tutorials")
CTAS, WARPS, MMAS = 592, 4, 64

FORMS = {
    "fp16": ("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", 8, 8, 8),
    "bf16": ("wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32", 8, 4, 4),
    "fp8": ("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", 4, 4, 2),
    # 2:4 structured sparsity: A holds half of its 16 x 32 (4 registers), a metadata register and
    # the sparsity selector follow C. The dense product it stands for is fp16's 8192 FLOPs; the
    # tensor cores perform half of them.
    "fp16_sparse": ("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 4, 4, 4),
}
SPARSE_TAIL = ", %r127, 0"  # metadata register, sparsity selector
# Hopper's warpgroup MMAs: D is 128 f32 registers per thread for N = 256; A and B come through
# shared-memory descriptors (two 64-bit registers).
WGMMA = {
    "fp16_wgmma": "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16",
    "fp8_wgmma": "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3",
}
WGMMA_MMAS = 16
# Whole-SM tcgen05 forms: warpsim's trace spelling appends the shape and types PTX keeps in the
# instruction descriptor (docs/trace-format.md).
TCGEN05 = {
    "fp16_tcgen05": "tcgen05.mma.cta_group::1.kind::f16.m128n256k16.f32.f16.f16",
    "fp8_tcgen05": "tcgen05.mma.cta_group::1.kind::f8f6f4.m128n256k32.f32.e4m3.e4m3",
    "fp4": "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X.m128n256k64.f32.e2m1.e2m1",
    "fp4_f8f6f4": "tcgen05.mma.cta_group::1.kind::f8f6f4.m128n256k32.f32.e2m1.e2m1",
}
TCGEN05_MMAS = 16


def regs(prefix, first, n):
    return "{" + ",".join(f"%{prefix}{first + i}" for i in range(n)) + "}"


def header(name, mnemonic, warps, count, shared=0):
    return [".version 1",
            f"# precision_{name}: {CTAS} CTAs x {warps} warps x {count} x {mnemonic}",
            "# (tools/traces/make_precision_ladder.py; docs/tutorials/precision.md)",
            "", f".kernel mma_{name}", f".grid {CTAS} 1 1", f".block {warps * 32} 1 1", f".shared {shared}", ".regs 128"]


def warp_level(name):
    mnemonic, acc_regs, a_regs, b_regs = FORMS[name]
    a = regs("r", 100, a_regs)
    b = regs("r", 120, b_regs)
    lines = header(name, mnemonic, WARPS, MMAS)
    for c in range(CTAS):
        lines.append(f".cta {c} 0 0")
        for w in range(WARPS):
            lines.append(f".warp {w}")
            for i in range(MMAS):
                acc = regs("f", (i % 8) * acc_regs, acc_regs)
                lines.append(f"{mnemonic} {acc}, {a}, {b}, {acc}" + (SPARSE_TAIL if name.endswith("_sparse") else ""))
            lines.append("exit")
    return lines


def warpgroup(name):
    mnemonic = WGMMA[name]
    lines = header(name, mnemonic, 4, WGMMA_MMAS)
    for c in range(CTAS):
        lines.append(f".cta {c} 0 0")
        for w in range(4):
            lines += [f".warp {w}", "wgmma.fence.sync.aligned"]
            for i in range(WGMMA_MMAS):
                acc = "{%f" + str(128 * (i % 2)) + "}"  # two independent accumulators, named by their first register
                lines.append(f"{mnemonic} {acc}, %rd1, %rd2")
            lines += ["wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned 0", "exit"]
    return lines


def whole_sm(name):
    # Thread 0 issues the MMAs (D in tensor memory, A and B through shared-memory descriptors),
    # then commits them to the mbarrier at shared 0; the warp waits for its phase 0.
    mnemonic = TCGEN05[name]
    lines = header(name, mnemonic, 1, TCGEN05_MMAS, shared=16)
    for c in range(CTAS):
        lines += [f".cta {c} 0 0", ".warp 0",
                  "00000001 mbarrier.init.shared::cta.b64 %r1; mbar=0x0 count=1"]
        lines += [f"00000001 {mnemonic} {{}}, %r2, %rd1, %rd2, %r3, %p1"] * TCGEN05_MMAS
        lines += ["00000001 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 %r1; mbar=0x0 arrive=1",
                  "mbarrier.try_wait.parity.shared::cta.b64 %p2, %r1, %r4; mbar=0x0 phase=0",
                  "exit"]
    return lines


def write(name):
    lines = whole_sm(name) if name in TCGEN05 else warpgroup(name) if name in WGMMA else warp_level(name)
    path = os.path.join(OUT, f"precision_{name}.trace.gz")
    with gzip.GzipFile(path, "wb", mtime=0) as f:
        f.write(("\n".join(lines) + "\n").encode())
    print(f"{path}: {len(lines)} lines")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for name in list(FORMS) + list(WGMMA) + list(TCGEN05):
        write(name)
