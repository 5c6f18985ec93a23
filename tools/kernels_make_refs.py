#!/usr/bin/env python3
"""Writes the reference outputs named by the `expect:` sections of traces/kernels/*.launch.yaml.

Each reference is computed here on the CPU, independently of warpsim: inputs are rebuilt from
the launch files' init rules (sequences, and std::mt19937_64 streams reimplemented in tools/reference_inputs.py), and
outputs are computed from the CUDA sources' mathematics, in double precision unless the kernel's
float rounding is exact and the comparison can be too. Run from anywhere; needs only Python 3.
"""
import itertools
import math
import os
import struct
import sys
from fractions import Fraction

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "traces", "kernels", "ref")
os.makedirs(OUT, exist_ok=True)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_inputs import MT19937_64, bf16, f16, f32, random_init  # noqa: E402


def write(name, fmt, values):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(struct.pack(f"<{len(values)}{fmt}", *values))


def exact_f32(x):
    assert f32(x) == x, f"{x} is not exact in float; the reference needs a tolerance"
    return x


# vector_add: a[i] = 0.5 i, b[i] = 1000 - 0.25 i, c = a + b (each sum exact in float).
write("vector_add_c.bin", "f", [exact_f32(f32(0.5 * i) + f32(1000 - 0.25 * i)) for i in range(65536)])

# reduce_sum: in[i] = float(0.001 i); the sum in double precision.
write("reduce_sum_out.bin", "f", [sum(f32(0.001 * i) for i in range(262144))])

# saxpy: y = 2.5 x + y, x = i / 4, y = 1 + i / 2: every product and sum is exact in float.
write("saxpy_y.bin", "f", [exact_f32(2.5 * (0.25 * i) + (1 + 0.5 * i)) for i in range(8192)])

# transpose: in is 128 rows x 256 columns holding 0, 1, 2, ...; out is its 256 x 128 transpose.
write("transpose_out.bin", "f", [float(y * 256 + x) for x in range(256) for y in range(128)])

# histogram: data[i] = 7 i mod 256 (u8 sequence), 256 bins.
bins = [0] * 256
for i in range(65536):
    bins[(7 * i) % 256] += 1
write("histogram_bins.bin", "I", bins)


# divergence.cu: odd lanes v = fma(v, 3, 1), even lanes v = sqrt(v) + 2; then `lane` additions of
# 0.25 and (lane & 3) rounds of fma(x, 0.5, 1) in a device function. Every step is one float
# rounding of an exact double result, so the reference is bit-exact.
def divergence(t):
    lane = t & 31
    v = float(t)
    v = f32(v * 3 + 1) if lane & 1 else f32(f32(math.sqrt(v)) + 2)
    for _ in range(lane):
        v = f32(v + 0.25)
    for _ in range(lane & 3):
        v = f32(v * 0.5 + 1)
    return v


write("divergence_out.bin", "f", [divergence(t) for _ in range(4) for t in range(64)])

# half_axpy: y = fma.rn.f16x2(2, x, y), x = -8 + i/4, y = 3 - i/2 stored as FP16; 2 x + y is
# exact in double, so rounding it once to FP16 is what the hardware does.
write("half_axpy_y.bin", "e", [f16(2 * f16(-8 + 0.25 * i) + f16(3 - 0.5 * i)) for i in range(4096)])

# bf16_axpy: y = bf16(1.5 x + y) computed in float, x = -4 + i/16, y = 2 + i/8 stored as BF16.
write("bf16_axpy_y.bin", "H",
      [struct.unpack("<I", struct.pack("<f", bf16(1.5 * bf16(-4 + 0.0625 * i) + bf16(2 + 0.125 * i))))[0] >> 16
       for i in range(4096)])

# ldmatrix_cp_async: in[i] = i; matrix m, row r, column c holds in[64 m + 8 r + c]. Lane l's
# register m holds (row l/4, columns 2(l%4), +1); transposed, (column l/4, rows 2(l%4), +1).
out, out_t = [], []
for lane in range(32):
    for m in range(4):
        row, col = lane // 4, 2 * (lane % 4)
        out.append((64 * m + 8 * row + col) | (64 * m + 8 * row + col + 1) << 16)
        out_t.append((64 * m + 8 * col + row) | (64 * m + 8 * (col + 1) + row) << 16)
write("ldmatrix_cp_async_out.bin", "I", out)
write("ldmatrix_cp_async_out_t.bin", "I", out_t)


def matmul(a, b, m, n, k, a_at, b_at):
    return [sum(a[a_at(i, kk)] * b[b_at(kk, j)] for kk in range(k)) for i in range(m) for j in range(n)]


# sgemm (naive and tiled): C = A B, 64 x 64 row-major floats, in double.
a = random_init(31, -1, 1, 4096, f32)
b = random_init(32, -1, 1, 4096, f32)
write("sgemm_c.bin", "f", matmul(a, b, 64, 64, 64, lambda i, k: i * 64 + k, lambda k, j: k * 64 + j))

# wmma_gemm: A row-major, B column-major (b[n * 64 + k]), FP16 inputs, FP32 result.
a = random_init(5, -2, 2, 4096, f16)
b = random_init(6, -2, 2, 4096, f16)
write("wmma_gemm_c.bin", "f", matmul(a, b, 64, 64, 64, lambda i, k: i * 64 + k, lambda k, j: j * 64 + k))

# hgemm_mma: the same shape with B given transposed (bt[n][k]).
a = random_init(51, -2, 2, 4096, f16)
bt = random_init(52, -2, 2, 4096, f16)
write("hgemm_mma_c.bin", "f", matmul(a, bt, 64, 64, 64, lambda i, k: i * 64 + k, lambda k, j: j * 64 + k))


# hgemm_sparse: the same A pruned to 2:4 (each chunk of four keeps its two largest magnitudes, ties
# to the lower index), times the same B.
def prune_24(values):
    out = []
    for c in range(0, len(values), 4):
        chunk = values[c:c + 4]
        rank = [sum(abs(chunk[j]) > abs(chunk[i]) or (abs(chunk[j]) == abs(chunk[i]) and j < i) for j in range(4)) for i in range(4)]
        out += [v if r < 2 else 0.0 for v, r in zip(chunk, rank)]
    return out


write("hgemm_sparse_c.bin", "f", matmul(prune_24(a), bt, 64, 64, 64, lambda i, k: i * 64 + k, lambda k, j: j * 64 + k))

