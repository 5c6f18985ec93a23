#!/usr/bin/env python3
"""Writes a large synthetic Accel-Sim trace (one kernel) for checking that warpsim replays it in
bounded memory: the reader holds only the thread blocks resident on the GPU.

  python3 tools/accelsim/make_large_traceg.py BLOCKS OUT.traceg
Each block has 8 warps of 128 instructions (a loop of coalesced base+stride loads, FMAs and
stores), so BLOCKS=4000 gives 4.1 million warp instructions.
"""
import sys

blocks, out = int(sys.argv[1]), sys.argv[2]
with open(out, "w") as f:
    f.write(f"""-kernel name = _Z6streamPfS_
-kernel id = 1
-grid dim = ({blocks},1,1)
-block dim = (256,1,1)
-shmem = 0
-nregs = 32
-binary version = 80
-cuda stream id = 0
-shmem base_addr = 0x00007f1000000000
-local mem base_addr = 0x00007f2000000000
-nvbit version = 1.7.4
-accelsim tracer version = 5
-enable lineinfo = 0

#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate

""")
    body_per_iter = 8
    iters = 128 // body_per_iter
    for b in range(blocks):
        lines = [f"#BEGIN_TB\n\nthread block = {b},0,0\n\n"]
        for w in range(8):
            lines.append(f"warp = {w}\ninsts = 128\n")
            base = 0x7f0000000000 + ((b * 8 + w) * iters) * 128
            for i in range(iters):
                a = base + i * 128
                r = 10 + (i % 4) * 2
                lines.append(f"0000 ffffffff 1 R{r} LDG.E 1 R2 4 1 0x{a:x} 4 0 \n"
                             f"0010 ffffffff 1 R{r+1} FFMA 3 R{r} R{r} R3 0 0 \n"
                             f"0020 ffffffff 1 R3 FFMA 3 R{r+1} R3 R3 0 0 \n"
                             f"0030 ffffffff 1 R4 FFMA 3 R3 R4 R4 0 0 \n"
                             f"0040 ffffffff 1 R5 FMUL 2 R4 R3 0 0 \n"
                             f"0050 ffffffff 1 R2 IADD3 2 R2 R6 0 0 \n"
                             f"0060 ffffffff 0 STG.E 2 R2 R5 4 1 0x{a + 0x100000000:x} 4 0 \n"
                             f"0070 ffffffff 1 R7 ISETP.GE.AND 2 R2 R8 0 0 \n")
        lines.append("#END_TB\n\n")
        f.write("".join(lines))
