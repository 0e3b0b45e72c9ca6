#include "cpu/kernels/transposed_binary.h"

#include <algorithm>

#include "cpu/kernels/transpose_tiles.h"

namespace tsr::kernels {

#if defined(__x86_64__)
namespace {

constexpr int64_t kBlock = 64;  // elements: 64x64 blocks keep a block of t and of o in L1/L2

template <simd::Bin Op, typename T>
inline T scalar_op(T x, T y) {
  if constexpr (Op == simd::Bin::Add) return x + y;
  else if constexpr (Op == simd::Bin::Sub) return x - y;
  else if constexpr (Op == simd::Bin::Mul) return x * y;
  else return x / y;
}

template <simd::Bin Op>
__attribute__((target("avx"))) inline __m256 vector_op(__m256 x, __m256 y) {
  if constexpr (Op == simd::Bin::Add) return _mm256_add_ps(x, y);
  else if constexpr (Op == simd::Bin::Sub) return _mm256_sub_ps(x, y);
  else if constexpr (Op == simd::Bin::Mul) return _mm256_mul_ps(x, y);
  else return _mm256_div_ps(x, y);
}
template <simd::Bin Op>
__attribute__((target("avx"))) inline __m256d vector_op(__m256d x, __m256d y) {
  if constexpr (Op == simd::Bin::Add) return _mm256_add_pd(x, y);
  else if constexpr (Op == simd::Bin::Sub) return _mm256_sub_pd(x, y);
  else if constexpr (Op == simd::Bin::Mul) return _mm256_mul_pd(x, y);
  else return _mm256_div_pd(x, y);
}

// o (n1 rows of n0), u like o, t stored n0 rows of n1; strides in elements.
template <typename T, simd::Bin Op, bool Rhs>
__attribute__((target("avx"))) void fused(T* o, int64_t lo, const T* u, int64_t lu, const T* t, int64_t lt,
                                          int64_t n0, int64_t n1) {
  constexpr int64_t M = sizeof(T) == 4 ? 8 : 4;  // tile side: one AVX register per tile row
  auto combine = [](T x, T y) { return Rhs ? scalar_op<Op>(x, y) : scalar_op<Op>(y, x); };
  const int64_t m1 = n1 / M * M, m0 = n0 / M * M;  // the part whole tiles cover
  for (int64_t i0 = 0; i0 < m1; i0 += kBlock)
    for (int64_t j0 = 0; j0 < m0; j0 += kBlock) {
      const int64_t ie = std::min(m1, i0 + kBlock), je = std::min(m0, j0 + kBlock);
      for (int64_t i = i0; i < ie; i += M)
        for (int64_t j = j0; j < je; j += M) {
          if constexpr (sizeof(T) == 4) {
            __m256 c[8];
            transpose_regs_avx_8x8(t + j * lt + i, lt, c);
            for (int k = 0; k < 8; ++k) {
              const __m256 x = _mm256_loadu_ps(u + (i + k) * lu + j);
              _mm256_storeu_ps(o + (i + k) * lo + j, Rhs ? vector_op<Op>(x, c[k]) : vector_op<Op>(c[k], x));
            }
          } else {
            __m256d c[4];
            transpose_regs_avx_4x4_64(t + j * lt + i, lt, c);
            for (int k = 0; k < 4; ++k) {
              const __m256d x = _mm256_loadu_pd(u + (i + k) * lu + j);
              _mm256_storeu_pd(o + (i + k) * lo + j, Rhs ? vector_op<Op>(x, c[k]) : vector_op<Op>(c[k], x));
            }
          }
        }
    }
  // The ragged right columns and bottom rows, element by element.
  for (int64_t i = 0; i < n1; ++i)
    for (int64_t j = i < m1 ? m0 : 0; j < n0; ++j) o[i * lo + j] = combine(u[i * lu + j], t[j * lt + i]);
}

template <typename T, bool Rhs>
bool dispatch_op(simd::Bin op, T* o, int64_t lo, const T* u, int64_t lu, const T* t, int64_t lt, int64_t n0,
                 int64_t n1) {
  switch (op) {
    case simd::Bin::Add: fused<T, simd::Bin::Add, Rhs>(o, lo, u, lu, t, lt, n0, n1); return true;
    case simd::Bin::Sub: fused<T, simd::Bin::Sub, Rhs>(o, lo, u, lu, t, lt, n0, n1); return true;
    case simd::Bin::Mul: fused<T, simd::Bin::Mul, Rhs>(o, lo, u, lu, t, lt, n0, n1); return true;
    case simd::Bin::Div: fused<T, simd::Bin::Div, Rhs>(o, lo, u, lu, t, lt, n0, n1); return true;
    default: return false;
  }
}

template <typename T>
bool typed(simd::Bin op, char* o, int64_t ldo, const char* u, int64_t ldu, const char* t, int64_t ldt,
           int64_t n0, int64_t n1, bool rhs) {
  constexpr int64_t E = sizeof(T);
  if (ldo % E || ldu % E || ldt % E) return false;
  auto* O = reinterpret_cast<T*>(o);
  auto* U = reinterpret_cast<const T*>(u);
  auto* Tt = reinterpret_cast<const T*>(t);
  return rhs ? dispatch_op<T, true>(op, O, ldo / E, U, ldu / E, Tt, ldt / E, n0, n1)
             : dispatch_op<T, false>(op, O, ldo / E, U, ldu / E, Tt, ldt / E, n0, n1);
}

}  // namespace
#endif

bool fused_transposed_binary(simd::Bin op, int64_t es, char* o, int64_t ldo, const char* u, int64_t ldu,
                             const char* t, int64_t ldt, int64_t n0, int64_t n1, bool t_is_rhs) {
#if defined(__x86_64__)
  static const bool avx = __builtin_cpu_supports("avx");
  if (!avx) return false;
  if (es == 4) return typed<float>(op, o, ldo, u, ldu, t, ldt, n0, n1, t_is_rhs);
  if (es == 8) return typed<double>(op, o, ldo, u, ldu, t, ldt, n0, n1, t_is_rhs);
#else
  (void)op, (void)es, (void)o, (void)ldo, (void)u, (void)ldu, (void)t, (void)ldt, (void)n0, (void)n1,
      (void)t_is_rhs;
#endif
  return false;
}

}  // namespace tsr::kernels
