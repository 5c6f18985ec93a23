#!/usr/bin/env python3
"""The validation suite: one list of kernels, launched the same way on a GPU and in warpsim.

Writes, from the list below (run from anywhere; needs Python 3 and PyYAML only to read the
reused launch files):
  launch/<name>.launch.yaml  warpsim launch files for the kernels defined here
  ref/<name>_<buffer>.bin    reference outputs, computed here in plain Python
  suite_table.h              the same launches for the CUDA harness (harness.cu)
Kernels from traces/kernels/ are reused with their own launch files and references, so each
kernel source and launch shape exists once. docs/validation.md explains the method.
"""
import os
import struct
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from reference_inputs import f32  # noqa: E402

# Kernels from traces/kernels reused as they are: (name, family, launch file).
REUSED = [
    ("reduce_sum", "reduction", "reduce_sum"),
    ("transpose_naive", "transpose", "transpose_naive"),
    ("transpose_tiled", "transpose", "transpose_tiled"),
    ("sgemm_tiled", "gemm", "sgemm_tiled"),
    ("hgemm_mma", "gemm_tensor", "hgemm_mma"),
    ("dgemm_mma", "gemm_tensor", "dgemm_mma"),  # A100 and later: FP64 tensor cores (mma.sync.m8n8k4.f64)
    ("mma_sparse_f16", "gemm_tensor", "mma_sparse_f16"),  # A100 and later: 2:4 sparse mma.sp, metadata layout checked on the GPU
    ("mma_sparse_int", "gemm_tensor", "mma_sparse_int"),  # A100 and later: INT8 mma.sp, four- and two-lane metadata
    ("mma_sparse_tf32", "gemm_tensor", "mma_sparse_tf32"),  # A100 and later: TF32 mma.sp (1:2), one- and two-lane metadata
    ("mma_sparse_e4m3", "gemm_tensor", "mma_sparse_e4m3"),  # sm_89 and later: FP8 mma.sp
    ("fp8_accumulate", "gemm_tensor", "fp8_accumulate"),  # sm_89 and later: K = 4096 in FP8 MMA accumulators (Hopper keeps ~14 bits)
    ("fp8_accumulate_promoted", "gemm_tensor", "fp8_accumulate_promoted"),  # the same, partial sums promoted to f32 every 128
    ("hgemm_sparse", "gemm_tensor", "hgemm_sparse"),  # A100 and later: prune, pack metadata, mma.sp GEMM (hgemm_mma's matrices)
    ("softmax", "softmax", "softmax"),
    ("attention_naive", "attention", "attention_naive"),
    ("attention_flash", "attention", "attention_flash"),
    ("attention_mma", "attention", "attention_mma"),  # A100 and later: FlashAttention-2 style, cp.async, ldmatrix, mma.sync
    ("attention_mma_heads", "attention", "attention_mma_heads"),  # the same for 8 heads: 32 CTAs, about the same time
    ("histogram", "atomics", "histogram"),
    ("bulk_copy", "tma", "bulk_copy"),  # Hopper and later (the launch file requires 9.0)
    ("bulk_store", "tma", "bulk_store"),  # Hopper and later
    ("wgmma_gemm", "gemm_tensor", "wgmma_gemm"),  # sm_90a only (H100, H200)
    ("tcgen05_gemm", "gemm_tensor", "tcgen05_gemm"),  # sm_100a only (B200)
    ("tcgen05_block_scaled", "gemm_tensor", "tcgen05_block_scaled"),  # sm_100a only: MXFP8, MXFP4, NVFP4 scale layouts
    ("tcgen05_m64", "gemm_tensor", "tcgen05_m64"),  # sm_100a only: M = 64 data path, 16-lane tcgen05.ld shapes
    ("tcgen05_pair", "gemm_tensor", "tcgen05_pair"),  # sm_100a only: CTA-pair MMAs (cta_group::2), multicast commit
    ("work_stealing", "bandwidth", "work_stealing"),  # Blackwell: cluster launch control's work stealing over tile sums
    ("cluster_histogram", "clusters", "cluster_histogram"),  # Hopper and later
    ("cluster_exchange", "clusters", "cluster_exchange"),  # Hopper and later, cluster given at launch
    ("tma_transpose", "tma", "tma_transpose"),  # Hopper and later: 2D tensor map
    ("tma_tiles", "tma", "tma_tiles"),  # Hopper and later: 3D, 128-byte swizzle, TMA tensor stores
    ("tma_multicast", "clusters", "tma_multicast"),  # Hopper and later: multicast, remote mbarrier arrives
    ("async_store_ring", "clusters", "async_store_ring"),  # Hopper and later: st.async into a sibling, cluster given at launch
    ("async_reduce", "clusters", "async_reduce"),  # Hopper and later: red.async into the leader
    ("grid_sync", "grid_sync", "grid_sync"),  # a cooperative launch: cooperative groups' grid.sync()
    ("textures", "textures", "textures"),  # texture and surface objects: filtering and address modes checked on the GPU too
    ("scan_lookback", "scan", "scan_lookback"),  # single-pass scan: CTAs wait on predecessors' sums in global memory
]

