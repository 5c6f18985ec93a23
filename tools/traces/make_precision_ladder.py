#!/usr/bin/env python3
"""Regenerates traces/tutorials/precision_{fp16,bf16,fp8,fp4}.trace.gz for docs/tutorials/precision.md.

Each trace is the same tensor-bound kernel in one input precision: 592 CTAs (4 per SM on a B200,
several waves elsewhere) of 4 warps, each warp issuing 64 tensor-core MMAs into eight independent
accumulators, with no memory traffic, so the tensor pipe is the only limit. The instruction is
the one CUDA code uses for that precision:
  fp16  wmma.mma m16n16k16, f16 inputs   (Volta and later)      8192 FLOP per instruction
  bf16  wmma.mma m16n16k16, bf16 inputs  (Ampere and later)     8192
  fp8   mma.sync m16n8k32, e4m3 inputs   (Ada/Hopper and later) 8192
  fp4   mma.sync m16n8k64, e2m1 inputs   (Blackwell)           16384
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
    "fp4": ("mma.sync.aligned.m16n8k64.row.col.kind::f8f6f4.f32.e2m1.e2m1.f32", 4, 4, 2),
}


def regs(prefix, first, n):
    return "{" + ",".join(f"%{prefix}{first + i}" for i in range(n)) + "}"


def write(name):
    mnemonic, acc_regs, a_regs, b_regs = FORMS[name]
    a = regs("r", 100, a_regs)
    b = regs("r", 120, b_regs)
    lines = [".version 1",
             f"# precision_{name}: {CTAS} CTAs x {WARPS} warps x {MMAS} x {mnemonic}",
             "# (tools/traces/make_precision_ladder.py; docs/tutorials/precision.md)",
             "", f".kernel mma_{name}", f".grid {CTAS} 1 1", f".block {WARPS * 32} 1 1", ".shared 0", ".regs 128"]
    for c in range(CTAS):
        lines.append(f".cta {c} 0 0")
        for w in range(WARPS):
            lines.append(f".warp {w}")
            for i in range(MMAS):
                acc = regs("f", (i % 8) * acc_regs, acc_regs)
                lines.append(f"{mnemonic} {acc}, {a}, {b}, {acc}")
            lines.append("exit")
    path = os.path.join(OUT, f"precision_{name}.trace.gz")
    with gzip.GzipFile(path, "wb", mtime=0) as f:
        f.write(("\n".join(lines) + "\n").encode())
    print(f"{path}: {len(lines)} lines")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for name in FORMS:
        write(name)
