// Work stealing with Blackwell's cluster launch control (PTX ISA, "clusterlaunchcontrol";
// sm_100 and later): the sums of n integers in tiles of 256, one tile per CTA of the grid, but a
// CTA that finishes its tile asks the CTA scheduler to cancel a CTA that has not launched yet and
// does that CTA's tile itself. The CTAs the GPU holds at once then do the whole grid's work,
// paying their start-up once, and no tile waits for a free slot. Each tile is done exactly once
// (the sums are added into, so a tile done twice would show), whichever CTA does it.
//
// Thread 0 asks for the next tile before working on the current one, so the scheduler's answer
// (16 bytes written to shared memory, completing on an mbarrier) arrives while the CTA works.
// Before Blackwell the kernel is an ordinary one-tile-per-CTA grid.
// ptx-targets: 100
#include <stdint.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
__device__ uint32_t steal_smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

// One arrival (this thread's) plus the answer's 16 bytes complete the barrier's phase.
__device__ void steal_request(const void* answer, uint64_t* bar) {
  asm volatile(
      "fence.proxy.async.shared::cta;\n\t"
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%1], 16;\n\t"
      "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];" ::"r"(steal_smem(answer)),
      "r"(steal_smem(bar))
      : "memory");
}

__device__ void steal_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n"
      "steal_wait_%=:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra steal_wait_%=;\n\t}" ::"r"(steal_smem(bar)),
      "r"(parity)
      : "memory");
}

// Whether the request cancelled a CTA; if so, `tile` becomes that CTA's x index.
__device__ bool steal_answer(const void* answer, uint32_t& tile) {
  uint32_t cancelled;
  asm volatile(
      "{\n\t.reg .b128 r;\n\t.reg .pred p;\n\t"
      "ld.shared.b128 r, [%1];\n\t"
      "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, r;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(cancelled)
      : "r"(steal_smem(answer))
      : "memory");
  if (!cancelled) return false;
  asm volatile(
      "{\n\t.reg .b128 r;\n\t"
      "ld.shared.b128 r, [%1];\n\t"
      "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %0, r;\n\t}"
      : "=r"(tile)
      : "r"(steal_smem(answer))
      : "memory");
  return true;
}
#endif

__device__ void stealing_tile(unsigned* sums, const unsigned* x, int n, uint32_t tile) {
  const int i = static_cast<int>(tile * blockDim.x + threadIdx.x);
  const unsigned warp_sum = __reduce_add_sync(0xffffffffu, i < n ? x[i] : 0u);
  if (threadIdx.x % 32 == 0) atomicAdd(&sums[tile], warp_sum);
}

extern "C" __global__ void work_stealing_sums(unsigned* sums, const unsigned* x, int n) {
  uint32_t tile = blockIdx.x;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
  __shared__ uint4 answer;  // 16-byte aligned, as try_cancel requires
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(steal_smem(&bar)) : "memory");
  __syncthreads();
  for (uint32_t parity = 0;; parity ^= 1) {
    if (threadIdx.x == 0) steal_request(&answer, &bar);
    stealing_tile(sums, x, n, tile);
    steal_wait(&bar, parity);
    const bool more = steal_answer(&answer, tile);
    __syncthreads();  // every thread has read the answer before thread 0 asks again
    if (!more) break;
  }
#else
  stealing_tile(sums, x, n, tile);
#endif
}