MB = "ptx/microbench.sm_{sm}.ptx"


def buf(name, elem, count, init="zeros"):
    return {"buffer": {"name": name, "elem": elem, "count": count, "init": init}}


def seq(start, step):
    return {"sequence": {"start": start, "step": step}}


def u32(v):
    return {"scalar": "u32", "value": v}


def f32s(v):
    return {"scalar": "f32", "value": v}


SUITE = []  # (name, family, launch dict, {buffer: (fmt, values)} references)


def add(name, family, kernel, grid, block, args, refs, ptx=MB, requires=None, note=""):
    launch = {"ptx": ptx, "kernel": kernel, "grid": [grid, 1, 1] if isinstance(grid, int) else grid,
              "block": [block, 1, 1], "registers_per_thread": 32, "args": args}
    if requires:
        launch["requires"] = requires
    SUITE.append((name, family, launch, refs, note))


# Latency ladder: next[i] = i + stride (sequence init), wrapped in the kernel.
def chase(name, n, stride, steps, note):
    j = 0
    for _ in range(steps):
        j += stride
        if j >= n:
            j -= n
    add(name, "latency", "chase", 1, 1,
        [buf("next", "u32", n, seq(stride, 1)), u32(n), u32(steps), buf("out", "u32", 1)], {"out": ("I", [j])}, note=note)


chase("chase_l1", 2048, 32, 20000, "8 KiB ring, 128-byte steps: L1 hits after the first lap")
add("chase_shared", "latency", "chase_shared", 1, 1,
    [buf("next", "u32", 1024, seq(1, 1)), u32(1024), u32(100000), buf("out", "u32", 1)], {"out": ("I", [100000 % 1024])},
    note="1024-entry ring in shared memory, 100000 dependent ld.shared")
chase("chase_l2", 1 << 20, 32, 65536, "4 MiB ring (beyond L1, inside L2), 128-byte steps, two laps")
chase("chase_dram", 1 << 24, 1024, 8192, "64 MiB span, 4 KiB steps, one lap: every load misses L2")

# Bandwidth. n4 float4 elements; grids fill every GPU here several times.
N4 = 1 << 21  # 32 MiB of floats
add("bw_read", "bandwidth", "bw_read", 1056, 256, [buf("a", "f32", 4 * N4, seq(0, 1)), u32(N4), buf("out", "f32", 1)],
    {"out": ("f", [0.0])}, note="32 MiB read")
add("bw_write", "bandwidth", "bw_write", 1056, 256, [buf("a", "f32", 4 * N4), u32(N4)], {"a": ("seq", (0.0, 1.0))},
    note="32 MiB written")
add("bw_copy", "bandwidth", "bw_copy", 1056, 256, [buf("a", "f32", 4 * N4, seq(0, 1)), buf("b", "f32", 4 * N4), u32(N4)],
    {"b": ("seq", (0.0, 1.0))}, note="32 MiB read + 32 MiB written")
add("bw_triad", "bandwidth", "bw_triad", 1056, 256,
    [buf("a", "f32", 4 * N4), buf("b", "f32", 4 * N4, seq(0, 0.25)), buf("c", "f32", 4 * N4, seq(0, 0.25)), f32s(2.0), u32(N4)],
    {"a": ("seq", (0.0, 0.75))}, note="a = b + 2c over 32 MiB each (exact in float)")
add("bw_copy_l2", "bandwidth", "bw_copy", 1056, 256, [buf("a", "f32", 1 << 20, seq(0, 1)), buf("b", "f32", 1 << 20), u32(1 << 18)],
    {"b": ("seq", (0.0, 1.0))}, note="4 MiB copy: fits in L2 (first touch from DRAM)")
