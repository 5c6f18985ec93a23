#!/usr/bin/env python3
"""Writes the reference outputs of traces/kernels/*.launch.yaml, computed on the CPU from the
same input definitions (sequences), independently of warpsim. Run from the repository root."""
import os
import struct

OUT = os.path.join(os.path.dirname(__file__), "..", "traces", "kernels", "ref")
os.makedirs(OUT, exist_ok=True)

def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]

# vector_add: a[i] = 0.5 i, b[i] = 1000 - 0.25 i, c = a + b (each sum exact in float).
n = 65536
c = [f32(f32(0.5 * i) + f32(1000 - 0.25 * i)) for i in range(n)]
open(os.path.join(OUT, "vector_add_c.bin"), "wb").write(struct.pack(f"<{n}f", *c))

# reduce_sum: in[i] = float(0.001 i); the sum in double precision.
n = 262144
total = sum(f32(0.001 * i) for i in range(n))
open(os.path.join(OUT, "reduce_sum_out.bin"), "wb").write(struct.pack("<f", total))