# mma_sync: lane l holds A elements a[8l ..], B elements b[4l ..] and writes c[4l ..]; the
# matrices they stand for follow the PTX ISA's mma.m16n8k16 fragment figures (g = l/4, t = l%4).
a = random_init(21, -2, 2, 256, f16)
b = random_init(22, -2, 2, 128, f16)
A = [[0.0] * 16 for _ in range(16)]
B = [[0.0] * 8 for _ in range(16)]
for lane in range(32):
    g, t = lane // 4, lane % 4
    for i in range(8):
        A[g + 8 * ((i // 2) % 2)][2 * t + i % 2 + 8 * (i // 4)] = a[lane * 8 + i]
    for i in range(4):
        B[2 * t + i % 2 + 8 * (i // 2)][g] = b[lane * 4 + i]
c = []
for lane in range(32):
    g, t = lane // 4, lane % 4
    for i in range(4):
        row, col = g + 8 * (i // 2), 2 * t + i % 2
        c.append(sum(A[row][k] * B[k][col] for k in range(16)))
write("mma_sync_c.bin", "f", c)
write("mma_sync_total.bin", "d", [sum(c)])
# mma_f16: the same MMA with f16 accumulators starting at C = 1.0: C/D element i of a lane is
# half i % 2 of register i // 2, so the lane's four results land in the same order, in f16.
write("mma_f16_c.bin", "e", [x + 1 for x in c])

# softmax: 64 rows of 256, each normalised, in double.
x = random_init(11, -4, 4, 16384, f32)
out = []
for row in range(64):
    r = x[row * 256:(row + 1) * 256]
    m = max(r)
    e = [math.exp(v - m) for v in r]
    s = sum(e)
    out += [v / s for v in e]
write("softmax_out.bin", "f", out)

# attention (naive and tiled): O = softmax(Q K^T / sqrt(64)) V for 256 queries, dimension 64.
q = random_init(41, -1, 1, 16384, f32)
k = random_init(42, -1, 1, 16384, f32)
v = random_init(43, -1, 1, 16384, f32)
o = []
for i in range(256):
    qi = q[i * 64:(i + 1) * 64]
    score = [sum(qd * kd for qd, kd in zip(qi, k[j * 64:(j + 1) * 64])) / 8 for j in range(256)]
    m = max(score)
    p = [math.exp(s - m) for s in score]
    total = sum(p)
    p = [x / total for x in p]
    o += [sum(p[j] * v[j * 64 + d] for j in range(256)) for d in range(64)]
write("attention_o.bin", "f", o)

# attention_mma: the same attention with Q, K and V rounded to FP16 (its inputs), in double
# precision. The kernel also rounds P to FP16 before P V (relative error up to 2^-11 per weight,
# averaging out over 256 keys) and accumulates in float: its tolerance says how far that goes.
# attention_mma_heads: 8 heads one after the other in the same buffers (head 0 is attention_mma's).
def attention_fp16(heads):
    q = random_init(41, -1, 1, 16384 * heads, f16)
    k = random_init(42, -1, 1, 16384 * heads, f16)
    v = random_init(43, -1, 1, 16384 * heads, f16)
    o = []
    for h in range(heads):
        base = h * 16384
        for i in range(256):
            qi = q[base + i * 64:base + (i + 1) * 64]
            score = [sum(qd * kd for qd, kd in zip(qi, k[base + j * 64:base + (j + 1) * 64])) / 8 for j in range(256)]
            m = max(score)
            p = [math.exp(s - m) for s in score]
            total = sum(p)
            o += [sum(p[j] * v[base + j * 64 + d] for j in range(256)) / total for d in range(64)]
    return o


o = attention_fp16(8)
write("attention_mma_o.bin", "f", o[:16384])
write("attention_mma_heads_o.bin", "f", o)

# constant_filter: 9-tap binomial filter C(8, k) / 256 with clamped edges, in double.
x = random_init(61, -1, 1, 16384, f32)
weights = [math.comb(8, t) / 256 for t in range(9)]
write("constant_filter_out.bin", "f",
      [sum(weights[t] * x[min(max(i + t - 4, 0), 16383)] for t in range(9)) for i in range(16384)])

# mma_tf32: lane l holds A elements a[4l ..] and B elements b[2l, 2l+1]; per the PTX ISA's
# m16n8k8 .tf32 figures (g = l/4, t = l%4) A element i sits at row g + 8 (i % 2), column
# t + 4 (i // 2), and B element i at row t + 4 i, column g. C is laid out as for mma_sync.
a = [-2 + 0.0625 * i for i in range(128)]
b = [1.5 - 0.125 * i for i in range(64)]
A = [[0.0] * 8 for _ in range(16)]
B = [[0.0] * 8 for _ in range(8)]
for lane in range(32):
    g, t = lane // 4, lane % 4
    for i in range(4):
        A[g + 8 * (i % 2)][t + 4 * (i // 2)] = a[lane * 4 + i]
    for i in range(2):
        B[t + 4 * i][g] = b[lane * 2 + i]
c = []
for lane in range(32):
    g, t = lane // 4, lane % 4
    for i in range(4):
        row, col = g + 8 * (i // 2), 2 * t + i % 2
        c.append(exact_f32(sum(A[row][k] * B[k][col] for k in range(8))))
write("mma_tf32_c.bin", "f", c)


# mma_s8 / mma_e4m3: m16n8k32 with 8-bit inputs. Per the PTX ISA's figures (g = l/4, t = l%4):
# A element i of lane l (byte i of a[16l ..]) sits at row g + 8 when 4 <= i % 8, else g, and
# column 4t + i % 4 + 16 (i // 8); B element i (byte i of b[8l ..]) at row 4t + i % 4 + 16 (i // 4),
# column g. C is laid out as for mma_sync. Buffer bytes are the low bytes of the sequences.
def mma_m16n8k32(a_bytes, b_bytes, value):
    A = [[0.0] * 32 for _ in range(16)]
    B = [[0.0] * 8 for _ in range(32)]
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for i in range(16):
            A[g + (8 if i % 8 >= 4 else 0)][4 * t + i % 4 + 16 * (i // 8)] = value(a_bytes[lane * 16 + i])
        for i in range(8):
            B[4 * t + i % 4 + 16 * (i // 4)][g] = value(b_bytes[lane * 8 + i])
    out = []
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for i in range(4):
            row, col = g + 8 * (i // 2), 2 * t + i % 2
            out.append(sum(A[row][k] * B[k][col] for k in range(32)))
    return out


def s8(byte):
    return byte - 256 if byte >= 128 else byte


def e4m3(byte):  # sign, 4 exponent bits (bias 7), 3 mantissa bits; the kernel never passes NaN
    sign = -1.0 if byte & 0x80 else 1.0
    e, m = (byte >> 3) & 0xF, byte & 7
    return sign * (m / 8 * 2.0**-6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))


c = mma_m16n8k32([(-128 + 7 * i) & 0xFF for i in range(512)], [(5 - 3 * i) & 0xFF for i in range(256)], s8)
write("mma_s8_c.bin", "i", [int(x) for x in c])
c = mma_m16n8k32([(5 * i) & 0xFF & 0xB7 for i in range(512)], [(3 + 11 * i) & 0xFF & 0xB7 for i in range(256)], e4m3)
write("mma_e4m3_c.bin", "f", c)

# mma_shapes.cu: every kernel builds its fragments from row-major matrices, so these are plain
# matrix products; nothing here depends on the fragment layouts.
def round_half_away(x):  # warpsim's integer random init (std::round)
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def product_plus_c(A, B, C, m, n, k):  # D = C + A B, row-major lists, summed exactly
    return [C[i * n + j] + sum(Fraction(A[i * k + q]) * Fraction(B[q * n + j]) for q in range(k)) for i in range(m) for j in range(n)]


a = random_init(41, -1, 1, 4096, lambda v: v)
b = random_init(42, -1, 1, 4096, lambda v: v)
write("dgemm_mma_c.bin", "d", [float(x) for x in product_plus_c(a, b, [0] * 4096, 64, 64, 64)])
a = random_init(43, -1, 1, 448, lambda v: v)
b = random_init(44, -1, 1, 224, lambda v: v)
c = [Fraction(v) for v in random_init(45, -1, 1, 128, lambda v: v)]
write("dmma_m16_d.bin", "d", [float(x) for x in product_plus_c(a, b, c, 16, 8, 28)])
write("mma_tf32_k4_d.bin", "f", [exact_f32(float(x)) for x in product_plus_c([-4 + 0.125 * i for i in range(64)], [2 - 0.25 * i for i in range(32)],
                                                                     [100 - 1.5 * i for i in range(128)], 16, 8, 4)])
a = random_init(46, -128, 127, 256, round_half_away)
b = random_init(47, 0, 255, 128, round_half_away)
sb = random_init(48, -128, 127, 128, round_half_away)
c = [2147473647 - 200 * i for i in range(128)]
d = [int(x) for x in product_plus_c(a, b, c, 16, 8, 16)]
e = [int(x) for x in product_plus_c(a[:128], sb, c[:64], 8, 8, 16)]
print("mma_s8_k16: clamped", sum(x > 2**31 - 1 for x in d), "of 128, wrapped", sum(x > 2**31 - 1 for x in e), "of 64")
write("mma_s8_k16_d.bin", "i", [min(x, 2**31 - 1) for x in d])
write("mma_s8_k16_e.bin", "i", [x - 2**32 if x > 2**31 - 1 else x for x in e])
a = [e4m3(round_half_away(v) & 0xB7) for v in random_init(49, 0, 255, 256, lambda v: v)]
b = [e4m3(round_half_away(v) & 0xB7) for v in random_init(50, 0, 255, 128, lambda v: v)]
c = random_init(51, -4, 4, 128, f16)
write("mma_e4m3_f16_d.bin", "e", [f16(float(x)) for x in product_plus_c(a, b, c, 16, 8, 16)])

# mma_volta: four independent 8 x 8 x 4 products, each matrix row-major after the previous.
a = random_init(52, -2, 2, 128, f16)
b = random_init(53, -2, 2, 128, f16)
c = random_init(54, -4, 4, 256, f32)
ch = random_init(55, -4, 4, 256, f16)
d, dh = [], []
for m in range(4):
    d += [f32(float(x)) for x in product_plus_c(a[32 * m:32 * m + 32], b[32 * m:32 * m + 32], c[64 * m:64 * m + 64], 8, 8, 4)]
    dh += [f16(float(x)) for x in product_plus_c(a[32 * m:32 * m + 32], b[32 * m:32 * m + 32], ch[64 * m:64 * m + 64], 8, 8, 4)]
write("mma_volta_d.bin", "f", d)
write("mma_volta_dh.bin", "e", dh)

# mma_sparse.cu: A with every element its chunk's pattern drops set to zero, times B: plain
# matrix products again (the pattern says which elements stay, not where the fragments or the
# metadata put them).
def sparse_masked(A, P, k, chunk):
    first, second = [0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]
    out = []
    for row in range(16):
        for col in range(k):
            p = P[row * (k // chunk) + col // chunk]
            if chunk == 2:
                keep = {p & 1}
            elif chunk == 8:
                keep = {2 * first[p % 6], 2 * first[p % 6] + 1, 2 * second[p % 6], 2 * second[p % 6] + 1}
            else:
                keep = {first[p % 6], second[p % 6]}
            out.append(A[row * k + col] if col % chunk in keep else 0)
    return out


def s32_wrap(x):
    x %= 2**32
    return x - 2**32 if x >= 2**31 else x


def u8s_seeded(seed, lo, hi, n):
    return random_init(seed, lo, hi, n, round_half_away)


a, p, b = random_init(61, -2, 2, 512, f16), u8s_seeded(62, 0, 5, 128), random_init(63, -2, 2, 256, f16)
c = random_init(64, -4, 4, 128, f32)
write("mma_sparse_f16_d.bin", "f", [f32(float(x)) for x in product_plus_c(sparse_masked(a, p, 32, 4), b, c, 16, 8, 32)])
a, p, b = random_init(65, -2, 2, 256, f16), u8s_seeded(66, 0, 5, 64), random_init(67, -2, 2, 128, f16)
c = random_init(68, -4, 4, 128, f16)
write("mma_sparse_f16_e.bin", "e", [f16(float(x)) for x in product_plus_c(sparse_masked(a, p, 16, 4), b, c, 16, 8, 16)])
c = [50 - 0.75 * i for i in range(128)]
a, p, b = [-4 + 0.0625 * i for i in range(256)], u8s_seeded(71, 0, 1, 128), [3 - 0.0625 * i for i in range(128)]
write("mma_sparse_tf32_d.bin", "f", [exact_f32(float(x)) for x in product_plus_c(sparse_masked(a, p, 16, 2), b, c, 16, 8, 16)])
a, p, b = [2 - 0.0625 * i for i in range(128)], u8s_seeded(72, 0, 1, 64), [-1 + 0.125 * i for i in range(64)]
write("mma_sparse_tf32_e.bin", "f", [exact_f32(float(x)) for x in product_plus_c(sparse_masked(a, p, 8, 2), b, c, 16, 8, 8)])
c = [2147483497 - 3 * i for i in range(128)]
a, p, b = u8s_seeded(81, -128, 127, 1024), u8s_seeded(82, 0, 5, 256), u8s_seeded(83, 0, 255, 512)
d = [int(x) for x in product_plus_c(sparse_masked(a, p, 64, 4), b, c, 16, 8, 64)]
a, p, b = u8s_seeded(87, -128, 127, 512), u8s_seeded(88, 0, 5, 128), u8s_seeded(89, -128, 127, 256)
f = [int(x) for x in product_plus_c(sparse_masked(a, p, 32, 4), b, c, 16, 8, 32)]
print("mma_sparse_int: clamped", sum(x > 2**31 - 1 for x in d), "of 128; wrapped", sum(x > 2**31 - 1 for x in f), "of 128")
write("mma_sparse_int_d.bin", "i", [max(min(x, 2**31 - 1), -2**31) for x in d])
write("mma_sparse_int_f.bin", "i", [s32_wrap(x) for x in f])


def e5m2_byte(byte):  # the top byte of an f16
    return struct.unpack("<e", struct.pack("<H", (byte & 0xFF) << 8))[0]


a = [e4m3(v & 0xB7) for v in u8s_seeded(91, 0, 255, 1024)]
p = u8s_seeded(92, 0, 5, 256)
b = [e5m2_byte(v & 0xB7) for v in u8s_seeded(93, 0, 255, 512)]
c = random_init(94, -1, 1, 128, f32)
write("mma_sparse_e4m3_d.bin", "f", [f32(float(x)) for x in product_plus_c(sparse_masked(a, p, 64, 4), b, c, 16, 8, 64)])

# spin_lock.cu: each of 2 x 64 threads adds one to the counter while holding the lock.
write("spin_lock_counter.bin", "i", [2 * 64])

# device_globals.cu: out[i] = in[i] * gain[i & 3] (powers of two: exact), and 8 blocks counted.
write("device_globals_out.bin", "f", [f32(f32(-3 + 0.01 * i) * (0.5, 1.0, 2.0, 4.0)[i & 3]) for i in range(1024)])
write("device_globals_count.bin", "I", [8])

# wmma_shapes.cu, wmma_shapes.launch.yaml: FP16 accumulators (m16n16k16, B column-major) and
# m32n8k16 (A, B row-major; C, D column-major with leading dimension 32).
a, b, c = (random_init(s, -1, 1, 256, f16) for s in (61, 62, 63))
write("wmma_shapes_d16.bin", "e", [f16(sum(a[i * 16 + k] * b[j * 16 + k] for k in range(16)) + c[i * 16 + j])
                                  for i in range(16) for j in range(16)])
a, b, c = random_init(64, -1, 1, 512, f16), random_init(65, -1, 1, 128, f16), random_init(66, -1, 1, 256, f32)
d = [0.0] * 256
for i in range(32):
    for j in range(8):
        d[j * 32 + i] = sum(a[i * 16 + k] * b[k * 8 + j] for k in range(16)) + c[j * 32 + i]
write("wmma_shapes_d32.bin", "f", d)

# wmma_int8.launch.yaml: bytes are the low bytes of the sequences; s8 reads them as signed.
a = [s8((128 + 7 * i) & 0xFF) for i in range(256)]
b = [s8((5 + 253 * i) & 0xFF) for i in range(256)]
write("wmma_int8_ds8.bin", "i", [1000 + sum(a[i * 16 + k] * b[j * 16 + k] for k in range(16)) for i in range(16) for j in range(16)])
a = [(7 * i) & 0xFF for i in range(512)]
b = [(5 + 3 * i) & 0xFF for i in range(128)]  # column-major: b[j * 16 + k]
c = [2147000000 + 1000 * i for i in range(256)]
write("wmma_int8_du8.bin", "i", [min(2**31 - 1, c[i * 8 + j] + sum(a[i * 16 + k] * b[j * 16 + k] for k in range(16)))
                                 for i in range(32) for j in range(8)])


# wmma_sm80.launch.yaml: BF16 (A column-major 8 x 16, B row-major 16 x 32), TF32 (rounded to
# nearest, ties away from zero, as cvt.rna.tf32.f32 does; A doubled), FP64 (B column-major).
def tf32_rna(x):
    bits = struct.unpack("<I", struct.pack("<f", f32(x)))[0]
    return struct.unpack("<f", struct.pack("<I", ((bits + 0x1000) & 0xFFFFE000) & 0xFFFFFFFF))[0]


a, b = random_init(67, -1, 1, 128, bf16), random_init(68, -1, 1, 512, bf16)
write("wmma_sm80_dbf.bin", "f", [sum(a[k * 8 + i] * b[k * 32 + j] for k in range(16)) for i in range(8) for j in range(32)])
a, b = random_init(69, -1, 1, 128, f32), random_init(70, -1, 1, 128, f32)
write("wmma_sm80_dtf.bin", "f", [sum(2 * tf32_rna(a[i * 8 + k]) * tf32_rna(b[k * 16 + j]) for k in range(8))
                                 for i in range(16) for j in range(16)])
a, b, c = (random_init(s, -1, 1, n, float) for s, n in ((71, 32), (72, 32), (73, 64)))
write("wmma_sm80_d64.bin", "d", [sum(a[i * 4 + k] * b[j * 4 + k] for k in range(4)) + c[i * 8 + j] for i in range(8) for j in range(8)])

# bulk_copy: in[i] = 0.25 i copied through shared memory by cp.async.bulk; out = 2 in (exact).
write("bulk_copy_out.bin", "f", [exact_f32(2 * f32(0.25 * i)) for i in range(32768)])

# tma_transpose: in is 70 rows x 100 columns holding 0, 1, 2, ...; out is its 100 x 70 transpose.
write("tma_transpose_out.bin", "f", [float(x * 100 + y) for y in range(100) for x in range(70)])

# cluster_histogram: in[i] = 37 i, 256 bins (the bin is the value mod 256).
bins = [0] * 256
for i in range(16384):
    bins[(37 * i) % 256] += 1
write("cluster_histogram_bins.bin", "I", bins)

# cluster_exchange: in[i] = 0.5 i; CTA c of a 4-CTA cluster reads CTA (c + 1) mod 4 of the same
# cluster: out[i] = in[i] + 10 in[j], j the same thread in the neighbour.
out = []
for i in range(2048):
    cta, t = divmod(i, 128)
    base, rank = divmod(cta, 4)
    j = (base * 4 + (rank + 1) % 4) * 128 + t
    out.append(exact_f32(0.5 * i + 10 * (0.5 * j)))
write("cluster_exchange_out.bin", "f", out)

# async_store_ring: in[i] = 0.25 i; clusters of 4 CTAs of 256 values; CTA of rank r receives from
# rank r - 1 (wrapping) of its cluster the values 2 in[j] + (r - 1 mod 4), j the same element there.
out = []
for i in range(2048):
    cta, e = divmod(i, 256)
    base, rank = divmod(cta, 4)
    sender = (rank + 3) % 4
    out.append(exact_f32(2 * (0.25 * ((base * 4 + sender) * 256 + e)) + sender))
write("async_store_ring_out.bin", "f", out)

# async_reduce: in[i] = -300 + 7 i (s32), 32 per CTA; in each cluster of 4, ranks 1-3 combine
# lane t's value into rank 0's accumulators: sum (u32, wrapping), max (s32), min (u32 of the bits),
# xor, inc with bound 1 (0, 1, 0, 1: three incs give 1), and the 64-bit sum of 0xC0000000 x (v & 0xff).
out = []
for cluster in range(2):
    vals = [[-300 + 7 * ((cluster * 4 + r) * 32 + t) for r in (1, 2, 3)] for t in range(32)]
    bits = [[v & 0xFFFFFFFF for v in vs] for vs in vals]
    sums = [sum(b) & 0xFFFFFFFF for b in bits]
    maxs = [max(vs) & 0xFFFFFFFF for vs in vals]
    mins = [min(b) for b in bits]
    xors = [b[0] ^ b[1] ^ b[2] for b in bits]
    incs = []
    for t in range(32):
        x = 0
        for _ in range(3):
            x = 0 if x >= 1 else x + 1
        incs.append(x)
    wide = [sum(0xC0000000 * (v & 0xFF) for v in vs) & 0xFFFFFFFFFFFFFFFF for vs in vals]
    out += sums + maxs + mins + xors + incs + [w & 0xFFFFFFFF for w in wide] + [w >> 32 for w in wide]
write("async_reduce_out.bin", "I", out)

# grid_sync: a[i] = 1 + 3 i (u32), three rounds of b = a[i-1] + a[i] + a[i+1] (0 beyond the ends)
# ping-ponging a -> b -> a -> b, modulo 2^32; then the sum of b.
vals = [1 + 3 * i for i in range(2048)]
for _ in range(3):
    vals = [((vals[i - 1] if i > 0 else 0) + vals[i] + (vals[i + 1] if i + 1 < 2048 else 0)) & 0xFFFFFFFF for i in range(2048)]
write("grid_sync_b.bin", "I", vals)
write("grid_sync_sum.bin", "I", [sum(vals) & 0xFFFFFFFF])

# device_malloc: thread t of 512 sums k t for k < (t mod 8) + 1; every block's 1 GiB request
# returns NULL; the kept blocks hold 100 b + j.
write("device_malloc_sums.bin", "I", [sum(k * t for k in range(t % 8 + 1)) for t in range(512)])
write("device_malloc_null_seen.bin", "I", [1] * 8)
write("device_malloc_out.bin", "i", [100 * b + j for b in range(8) for j in range(16)])

# wgmma_gemm: C = A B, 128 x 128 x 128, A row-major, B given transposed (bt[n][k]), FP16 inputs,
# in double; both staging layouts (plain and 128-byte swizzled) must give this.
a = random_init(61, -1, 1, 16384, f16)
bt = random_init(62, -1, 1, 16384, f16)
write("wgmma_gemm_c.bin", "f", matmul(a, bt, 128, 128, 128, lambda i, k: i * 128 + k, lambda k, j: j * 128 + k))
# ... and with B row-major (b[k][n]), read MN-major.
b = random_init(63, -1, 1, 16384, f16)
write("wgmma_gemm_mn_major_c.bin", "f", matmul(a, b, 128, 128, 128, lambda i, k: i * 128 + k, lambda k, j: k * 128 + j))

# tcgen05_gemm: C = A B, 256 x 256 x 128, A row-major, B given transposed (bt[n][k]), FP16 inputs.
a = random_init(71, -1, 1, 32768, f16)
bt = random_init(72, -1, 1, 32768, f16)
write("tcgen05_gemm_c.bin", "f", matmul(a, bt, 256, 256, 128, lambda i, k: i * 128 + k, lambda k, j: j * 128 + k))
# ... and with B row-major (b[k][n], 128 x 256), read MN-major.
b = random_init(73, -1, 1, 32768, f16)
write("tcgen05_gemm_mn_major_c.bin", "f", matmul(a, b, 256, 256, 128, lambda i, k: i * 128 + k, lambda k, j: k * 256 + j))

# tcgen05_m64: C = A B, 128 x 128 x 128 through M = 64 MMAs, B given transposed (bt[n][k]).
a = random_init(81, -1, 1, 16384, f16)
bt = random_init(82, -1, 1, 16384, f16)
write("tcgen05_m64_c.bin", "f", matmul(a, bt, 128, 128, 128, lambda i, k: i * 128 + k, lambda k, j: j * 128 + k))


# ... and random bytes read as FP4 (E2M1: sign, 2 exponent bits with bias 1, 1 mantissa bit;
# OCP MX). Each row's 256 bytes are 16 chunks of 16 bytes: 16 elements in the low 8 bytes of
# each (element e at bits 4 (e % 16) of them), 8 bytes of padding.
def e2m1(v):
    e, m = (v >> 1) & 3, v & 1
    mag = m * 0.5 if e == 0 else (1 + m / 2) * 2.0 ** (e - 1)
    return -mag if v & 8 else mag


def fp4_rows(words):
    data = struct.pack(f"<{len(words)}H", *words)
    rows = []
    for r in range(256):
        row = data[r * 256:(r + 1) * 256]
        rows.append([e2m1((row[c * 16 + e // 2] >> (4 * (e % 2))) & 15) for c in range(16) for e in range(16)])
    return rows


a4 = fp4_rows(random_init(74, 0, 65535, 32768, lambda x: int(math.floor(x + 0.5))))
bt4 = fp4_rows(random_init(75, 0, 65535, 32768, lambda x: int(math.floor(x + 0.5))))
write("tcgen05_gemm_fp4_c.bin", "f", [exact_f32(sum(x * y for x, y in zip(a4[i], bt4[j]))) for i in range(256) for j in range(256)])



# tcgen05_block_scaled: C = A B^T (128 x 128) with a factor per row per block of K. Rows of 128
# bytes: E4M3 (A) and E5M2 (B) bytes for MXFP8, K = 128; two E2M1 values per byte (element 2j in
# the low nibble of byte j) for MXFP4 and NVFP4, K = 256. Factors are per row, block j in byte j.
def e4m3(v):
    e, m = (v >> 3) & 15, v & 7
    mag = m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
    return -mag if v & 0x80 else mag


def e5m2(v):
    e, m = (v >> 2) & 31, v & 3
    mag = m / 4 * 2.0 ** -14 if e == 0 else (1 + m / 4) * 2.0 ** (e - 15)
    return -mag if v & 0x80 else mag


def u8s(seed, lo, hi, n):
    return random_init(seed, lo, hi, n, lambda x: int(math.floor(x + 0.5)))


def block_scaled(a_vals, b_vals, sa, sb, k, block):
    blocks = k // block
    out = []
    for i in range(128):
        ra = [a_vals[i][kk] * sa[i * blocks + kk // block] for kk in range(k)]
        for j in range(128):
            out.append(sum(x * b_vals[j][kk] * sb[j * blocks + kk // block] for kk, x in enumerate(ra)))
    return out


def ue8m0(v):
    return 2.0 ** (v - 127)


a8 = [[e4m3(v) for v in row] for row in zip(*[iter(u8s(81, 0, 126, 16384))] * 128)]
bt8 = [[e5m2(v) for v in row] for row in zip(*[iter(u8s(82, 0, 95, 16384))] * 128)]
write("tcgen05_block_scaled_mxfp8_c.bin", "f",
      [f32(x) for x in block_scaled(a8, bt8, [ue8m0(v) for v in u8s(83, 125, 129, 512)], [ue8m0(v) for v in u8s(84, 125, 129, 512)], 128, 32)])
a4p = [[e2m1((byte >> (4 * h)) & 15) for byte in row for h in (0, 1)] for row in zip(*[iter(u8s(85, 0, 255, 16384))] * 128)]
bt4p = [[e2m1((byte >> (4 * h)) & 15) for byte in row for h in (0, 1)] for row in zip(*[iter(u8s(86, 0, 255, 16384))] * 128)]
write("tcgen05_block_scaled_mxfp4_c.bin", "f",
      [exact_f32(x) for x in block_scaled(a4p, bt4p, [ue8m0(v) for v in u8s(87, 125, 129, 1024)], [ue8m0(v) for v in u8s(88, 125, 129, 1024)], 256, 32)])
write("tcgen05_block_scaled_nvfp4_c.bin", "f",
      [exact_f32(x) for x in block_scaled(a4p, bt4p, [e4m3(v) for v in u8s(89, 56, 64, 2048)], [e4m3(v) for v in u8s(90, 56, 64, 2048)], 256, 16)])

# bulk_store: out[i] = 0.5 i, written tile by tile from shared memory by cp.async.bulk.
write("bulk_store_out.bin", "f", [exact_f32(0.5 * i) for i in range(2048)])

# tma_tiles: out = 2 in + 1 over a 100 x 20 x 5 tensor holding 0, 1, 2, ...: loaded swizzled,
# stored plain; every element is inside some box, and the edge boxes store nothing beyond.
write("tma_tiles_out.bin", "f", [float(2 * i + 1) for i in range(10000)])

# tma_multicast: clusters of 2 CTAs stream the same 8 tiles of 32 x 32 of m[i] = i / 4 (rows of
# 32): thread t of the CTA of rank r sums column t % 32 over all 256 rows, times r + 1. Every
# cluster writes the same out[r * 32 + c] (64 floats); exact (quarter-integers, sums below 2^24).
col = [sum((row * 32 + c) * 0.25 for row in range(256)) for c in range(32)]
write("tma_multicast_out.bin", "f", [exact_f32(col[c] * (r + 1)) for r in range(2) for c in range(32)])

# device_printf: thread i sums in[i] + k for k < 8, in[i] = i / 2: 8 in[i] + 28, exact in float.
write("device_printf_sums.bin", "f", [exact_f32(8 * 0.5 * i + 28) for i in range(128)])

# cub_block: each of 4 blocks sorts its 512 keys ascending, takes an exclusive prefix sum of the
# sorted keys' low bytes, and the largest key.
keys = random_init(91, 0, 4294967295, 2048, lambda x: int(math.floor(x + 0.5)))
blocks = [sorted(keys[b * 512:(b + 1) * 512]) for b in range(4)]
write("cub_block_sorted.bin", "I", [k for blk in blocks for k in blk])
prefix = []
for blk in blocks:
    running = 0
    for k in blk:
        prefix.append(running)
        running += k & 0xFF
write("cub_block_prefix.bin", "I", prefix)
write("cub_block_largest.bin", "I", [blk[-1] for blk in blocks])

# scan_lookback: the inclusive prefix sums of 262244 random u32 values modulo 2^32; each of the 257
# tiles of 1024 ends in state 2 << 32 | (the prefix through its last element).
values = random_init(17, 0, 4294967295, 262244, lambda x: int(math.floor(x + 0.5)))
prefix = list(itertools.accumulate(values, lambda a, b: (a + b) % 2**32))
write("scan_lookback_out.bin", "I", prefix)
write("scan_lookback_tile_state.bin", "Q", [2 << 32 | prefix[min(1024 * (t + 1), 262244) - 1] for t in range(257)])

# libdevice_math: 24 functions of x (and y = 3x + 0.5) per input, one row per function, in float
# (inputs rounded to float, results compared with a few-ulp tolerance) and double.
def math_rows(xs):
    rows = []
    functions = [
        lambda x, y: math.sin(x), lambda x, y: math.cos(x), lambda x, y: math.tan(x), lambda x, y: math.exp(x),
        lambda x, y: 2.0 ** x, lambda x, y: math.log(y), lambda x, y: math.log2(y), lambda x, y: math.log10(y),
        lambda x, y: math.log1p(x), lambda x, y: math.expm1(x), lambda x, y: y ** x, lambda x, y: math.sqrt(y),
        lambda x, y: 1 / math.sqrt(y), lambda x, y: y ** (1 / 3), lambda x, y: math.tanh(x), lambda x, y: math.erf(x),
        lambda x, y: math.erfc(x), lambda x, y: math.atan2(x, y), lambda x, y: math.asin(x), lambda x, y: math.acos(x),
        lambda x, y: math.atan(y), lambda x, y: math.sinh(x), lambda x, y: math.lgamma(y), lambda x, y: math.hypot(x, y)]
    for fn in functions:
        rows += [fn(x, y) for x, y in xs]
    return rows


x32 = [f32(v) for v in random_init(23, 0.05, 0.95, 256, lambda v: v)]
write("libdevice_math_y32.bin", "f", math_rows([(x, f32(x * 3 + 0.5)) for x in x32]))
x64 = random_init(23, 0.05, 0.95, 256, lambda v: v)
write("libdevice_math_y64.bin", "d", math_rows([(x, x * 3 + 0.5) for x in x64]))


# simd_intrinsics: CUDA's per-byte and per-halfword intrinsics on words t and t + 1, one row of
# 256 results per intrinsic, in the kernel's order; each from its documented element-wise meaning.
def simd_rows(words):
    def parts(x, w):
        return [(x >> (i * w)) & ((1 << w) - 1) for i in range(32 // w)]

    def signed(v, w):
        return v - (1 << w) if v >> (w - 1) else v

    def pack(vals, w):
        return sum((v & ((1 << w) - 1)) << (i * w) for i, v in enumerate(vals))

    def sat_s(v, w):
        return max(-(1 << (w - 1)), min((1 << (w - 1)) - 1, v))

    def sat_u(v, w):
        return max(0, min((1 << w) - 1, v))

    def unary(w, f):
        return lambda x, y: pack([f(signed(p, w)) for p in parts(x, w)], w)

    def binary(w, f, is_signed):
        conv = (lambda v: signed(v, w)) if is_signed else (lambda v: v)
        return lambda x, y: pack([f(conv(p), conv(q)) for p, q in zip(parts(x, w), parts(y, w))], w)

    def sad(w, is_signed):
        conv = (lambda v: signed(v, w)) if is_signed else (lambda v: v)
        return lambda x, y: sum(abs(conv(p) - conv(q)) for p, q in zip(parts(x, w), parts(y, w)))

    def avg_signed(p, q):  # rounded: (p + q + 1) >> 1, or (p + q) >> 1 below zero
        s = p + q
        return (s + 1) >> 1 if s >= 0 else s >> 1

    fns = []
    for w in (16, 8):
        fns.append(unary(w, abs))
    for w in (16, 8):
        fns.append(unary(w, lambda v, w=w: sat_s(abs(v), w)))
    for w in (16, 8):
        fns.append(unary(w, lambda v: -v))
    for w in (16, 8):
        fns.append(unary(w, lambda v, w=w: sat_s(-v, w)))
    fns += [binary(16, lambda p, q: abs(p - q), True), binary(8, lambda p, q: abs(p - q), True),
            binary(16, lambda p, q: abs(p - q), False), binary(8, lambda p, q: abs(p - q), False),
            binary(16, lambda p, q: p + q, False), binary(8, lambda p, q: p + q, False),
            binary(16, lambda p, q: sat_s(p + q, 16), True), binary(8, lambda p, q: sat_s(p + q, 8), True),
            binary(16, lambda p, q: sat_u(p + q, 16), False), binary(8, lambda p, q: sat_u(p + q, 8), False),
            binary(16, avg_signed, True), binary(8, avg_signed, True),
            binary(16, lambda p, q: (p + q + 1) >> 1, False), binary(8, lambda p, q: (p + q + 1) >> 1, False),
            binary(16, lambda p, q: -1 if p == q else 0, False), binary(8, lambda p, q: -1 if p == q else 0, False),
            binary(16, lambda p, q: -1 if p >= q else 0, True), binary(8, lambda p, q: -1 if p >= q else 0, False),
            binary(16, lambda p, q: -1 if p > q else 0, True), binary(8, lambda p, q: -1 if p < q else 0, False),
            binary(16, lambda p, q: (p + q) >> 1, False), binary(8, lambda p, q: (p + q) >> 1, False),
            binary(16, max, True), binary(8, max, True), binary(16, max, False), binary(8, max, False),
            binary(16, min, True), binary(8, min, True), binary(16, min, False), binary(8, min, False),
            sad(16, True), sad(8, True), sad(16, False), sad(8, False),
            binary(16, lambda p, q: 1 if p == q else 0, False), binary(8, lambda p, q: 1 if p == q else 0, False),
            binary(16, lambda p, q: 1 if p > q else 0, True), binary(8, lambda p, q: 1 if p < q else 0, False),
            binary(16, lambda p, q: p - q, False), binary(8, lambda p, q: p - q, False),
            binary(16, lambda p, q: sat_s(p - q, 16), True), binary(8, lambda p, q: sat_s(p - q, 8), True),
            binary(16, lambda p, q: sat_u(p - q, 16), False), binary(8, lambda p, q: sat_u(p - q, 8), False)]
    assert len(fns) == 52
    return [f(words[t], words[t + 1]) & 0xFFFFFFFF for f in fns for t in range(256)]


write("simd_intrinsics_out.bin", "I", simd_rows(random_init(3, 0, 4294967295, 257, lambda x: int(math.floor(x + 0.5)))))


# fp8_convert: each input's E4M3, E5M2 and E2M1 code and its value. The code is found by brute
# force over every code of the input's sign in the format (OCP MX v1.0 encodings): the nearest
# finite value, ties to the even code, beyond the largest finite value its signed maximum
# (.satfinite).
def minifloat_value(code, e_bits, m_bits, bias, ieee):
    sign = -1.0 if code >> (e_bits + m_bits) & 1 else 1.0
    e, m = (code >> m_bits) & ((1 << e_bits) - 1), code & ((1 << m_bits) - 1)
    if ieee and e == (1 << e_bits) - 1:
        return None  # infinity or NaN
    if not ieee and e_bits == 4 and e == 15 and m == 7:
        return None  # E4M3's NaN
    return sign * (m * 2.0 ** (1 - bias - m_bits) if e == 0 else (1 + m / 2 ** m_bits) * 2.0 ** (e - bias))


def nearest_code(x, e_bits, m_bits, bias, ieee):
    best = None
    sign = (1 << (e_bits + m_bits)) if math.copysign(1, x) < 0 else 0  # rounding keeps the sign: -0.1 becomes -0
    for code in range(sign, sign + (1 << (e_bits + m_bits))):
        v = minifloat_value(code, e_bits, m_bits, bias, ieee)
        if v is None:
            continue
        d = abs(v - x)
        if best is None or d < best[0] or (d == best[0] and code % 2 == 0 and best[1] % 2 == 1):
            best = (d, code, v)
    return best[1], best[2]


xs = [f32(v) for v in random_init(88, -600, 600, 1024, lambda v: v)]
codes, back = [], []
for x in xs:
    for fmt in ((4, 3, 7, False), (5, 2, 15, True), (2, 1, 1, False)):
        code, value = nearest_code(x, *fmt)
        codes.append(code)
        back.append(value)
write("fp8_convert_codes.bin", "B", codes)
write("fp8_convert_back.bin", "f", back)

# named_pipeline: 4 CTAs x 8 tiles of 256 floats in[i] = i; out[t] = sum of 2 in[i] over tile t.
write("named_pipeline_out.bin", "f", [exact_f32(sum(2 * i for i in range(t * 256, t * 256 + 256))) for t in range(32)])

# sync_reduce: per CTA of 160 threads: count of x > 50, all x >= 0, any x == 77, and the count of
# odd x among the first 64 threads.
xs = random_init(11, -1, 100, 960, lambda x: int(math.floor(x + 0.5)))
rows = []
for b in range(6):
    v = xs[b * 160:(b + 1) * 160]
    rows += [sum(x > 50 for x in v), int(all(x >= 0 for x in v)), int(any(x == 77 for x in v)), sum(x & 1 for x in v[:64])]
write("sync_reduce_out.bin", "i", rows)

# mbarrier_pipeline: in[i] = -36 + i / 64; out = in^2 + 1 (exact in float: i^2 / 4096 below 2^24 / 4096).
write("mbarrier_pipeline_out.bin", "f", [exact_f32(f32(-36 + i / 64) ** 2 + 1) for i in range(4608)])

# async_barrier: in[i] = i / 2; out[b * 256 + t] = 3 * in[b * 256 + 255 - t] (exact).
write("async_barrier_out.bin", "f", [exact_f32(3 * f32(0.5 * (b * 256 + 255 - t))) for b in range(16) for t in range(256)])


# function_pointers: v = (2x, x^2, -x)[i % 3] + (0.5, 0.25)[i & 1], plus the area of one of three
# shapes of side x: none (i % 5 == 0) 0, square (i & 2) x^2, else triangle x^2 / 2. x = -8 + i / 16,
# so every term is a multiple of 1/512 below 2^15: exact in float in any order.
def polymorphic(i):
    x = -8 + i / 16
    v = (2 * x, x * x, -x)[i % 3] + (0.5, 0.25)[i & 1]
    area = 0.0 if i % 5 == 0 else x * x if i & 2 else 0.5 * x * x
    return exact_f32(v + area)


write("function_pointers_out.bin", "f", [polymorphic(i) for i in range(1024)])


# cg_tiles: each thread's eight results over its 16-lane tile (threads 16k .. 16k + 15) and its
# 8-lane tile, from cooperative groups' documented meanings: ballot's bit r is the tile's thread
# of rank r; shfl_down(v, 3) keeps a thread's own value where rank + 3 leaves the tile.
def tile_rows(values):
    rows = []
    for i, v in enumerate(values):
        t16 = values[i - i % 16:i - i % 16 + 16]
        t8 = values[i - i % 8:i - i % 8 + 8]
        xor = 0
        for x in t16:
            xor ^= x
        rows += [sum(t16) & 0xFFFFFFFF, max(t8), int(any(x % 7 == 0 for x in t16)), int(all(x % 2 == 0 for x in t8)),
                 sum(1 << r for r, x in enumerate(t16) if x & 1), t8[i % 8 + 3] if i % 8 + 3 < 8 else v,
                 i % 16 + 100 * (i % 256 // 16), xor]
    return rows


write("cg_tiles_out.bin", "I", tile_rows(random_init(17, 0, 1000, 1024, lambda x: int(math.floor(x + 0.5)))))


# wide_atomics: per block b of 256 values v (thread t), slot s = t % 8 sums (v, -2v) and (v, 1,
# -v, 0.5) (integers and halves below 2^24: exact in any order); the 128-bit counter, starting at
# 2^64 - 100 in both words' low one and the same in the high one, ends 256 higher with the carry;
# best is the largest (v, t); totals are the initial slot (7, 7) plus every (v, t) exchanged in.
def wide_atomics(values):
    sums2, sums4, counter, best, totals = [], [], [], [], []
    for b in range(4):
        block = values[256 * b:256 * b + 256]
        for s in range(8):
            mine = [v for t, v in enumerate(block) if t % 8 == s]
            sums2 += [exact_f32(float(sum(mine))), exact_f32(-2.0 * sum(mine))]
            sums4 += [exact_f32(float(sum(mine))), 32.0, exact_f32(-float(sum(mine))), 16.0]
        start = (2**64 - 100) | ((2**64 - 100) << 64)
        end = (start + 256) % 2**128
        counter += [end & (2**64 - 1), end >> 64]
        best += list(max((v, t) for t, v in enumerate(block)))
        totals += [7 + sum(block), 7 + sum(range(256))]
    return sums2, sums4, counter, best, totals


for name, fmt, rows in zip(["sums2", "sums4", "counter", "best", "totals"], "ffQQQ",
                           wide_atomics(random_init(23, 0, 1000, 1024, lambda x: int(math.floor(x + 0.5))))):
    write(f"wide_atomics_{name}.bin", fmt, rows)


# cub_warp: per block b of 512 values (thread t's warp-level value is item t; its block-level items
# are 4t .. 4t + 3): per warp an inclusive sum and an exclusive running max from 0, the minimum and
# sums over segments of 8 lanes; per block the histogram of item % 64, the items stored back, head
# flags (1 where an item differs from the one before; the first is a head) and the sorted items.
def cub_warp(values):
    scans, reductions, histogram, heads, ordered = [], [0] * 128, [], [], []
    for b in range(4):
        block = values[512 * b:512 * b + 512]
        for w in range(4):
            lane_values = block[32 * w:32 * w + 32]
            running_max = 0
            for lane, v in enumerate(lane_values):
                scans += [sum(lane_values[:lane + 1]), running_max]
                running_max = max(running_max, v)
            reductions[4 * b + w] = min(lane_values)
            for s in range(4):
                reductions[64 + 16 * b + 4 * w + s] = sum(lane_values[8 * s:8 * s + 8])
        bins = [0] * 64
        for v in block:
            bins[v % 64] += 1
        histogram += bins
        heads += [1] + [int(block[i] != block[i - 1]) for i in range(1, 512)]
        ordered += sorted(block)
    return scans, reductions, histogram, values, heads, ordered


for name, rows in zip(["scans", "reductions", "histogram", "stored", "heads", "sorted"],
                      cub_warp(random_init(29, 0, 200, 2048, lambda x: int(math.floor(x + 0.5))))):
    write(f"cub_warp_{name}.bin", "I", rows)


# textures.cu: texture fetches as the CUDA C++ Programming Guide's "Texture Fetching" appendix
# defines them. Normalized coordinates are wrapped or mirrored into [0, 1) and scaled by the size;
# nearest-point sampling reads texel floor(x); linear filtering blends floor(x - 0.5) and the next
# texel, weighting the upper one by frac(x - 0.5) in 9-bit fixed point (8 fraction bits, rounded
# to nearest here); out-of-range texel indices clamp, read zero (border), wrap or mirror. The
# kernels' coordinates each take one float rounding (fma with an exact product), as nvcc emits.
def tex_index(i, n, mode):
    if mode == "clamp":
        return min(max(i, 0), n - 1)
    if mode == "border":
        return i if 0 <= i < n else None
    if mode == "wrap":
        return i % n
    m = i % (2 * n)
    return m if m < n else 2 * n - 1 - m


def tex_sample(texel, dims, coords, modes, normalized=False, linear=False, channels=1):
    axes = []
    for n, x, mode in zip(dims, coords, modes):
        if normalized:
            if mode == "wrap":
                x -= math.floor(x)
            elif mode == "mirror":
                f = math.floor(x)
                x = x - f if f % 2 == 0 else 1 - (x - f)
            x *= n
        if linear:
            lower = math.floor(x - 0.5)
            a = round((x - 0.5 - lower) * 256) / 256
            axes.append([(lower, 1 - a), (lower + 1, a)])
        else:
            axes.append([(math.floor(x), 1.0)])
    total = [0.0] * channels
    for corner in itertools.product(*axes):
        index = [tex_index(i, n, mode) for (i, _), n, mode in zip(corner, dims, modes)]
        if None in index:
            continue
        weight = math.prod(w for _, w in corner)
        for c, v in enumerate(texel(*index)):
            total[c] += weight * v
    return total


src = [f32(1 + 0.5 * i) for i in range(100)]
write("textures_fetched.bin", "f", [src[3 * i - 20] if 0 <= 3 * i - 20 < 100 else 0.0 for i in range(64)])

img = [f32(v) for v in random_init(51, -1, 1, 1152, lambda x: x)]
img_texel = lambda x, y: (img[y * 48 + x],)  # noqa: E731  (rows 192 bytes apart)
resized = [0.0] * 1920
for y in range(20):
    for x in range(48):
        u, v = f32(x * 0.03125 - f32(0.1)), f32(y * 0.0625 + f32(0.01))
        resized[y * 48 + x] = f32(tex_sample(img_texel, (40, 24), (u, v), ("clamp", "clamp"), True, True)[0])
        u2, v2 = f32(2 * u + f32(0.3)), f32(4 * v - f32(1.7))
        resized[960 + y * 48 + x] = f32(tex_sample(img_texel, (40, 24), (u2, v2), ("mirror", "wrap"), True, True)[0])
write("textures_resized.bin", "f", resized)

rgba = random_init(52, 0, 255, 768, lambda x: int(math.floor(x + 0.5)))
rgba_texel = lambda x, y: rgba[(y * 16 + x) * 4:(y * 16 + x) * 4 + 4]  # noqa: E731
rgba_float, rgba_packed = [], []
for y in range(14):
    for x in range(18):
        rgba_float += [f32(c / 255) for c in tex_sample(rgba_texel, (16, 12), (x - 1.5, y - 0.75), ("border", "border"), channels=4)]
        e = tex_sample(rgba_texel, (16, 12), (x * 0.5 + 0.25, y + 0.5), ("clamp", "clamp"), channels=4)
        rgba_packed.append(int(e[0] + 2 * e[1] + 3 * e[2] + 4 * e[3]))
write("textures_rgba_float.bin", "f", rgba_float)
write("textures_rgba_packed.bin", "I", rgba_packed)

# tex2Dgather: the 2 x 2 footprint linear filtering would blend, counter-clockwise from the lower
# left (PTX ISA, tld4): (i0, j1), (i1, j1), (i1, j0), (i0, j0); indices clamped.
gathered = []
for y in range(16):
    for x in range(16):
        u, v = f32(x * 0.75 + f32(0.2)), f32(y * 0.5 - f32(0.3))
        i0, j0 = math.floor(u - 0.5), math.floor(v - 0.5)
        at = lambda i, j: img[tex_index(j, 24, "clamp") * 48 + tex_index(i, 40, "clamp")]  # noqa: E731
        gathered += [at(i0, j0 + 1), at(i0 + 1, j0 + 1), at(i0 + 1, j0), at(i0, j0)]
write("textures_gathered.bin", "f", gathered)

vol = [f32(v) for v in random_init(53, -2, 2, 240, lambda x: x)]
trilinear = []
for i in range(480):
    x, y, z = i % 10, (i // 10) % 8, i // 80
    trilinear.append(f32(tex_sample(lambda a, b, c: (vol[(c * 6 + b) * 8 + a],), (8, 6, 5), (x * 0.875 - 0.25, y * 0.75, z * 1.25 - 0.5),
                                    ("clamp",) * 3, linear=True)[0]))
write("textures_trilinear.bin", "f", trilinear)

# tex_layered: vol as five 8 x 6 layers (clamped) and as thirty 1D layers of 8 (border), each
# filtered within its layer; block z is the layer, 10 x 8 points per layer.
layered = [0.0] * 800
for layer in range(5):
    for y in range(8):
        for x in range(10):
            u, v = f32(x * 0.625 + f32(0.2)), f32(y * 0.5 - f32(0.1))
            i = (layer * 8 + y) * 10 + x
            layered[i] = f32(tex_sample(lambda a, b: (vol[(layer * 6 + b) * 8 + a],), (8, 6), (u, v), ("clamp", "clamp"), linear=True)[0])
            layered[400 + i] = f32(tex_sample(lambda a: (vol[layer * 8 + a],), (8,), (u,), ("border",), linear=True)[0])
write("textures_layered.bin", "f", layered)

# surf_sobel: |gx| + |gy| of the 3 x 3 Sobel filter, reads clamped to the image (cudaBoundaryModeClamp).
gray = random_init(54, 0, 255, 640, lambda x: int(math.floor(x + 0.5)))
edges = []
for y in range(20):
    for x in range(32):
        p = lambda dx, dy: gray[min(max(y + dy, 0), 19) * 32 + min(max(x + dx, 0), 31)]  # noqa: E731
        gx = p(1, -1) + 2 * p(1, 0) + p(1, 1) - p(-1, -1) - 2 * p(-1, 0) - p(-1, 1)
        gy = p(-1, 1) + 2 * p(0, 1) + p(1, 1) - p(-1, -1) - 2 * p(0, -1) - p(1, -1)
        edges.append(float(abs(gx) + abs(gy)))
write("textures_edges.bin", "f", edges)

# tcgen05_pair: C = A B, 512 x 256 x 128 through CTA-pair MMAs, B given transposed (bt[n][k]).
a = random_init(91, -1, 1, 65536, f16)
bt = random_init(92, -1, 1, 32768, f16)
write("tcgen05_pair_c.bin", "f", matmul(a, bt, 512, 256, 128, lambda i, k: i * 128 + k, lambda k, j: j * 128 + k))

# work_stealing: the sums of x[i] = i over 2048 tiles of 256, each tile added once whichever CTA
# does it: 256 * 256 t + (0 + ... + 255).
write("work_stealing_sums.bin", "I", [256 * 256 * t + 255 * 256 // 2 for t in range(2048)])

# traces/tutorials/scheduling: out[t] = thread 0's chain v = fma(v, 0.999f, 1) from 0, 768 steps for
# the tiles the hash picks and 64 for the others (the product of two floats and the sum with 1
# are exact in double, so rounding once to float is the fused multiply-add's result).
def scheduling_steps(t):
    h = (t * 0x9E3779B1) & 0xFFFFFFFF
    h = ((h ^ (h >> 15)) * 0x85EBCA77) & 0xFFFFFFFF
    h ^= h >> 13
    return 768 if h >> 30 == 0 else 64


def scheduling_value(steps):
    v = 0.0
    for _ in range(steps):
        v = f32(v * f32(0.999) + 1.0)
    return v


write("scheduling_out.bin", "f", [scheduling_value(scheduling_steps(t)) for t in range(1184)])
print("scheduling: heavy tiles", sum(scheduling_steps(t) == 768 for t in range(1184)))


# fp8_accumulate: C (16 x 8) = A B over K = 4096, A row-major and B transposed (8 x K), e4m3 bytes
# masked with 0xBF as the kernel does; the exact sum (every product and partial sum is exact in
# double: 4096 products of at most 8 significant bits), rounded once to f32.
FP8_K = 4096
a = [round_half_away(x) & 0xBF for x in random_init(101, 0, 255, 16 * FP8_K, lambda v: v)]
bt = [round_half_away(x) & 0xBF for x in random_init(102, 0, 255, 8 * FP8_K, lambda v: v)]
write("fp8_accumulate_c.bin", "f",
      [f32(sum(e4m3(a[r * FP8_K + k]) * e4m3(bt[n * FP8_K + k]) for k in range(FP8_K))) for r in range(16) for n in range(8)])