# L2 re-reads: a set inside one partition's half of L2, and one beyond it but inside the whole L2
# on A100/H100/H200 (20/25 MB halves): the second reads the other partition, so the pair measures
# the far-partition bandwidth penalty the model has no published figure for.
add("l2_reread_near", "bandwidth", "bw_reread", 1056, 256, [buf("a", "f32", 1 << 21, seq(0, 1)), u32(1 << 19), u32(8), buf("out", "f32", 1)],
    {"out": ("f", [0.0])}, note="8 MiB read 8 times past L1: one L2 partition's half")
add("l2_reread_far", "bandwidth", "bw_reread", 1056, 256, [buf("a", "f32", 1 << 23, seq(0, 1)), u32(1 << 21), u32(4), buf("out", "f32", 1)],
    {"out": ("f", [0.0])}, note="32 MiB read 4 times past L1: beyond one partition, inside L2 (A100 40 MB, H100/H200 50 MB)")
add("bw_random", "bandwidth", "bw_random", 264, 256, [buf("a", "u32", 1 << 26), u32(1 << 26), u32(16), buf("out", "u32", 1)],
    {"out": ("I", [0])}, note="16 random 4-byte reads per thread over 256 MiB: DRAM activations, not the bus, bound it")
add("bw_copy_low_occupancy", "bandwidth", "bw_copy", 32, 128, [buf("a", "f32", 1 << 22, seq(0, 1)), buf("b", "f32", 1 << 22), u32(1 << 20)],
    {"b": ("seq", (0.0, 1.0))}, note="16 MiB copy by 32 blocks of 4 warps: too few bytes in flight")

# Arithmetic (a = b = 1 keeps x an exact integer).
add("fma_latency", "arithmetic", "fma_chain", 1, 1, [f32s(1.0), f32s(1.0), u32(100000), buf("out", "f32", 1)],
    {"out": ("f", [100000.0])}, note="one dependent chain of 100000 FMAs")
add("fma_throughput", "arithmetic", "fma_streams", 528, 256, [f32s(1.0), f32s(1.0), u32(256), buf("out", "f32", 256)],
    {"out": ("f", [8 * 256 + 28.0] * 256)}, note="8 independent FMA chains per thread")
add("fp64_throughput", "arithmetic", "dfma_streams", 264, 256, [{"scalar": "f64", "value": 1.0}, {"scalar": "f64", "value": 1.0},
                                                                   u32(64), buf("out", "f64", 256)],
    {"out": ("d", [4 * 64 + 6.0] * 256)}, note="4 independent FP64 FMA chains per thread")


def sfu_ref(n):
    total = 0.0
    for x in (0.125, 0.25, 0.375, 0.5):
        for _ in range(n):
            x = 2.0 ** x - 1.0
        total += x
    return total


add("sfu_throughput", "arithmetic", "sfu_streams", 264, 256, [u32(64), buf("out", "f32", 256)],
    {"out": ("f~", [sfu_ref(64)] * 256)}, note="4 independent ex2.approx chains per thread")

# Shared-memory bank conflicts: 1 to 32-way.
for stride in (1, 2, 4, 8, 16, 32):
    n = 256
    vals = []
    for t in range(256):
        lane = t & 31
        vals.append(sum((lane * stride) % 1024 + (k & 1023) for k in range(n)) & 0xFFFFFFFF)
    add(f"shared_{stride}way" if stride > 1 else "shared_no_conflict", "shared", "shared_stride", 264, 256,
        [u32(stride), u32(n), buf("out", "u32", 256)], {"out": ("I", vals)},
        note=f"stride {stride}: {stride}-way bank conflicts" if stride > 1 else "stride 1: no bank conflicts")

# Divergence: 1 to 32 paths per warp, then lane-dependent trip counts.
for paths in (1, 2, 4, 8, 16, 32):
    n = 8
    vals = [float(t & 31) + 16 * n for t in range(128)]
    add(f"diverge_{paths}paths", "divergence", "diverge_paths", 264, 128, [u32(paths), u32(n), buf("out", "f32", 128)],
        {"out": ("f", vals)}, note=f"{paths} paths per warp, each 16 FMAs x {n}")
