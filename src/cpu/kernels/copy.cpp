#include "cpu/kernels/copy.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/factory.h"
#include "core/layout.h"
#include "cpu/kernels/strided_loop.h"
#include "cpu/kernels/transpose_tiles.h"

namespace tsr::kernels {

namespace {

template <typename To, typename From>
void convert_run(char* d, int64_t ds, const char* s, int64_t ss, int64_t n) {
  if constexpr (std::is_same_v<To, From>) {
    if (ds == int64_t(sizeof(To)) && ss == int64_t(sizeof(To))) {
      std::memcpy(d, s, size_t(n) * sizeof(To));
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    From v;
    std::memcpy(&v, s + i * ss, sizeof(From));
    To w = convert<To>(v);
    std::memcpy(d + i * ds, &w, sizeof(To));
  }
}

// Copies a 2-D transpose: rows along dim a (dst-contiguous, dsa == sizeof T),
// columns along dim b (src-contiguous, ssb == sizeof T); dsb/ssa are the
// other byte strides. Blocks of B x B elements, micro-tiles of M x M inside,
// a plain loop for the ragged edges.
template <typename T, int M, typename Micro>
void copy_tile_micro(char* d, const char* s, int64_t na, int64_t nb, int64_t dsb, int64_t ssa,
                     Micro micro) {
  constexpr int64_t B = 128;  // a 128x128 block of both sides stays in L2
  constexpr int64_t es = sizeof(T);
  auto plain = [&](int64_t a0, int64_t ae, int64_t b0, int64_t be) {
    for (int64_t b = b0; b < be; ++b)
      for (int64_t a = a0; a < ae; ++a) std::memcpy(d + a * es + b * dsb, s + a * ssa + b * es, es);
  };
  for (int64_t a0 = 0; a0 < na; a0 += B)
    for (int64_t b0 = 0; b0 < nb; b0 += B) {
      const int64_t ae = std::min(na, a0 + B), be = std::min(nb, b0 + B);
      const int64_t am = a0 + (ae - a0) / M * M, bm = b0 + (be - b0) / M * M;
      for (int64_t b = b0; b < bm; b += M)
        for (int64_t a = a0; a < am; a += M) micro(d + a * es + b * dsb, dsb, s + a * ssa + b * es, ssa);
      plain(am, ae, b0, be);
      plain(a0, am, bm, be);
    }
}

template <typename T>
void copy_tile(char* d, const char* s, int64_t na, int64_t nb, int64_t dsb, int64_t ssa) {
#if defined(__x86_64__)
  if constexpr (sizeof(T) == 4) {
    static const bool avx = __builtin_cpu_supports("avx");
    if (avx)
      return copy_tile_micro<T, 8>(d, s, na, nb, dsb, ssa, micro_tile_avx_8x8);
    return copy_tile_micro<T, 4>(d, s, na, nb, dsb, ssa, micro_tile_sse2_4x4);
  }
#endif
  constexpr int M = sizeof(T) == 8 ? 4 : 8;
  copy_tile_micro<T, M>(d, s, na, nb, dsb, ssa, micro_tile<T, M>);
}

// Same-dtype copy whose innermost dst dim is not innermost in src: iterate
// the remaining dims and copy 2-D tiles over (dst-inner, src-inner). `g` is
// the copy's geometry (dst operand 0), shared with the plain loop.
bool try_tiled_copy(const LoopGeometry<2>& g, const Tensor& dst, const Tensor& src) {
  const int64_t es = dst.element_size();
  if (g.sizes.size() < 2 || g.strides[0][0] != es || g.strides[1][0] == es) return false;
  size_t b = 1;
  while (b < g.sizes.size() && g.strides[1][b] != es) ++b;
  if (b == g.sizes.size() || g.sizes[0] < 16 || g.sizes[b] < 16) return false;
  // Outer dims: all but 0 and b, after a size-1 leading dim that stands for
  // for_each_run's inner run (one tile per call).
  LoopGeometry<2> outer{{1}, {{{0}, {0}}}};
  for (size_t d = 1; d < g.sizes.size(); ++d)
    if (d != b) {
      outer.sizes.push_back(g.sizes[d]);
      for (int k = 0; k < 2; ++k) outer.strides[k].push_back(g.strides[k][d]);
    }
  const int64_t na = g.sizes[0], nb = g.sizes[b];
  // The checks above made dst's stride on dim 0 and src's on dim b == es.
  const int64_t dsb = g.strides[0][b], ssa = g.strides[1][0];
  auto tile = [&](char** p, const int64_t*, int64_t) {
    switch (es) {
      case 1: copy_tile<uint8_t>(p[0], p[1], na, nb, dsb, ssa); break;
      case 2: copy_tile<uint16_t>(p[0], p[1], na, nb, dsb, ssa); break;
      case 4: copy_tile<uint32_t>(p[0], p[1], na, nb, dsb, ssa); break;
      default: copy_tile<uint64_t>(p[0], p[1], na, nb, dsb, ssa); break;
    }
  };
  for_each_run<2>(outer, {static_cast<char*>(dst.data_ptr()), static_cast<char*>(src.data_ptr())},
                  tile);
  return true;
}

}  // namespace

void copy_strided(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  auto g = make_geometry<2>(dst.sizes(), {byte_strides(dst), byte_strides(src)});
  if (dst.dtype() == src.dtype() && try_tiled_copy(g, dst, src)) return;
  std::array<char*, 2> base{static_cast<char*>(dst.data_ptr()), static_cast<char*>(src.data_ptr())};
  dispatch_all(dst.dtype(), [&]<typename To>() {
    dispatch_all(src.dtype(), [&]<typename From>() {
      for_each_run<2>(g, base, [](char** p, const int64_t* s, int64_t n) {
        convert_run<To, From>(p[0], s[0], p[1], s[1], n);
      });
    });
  });
}

void fill(const Tensor& dst, double value) {
  if (dst.numel() == 0) return;
  auto g = make_geometry<1>(dst.sizes(), {byte_strides(dst)});
  dispatch_all(dst.dtype(), [&]<typename T>() {
    const T v = convert<T>(value);
    for_each_run<1>(g, {static_cast<char*>(dst.data_ptr())},
                    [&](char** p, const int64_t* s, int64_t n) {
                      for (int64_t i = 0; i < n; ++i) std::memcpy(p[0] + i * s[0], &v, sizeof(T));
                    });
  });
}

Tensor contiguous_copy(const Tensor& t, tsr_dtype dtype) {
  Tensor out = empty(t.sizes(), dtype, TSR_CONTIGUOUS_FORMAT, t.device());
  copy_strided(out, t);
  return out;
}

Tensor contiguous_or_self(const Tensor& t) {
  return is_contiguous_strides(t.sizes(), t.strides()) ? t : contiguous_copy(t, t.dtype());
}

bool has_internal_overlap(const Tensor& t) {
  // ATen's has_internal_overlap says Yes only for a dim of size > 1 with
  // stride 0; every other layout is No or TooHard, and in-place ops refuse
  // only Yes. Anything stricter refuses writes torch allows, such as
  // as_strided((2, 3), (3, 2)), whose elements 0 2 4 / 3 5 7 are distinct
  // although no stride exceeds the span of the smaller ones.
  for (int64_t i = 0; i < t.ndim(); ++i)
    if (t.sizes()[i] > 1 && t.strides()[i] == 0) return true;
  return false;
}

bool partial_overlap(const Tensor& a, const Tensor& b) {
  if (a.is_same(b) || a.numel() == 0 || b.numel() == 0) return false;
  if (a.storage().get() != b.storage().get()) return false;
  if (!is_non_overlapping_and_dense(a.sizes(), a.strides()) ||
      !is_non_overlapping_and_dense(b.sizes(), b.strides()))
    return false;  // ATen: TooHard, allowed
  const int64_t ab = a.storage_offset() * a.element_size(), ae = ab + a.nbytes();
  const int64_t bb = b.storage_offset() * b.element_size(), be = bb + b.nbytes();
  if (ab == bb && ae == be) return a.strides() != b.strides();  // same bytes: Full unless reordered
  return ab < be && bb < ae;
}

bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0) return false;
  if (a.storage().get() != b.storage().get()) return false;
  auto range = [](const Tensor& t) {
    int64_t lo = t.storage_offset() * t.element_size();
    int64_t hi = lo + storage_extent(t.sizes(), t.strides()) * t.element_size();
    return std::pair{lo, hi};
  };
  auto [alo, ahi] = range(a);
  auto [blo, bhi] = range(b);
  return alo < bhi && blo < ahi;
}

}  // namespace tsr::kernels
