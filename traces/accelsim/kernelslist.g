MemcpyHtoD,0x00007f0000000000,512
MemcpyHtoD,0x00007f0000200000,256
kernel-1.traceg
kernel-2.traceg
kernel-3.traceg.xz
MemcpyDtoH,0x00007f0000100000,512