add("lane_trips", "divergence", "lane_trips", 264, 128, [u32(64), u32(8), buf("out", "f32", 128)],
    {"out": ("f", [float(64 + (t & 31) * 8) for t in range(128)])}, note="lane l loops 64 + 8 l times")

# Atomics under contention.
add("atomic_one_address", "atomics", "atomic_slots", 132, 256, [u32(1), u32(16), buf("counters", "u32", 1)],
    {"counters": ("I", [132 * 256 * 16])}, note="every thread adds to one counter")
add("atomic_4096_addresses", "atomics", "atomic_slots", 132, 256, [u32(4096), u32(16), buf("counters", "u32", 4096)],
    {"counters": ("I", [16 * sum(1 for t in range(132 * 256) if t % 4096 == c) for c in range(4096)])},
    note="threads spread over 4096 counters")


def bf16_gemm_ref():
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from reference_inputs import bf16, random_init
    m = n = k = 64
    a = random_init(61, -2, 2, m * k, bf16)
    bt = random_init(62, -2, 2, n * k, bf16)
    return [f32(sum(a[i * k + p] * bt[j * k + p] for p in range(k))) for i in range(m) for j in range(n)]


add("bf16_gemm", "gemm_tensor", "bf16_gemm", [8, 4, 1], 32,
    [buf("a", "bf16", 4096, {"random": {"seed": 61, "min": -2, "max": 2}}),
     buf("bt", "bf16", 4096, {"random": {"seed": 62, "min": -2, "max": 2}}), buf("c", "f32", 4096),
     {"scalar": "s32", "value": 64}, {"scalar": "s32", "value": 64}, {"scalar": "s32", "value": 64}],
    {"c": ("f~3", bf16_gemm_ref())}, ptx="ptx/bf16_gemm.sm_{sm}.ptx", requires=8.0,
    note="64 x 64 x 64 BF16 GEMM with mma.sync.m16n8k16")

# Tensor-core throughput through mma.sync (four chains per warp, 8 warps per CTA, one CTA per SM
# on H100/H200): A100's dense peak; on Hopper the share of it that warp-level MMAs reach
# (configs/h100.yaml, tensor.warp_mma_fraction_of_peak).
MMA_N = 256
add("mma_throughput_f16", "arithmetic", "mma_streams_f16", 132, 256, [u32(MMA_N), buf("out", "f32", 256)],
    {"out": ("f", [256.0 * MMA_N] * 256)}, ptx="ptx/mma_throughput.sm_{sm}.ptx", requires=8.0,
    note="mma.sync m16n8k16 f16 -> f32, four independent chains per warp")
add("mma_throughput_s8", "arithmetic", "mma_streams_s8", 132, 256, [u32(MMA_N), buf("out", "s32", 256)],
    {"out": ("i", [512 * MMA_N] * 256)}, ptx="ptx/mma_throughput.sm_{sm}.ptx", requires=8.0,
    note="mma.sync m16n8k32 s8 -> s32, four independent chains per warp")

add("empty_kernel", "baseline", "empty_kernel", 1, 32, [], {}, note="launch cost only; subtracted from every measured time")
# The same empty kernel over grids like the suite's: what dispatching CTAs to every SM costs
# beyond the single-CTA launch (the baseline subtracted from every time).
add("empty_grid_264", "launch", "empty_kernel", 264, 128, [], {}, note="264 empty CTAs of 4 warps (2 per SM on H100/H200)")
add("empty_grid_1056", "launch", "empty_kernel", 1056, 256, [], {}, note="1056 empty CTAs of 8 warps (8 per SM on H100/H200)")


def tolerance(kind):
    # "f~": ex2.approx chains (2 ulp per step); "f~3": float accumulation against a double reference.
    return {"f~": (1e-4, 1e-6), "f~3": (0.0, 1e-3)}.get(kind, (0.0, 0.0))


