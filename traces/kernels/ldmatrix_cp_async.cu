// cp.async copies 512 bytes from global into shared memory (16 bytes per lane), then ldmatrix
// loads the four 8x8 16-bit matrices into the fragment registers an mma.sync expects, plain and
// transposed. The outputs are the registers, so a test can check the data movement lane by lane.
extern "C" __global__ void ldmatrix_cp_async(const unsigned short* in, unsigned* out, unsigned* out_t) {
  __shared__ __align__(16) unsigned short tile[256];
  unsigned lane = threadIdx.x;
#if __CUDA_ARCH__ >= 800
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(tile + lane * 8));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(in + lane * 8));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 0;");
  __syncwarp();
  unsigned row = static_cast<unsigned>(__cvta_generic_to_shared(tile + lane * 8));
  unsigned r0, r1, r2, r3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(row));
  out[lane * 4 + 0] = r0;
  out[lane * 4 + 1] = r1;
  out[lane * 4 + 2] = r2;
  out[lane * 4 + 3] = r3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(row));
  out_t[lane * 4 + 0] = r0;
  out_t[lane * 4 + 1] = r1;
  out_t[lane * 4 + 2] = r2;
  out_t[lane * 4 + 3] = r3;
#endif
}
