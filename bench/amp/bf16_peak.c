/* bench/amp: the machine's bfloat16 dot-product peak, the floor a bfloat16
 * matmul is measured against. Each thread runs vdpbf16ps (AVX512_BF16:
 * 16 float32 lanes, each += two bfloat16 products: 64 flops an instruction)
 * on 16 independent accumulators, enough to hide the instruction's latency
 * behind its throughput, for a fixed count; the figure is the flops of all
 * threads over the wall time of the slowest.
 * usage: bf16_peak THREADS; prints "bf16_peak threads <n> gflops <x>" (the
 * best of 5 runs: a peak, not a typical rate). */
#define _POSIX_C_SOURCE 200809L
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kAcc = 16, kIters = 20 * 1000 * 1000 };

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile float sink;  /* keeps the loop's result observable */

static void* spin(void* arg) {
  (void)arg;
  /* The loop in assembly: compilers spill an array of 16 accumulators or
   * fold the loop; here zmm0-15 accumulate, zmm30/31 hold the operands. */
  const __m512bh a = (__m512bh)_mm512_set1_epi16(0x3f80), b = (__m512bh)_mm512_set1_epi16(0x3c00);
  long n = kIters;
  __asm__ volatile(
        "vmovaps %1, %%zmm30\n\t"
        "vmovaps %2, %%zmm31\n\t"
        "vxorps %%zmm0, %%zmm0, %%zmm0\n\t"
        "vxorps %%zmm1, %%zmm1, %%zmm1\n\t"
        "vxorps %%zmm2, %%zmm2, %%zmm2\n\t"
        "vxorps %%zmm3, %%zmm3, %%zmm3\n\t"
        "vxorps %%zmm4, %%zmm4, %%zmm4\n\t"
        "vxorps %%zmm5, %%zmm5, %%zmm5\n\t"
        "vxorps %%zmm6, %%zmm6, %%zmm6\n\t"
        "vxorps %%zmm7, %%zmm7, %%zmm7\n\t"
        "vxorps %%zmm8, %%zmm8, %%zmm8\n\t"
        "vxorps %%zmm9, %%zmm9, %%zmm9\n\t"
        "vxorps %%zmm10, %%zmm10, %%zmm10\n\t"
        "vxorps %%zmm11, %%zmm11, %%zmm11\n\t"
        "vxorps %%zmm12, %%zmm12, %%zmm12\n\t"
        "vxorps %%zmm13, %%zmm13, %%zmm13\n\t"
        "vxorps %%zmm14, %%zmm14, %%zmm14\n\t"
        "vxorps %%zmm15, %%zmm15, %%zmm15\n\t"
        "1:\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm0\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm1\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm2\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm3\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm4\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm5\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm6\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm7\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm8\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm9\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm10\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm11\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm12\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm13\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm14\n\t"
        "vdpbf16ps %%zmm31, %%zmm30, %%zmm15\n\t"
        "dec %0\n\t"
        "jnz 1b\n\t"
      : "+r"(n)
      : "v"(a), "v"(b)
      : "zmm0", "zmm1", "zmm2", "zmm3", "zmm4", "zmm5", "zmm6", "zmm7", "zmm8", "zmm9", "zmm10", "zmm11",
        "zmm12", "zmm13", "zmm14", "zmm15", "zmm30", "zmm31", "cc");
  sink = (float)n;
  return NULL;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 1;
  if (threads < 1 || threads > 256) return 2;
  pthread_t tid[256];
  double best = 0;
  for (int run = 0; run < 5; ++run) {
    const double t0 = now_s();
    for (int i = 0; i < threads; ++i) pthread_create(&tid[i], NULL, spin, NULL);
    for (int i = 0; i < threads; ++i) pthread_join(tid[i], NULL);
    const double gflops = 64.0 * kAcc * (double)kIters * threads / (now_s() - t0) / 1e9;
    if (gflops > best) best = gflops;
  }
  printf("bf16_peak threads %d gflops %.1f\n", threads, best);
  return 0;
}