def write_outputs():
    os.makedirs(os.path.join(HERE, "launch"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "ref"), exist_ok=True)
    for name, family, launch, refs, note in SUITE:
        launch = dict(launch)
        launch["ptx"] = "../" + launch["ptx"]
        expect = {}
        for bname, (fmt, values) in refs.items():
            if fmt == "seq":
                continue  # checked by the harness from the rule; too big to keep as a file
            rtol, atol = tolerance(fmt)
            code = fmt[0] if fmt[0] in "fdIi" else "f"
            path = os.path.join(HERE, "ref", f"{name}_{bname}.bin")
            with open(path, "wb") as f:
                f.write(struct.pack(f"<{len(values)}{code}", *values))
            e = {"file": f"../ref/{name}_{bname}.bin"}
            if rtol:
                e["rtol"] = rtol
            if atol:
                e["atol"] = atol
            expect[bname] = e
        if expect:
            launch["expect"] = expect
        with open(os.path.join(HERE, "launch", f"{name}.launch.yaml"), "w") as f:
            f.write(f"# Validation suite ({family}): {note}. Generated by tools/validation/suite.py.\n")
            yaml.safe_dump(launch, f, sort_keys=False, default_flow_style=None, width=200)


def cxx_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def harness_table():
    """suite_table.h: every entry's launches, buffers and checks as C++ initialisers."""
    lines = ["// Generated by tools/validation/suite.py: do not edit.", "#pragma once", "#include \"suite_types.h\"", "",
             "static const SuiteEntry kSuite[] = {"]
    entries = [(n, fam, os.path.join(ROOT, "traces", "kernels", f"{lf}.launch.yaml")) for n, fam, lf in REUSED]
    entries += [(n, fam, os.path.join(HERE, "launch", f"{n}.launch.yaml")) for n, fam, _, _, _ in SUITE]
    seq_checks = {n: {b: v for b, (fmt, v) in refs.items() if fmt == "seq"} for n, _, _, refs, _ in SUITE}
    for name, family, path in entries:
        with open(path) as f:
            spec = yaml.safe_load(f)
        base = os.path.dirname(path)
        shared = spec.get("buffers", {})
        launches = spec.get("launches") or [spec]
        buffers, order = [], {}

        def add_buffer(bname, b):
            order[bname] = len(buffers)
            init = b.get("init", "zeros")
            kind, a1, a2, seed, file = "kZeros", 0.0, 0.0, 0, ""
            if isinstance(init, dict) and "sequence" in init:
                kind, a1, a2 = "kSequence", init["sequence"].get("start", 0), init["sequence"].get("step", 1)
            elif isinstance(init, dict) and "random" in init:
                r = init["random"]
                kind, a1, a2, seed = "kRandom", r.get("min", 0), r.get("max", 1), r.get("seed", 1)
            elif isinstance(init, dict) and "file" in init:
                kind, file = "kFile", os.path.relpath(os.path.join(base, init["file"]), HERE)
            buffers.append(f"{{{cxx_string(bname)}, {cxx_string(b['elem'])}, {b['count']}ull, InitKind::{kind}, {float(a1)!r}, "
                           f"{float(a2)!r}, {seed}ull, {cxx_string(file)}}}")

        for bname, b in shared.items():
            add_buffer(bname, b)
        launch_lines, maps, textures = [], [], []
        for ln in launches:
            args = []
            for a in ln.get("args", []):
                if "tensor_map" in a:
                    m = a["tensor_map"]
                    dims, box = m["dims"], m["box"]
                    size = {"f64": 8, "s64": 8, "u64": 8, "f32": 4, "s32": 4, "u32": 4, "f16": 2, "bf16": 2, "s16": 2, "u16": 2}.get(m["elem"], 1)
                    strides = m.get("strides")
                    if not strides:  # packed, as warpsim's launch reader fills them
                        strides, s_ = [], dims[0] * size
                        for d in dims[1:]:
                            strides.append(s_)
                            s_ *= d
                    swizzle = {"none": 0, "32B": 32, "64B": 64, "128B": 128}[m.get("swizzle", "none")]
                    pad = lambda v, n: ", ".join(str(x) for x in (list(v) + [0] * n)[:n])
                    args.append(f"{{false, 0, nullptr, 0.0, {len(maps)}}}")
                    maps.append(f"{{{order[m['buffer']]}, {cxx_string(m['elem'])}, {len(dims)}u, {{{pad(dims, 5)}}}, {{{pad(box, 5)}}}, "
                                f"{{{pad(strides, 4)}}}, {swizzle}u}}")
                    continue
                if "texture" in a or "surface" in a:
                    t = a.get("texture") or a.get("surface")
                    dims = list(t["dims"])
                    size = {"f32": 4, "s32": 4, "u32": 4, "f16": 2, "s16": 2, "u16": 2}.get(t["elem"], 1) * t.get("channels", 1)
                    default = "array" if t.get("layers") else ["linear", "pitch2d", "array"][len(dims) - 1]
                    resource = "array" if "surface" in a else t.get("resource", default)
                    modes = t.get("address", "clamp")
                    modes = modes if isinstance(modes, list) else [modes] * len(dims)
                    mode_codes = [{"clamp": 0, "border": 1, "wrap": 2, "mirror": 3}[m] for m in modes] + [0] * (3 - len(modes))
                    cxx_bool = lambda v: "true" if v else "false"  # noqa: E731
                    args.append(f"{{false, 0, nullptr, 0.0, -1, {len(textures)}}}")
                    textures.append(f"{{{order[t['buffer']]}, {cxx_string(t['elem'])}, {t.get('channels', 1)}u, {len(dims)}u, "
                                    f"{{{', '.join(str(d) for d in (dims + [1, 1])[:3])}}}, {t.get('pitch', dims[0] * size)}ull, "
                                    f"{['linear', 'pitch2d', 'array'].index(resource)}, {cxx_bool('surface' in a)}, "
                                    f"{cxx_bool(t.get('filter') == 'linear')}, {cxx_bool(t.get('normalized_coords'))}, "
                                    f"{cxx_bool(t.get('read') == 'normalized_float')}, {{{', '.join(map(str, mode_codes))}}}, "
                                    f"{t.get('layers', 0)}u}}")
                    continue
                if "buffer" in a:
                    b = a["buffer"]
                    if isinstance(b, str):
                        args.append(f"{{true, {order[b]}, \"\", 0.0}}")
                    else:
                        add_buffer(b["name"], b)
                        args.append(f"{{true, {order[b['name']]}, \"\", 0.0}}")
                else:
                    args.append(f"{{false, 0, {cxx_string(a['scalar'])}, {float(a['value'])!r}}}")
            g = (ln["grid"] + [1, 1])[:3]
            bl = (ln["block"] + [1, 1])[:3]
            cl = (ln.get("cluster", [0, 0, 0]) + [1, 1])[:3]
            launch_lines.append(f"{{{cxx_string(ln['kernel'])}, {{{g[0]}, {g[1]}, {g[2]}}}, {{{bl[0]}, {bl[1]}, {bl[2]}}}, "
                                f"{ln.get('dynamic_shared_bytes', 0)}u, {{{', '.join(args)}}}, {{{cl[0]}, {cl[1]}, {cl[2]}}}, "
                                f"{'true' if ln.get('cooperative') else 'false'}}}")
        checks = []
        for bname, e in (spec.get("expect") or {}).items():
            checks.append(f"{{{order[bname]}, CheckKind::kFile, {cxx_string(os.path.relpath(os.path.join(base, e['file']), HERE))}, "
                          f"{float(e.get('rtol', 0))!r}, {float(e.get('atol', 0))!r}, 0.0, 0.0}}")
        for bname, (start, step) in seq_checks.get(name, {}).items():
            checks.append(f"{{{order[bname]}, CheckKind::kSequence, \"\", 0.0, 0.0, {start!r}, {step!r}}}")
        for what, items, room in (("buffers", buffers, 16), ("launches", launch_lines, 8), ("checks", checks, 8), ("tensor maps", maps, 4),
                                   ("texture objects", textures, 12)):
            if len(items) > room:
                sys.exit(f"suite.py: {path}: {len(items)} {what}; suite_types.h has room for {room} per entry (raise it there and here)")
        rel = os.path.relpath(path, ROOT)
        exact = 90 if "sm_90a" in spec.get("ptx", "") else 100 if "sm_100a" in spec.get("ptx", "") else 0
        lines.append(f"  {{{cxx_string(name)}, {cxx_string(family)}, {cxx_string(rel)}, {int(float(spec.get('requires', 0)) * 10)}, {exact},")
        lines.append(f"   {{{', '.join(buffers)}}},")
        lines.append(f"   {{{', '.join(launch_lines)}}},")
        lines.append(f"   {{{', '.join(checks)}}},")
        lines.append(f"   {{{', '.join(maps)}}},")
        lines.append(f"   {{{', '.join(textures)}}}}},")
    lines.append("};")
    with open(os.path.join(HERE, "suite_table.h"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(entries)} entries ({sum(1 for e in entries if e[1] != 'baseline')} kernels and the empty-kernel baseline)")


if __name__ == "__main__":
    write_outputs()
    harness_table()
