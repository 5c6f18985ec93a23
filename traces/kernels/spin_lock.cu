// An intra-warp spin lock: every thread takes one global lock, adds one to a counter and
// releases the lock. Under the classic SIMT reconvergence stack this never finishes: the lane
// that wins the lock leaves the spin loop and waits at the loop's exit for the lanes still
// spinning, which wait for the lock it holds. Volta's independent thread scheduling lets the
// winner run on, so every thread gets the lock once. (docs/tutorials/divergence.md)
extern "C" __global__ void spin_lock(int* lock, volatile int* counter) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  *counter = *counter + 1;
  __threadfence();
  atomicExch(lock, 0);
}
