// Sum, Max and Min over args.inner (reduce.cpp's sum/mean/max_dim,
// minmax.cpp's min_dim, extrema.cpp's amax/amin) as phase
// functors (block_rows.cuh): each thread reduces its strided share of row
// r, then the partials combine. Integer sums (wrapping, so associative)
// and Max/Min are bit for bit the CPU's however the row is split; floating
// sums accumulate in double, so they differ from the CPU's (float32 summed
// in float with ATen's cascade) only in rounding.
#pragma once

#include <cstdint>

#include "core/device_kernels.h"
#include "core/host_device.h"
#include "kernels/block_rows.cuh"
#include "kernels/dtype_access.cuh"
#include "kernels/element_math.cuh"
#include "kernels/offset_calc.cuh"

namespace tsr::gpu {

// A thread's share of a row. Sum: v is the sum (double for floating inputs,
// int64 for integers and bool), idx unused. Max: v is the first maximum of
// the share, idx its element index in the row, -1 for a thread that had
// no element (a block wider than the row).
struct ReducePartial {
  Wide v;
  int64_t idx;
};

TSR_HOST_DEVICE inline bool wide_is_nan(const Wide& w) { return w.is_float && w.f != w.f; }
TSR_HOST_DEVICE inline bool wide_greater(const Wide& a, const Wide& b) {
  return a.is_float ? a.f > b.f : a.i > b.i;
}

// Max's combine, equal to the CPU's serial scan whatever the shares: the
// CPU's result is the first NaN if the row has one, else the first element
// equal to the greatest (ties, -0 == +0 included, go to the smaller index).
// Both rules compare indices, not the order a tree happens to combine in,
// so the combine is associative and commutative.
// Min's is the same with the comparison reversed (the CPU's min is max of
// the order-reversed values, NaN still winning).
template <bool kMin = false>
TSR_HOST_DEVICE inline ReducePartial max_combine(const ReducePartial& a, const ReducePartial& b) {
  if (a.idx < 0) return b;
  if (b.idx < 0) return a;
  const bool a_nan = wide_is_nan(a.v), b_nan = wide_is_nan(b.v);
  if (a_nan != b_nan) return a_nan ? a : b;
  if (!a_nan) {
    if (kMin ? wide_greater(b.v, a.v) : wide_greater(a.v, b.v)) return a;
    if (kMin ? wide_greater(a.v, b.v) : wide_greater(b.v, a.v)) return b;
  }
  return a.idx < b.idx ? a : b;
}

// Op is a template argument, not a field: a kernel that only sums needs no
// registers for the max's index and compares (on sm_90 the general kernel
// took 64 registers, which halved the threads an SM keeps resident).
template <typename Index, ReduceKernel Op>
struct ReduceFn {
  using Partial = ReducePartial;
  static constexpr int kPasses = 1;

  OffsetCalc<3, Index> outer;  // out, indices, in
  OffsetCalc<1, Index> inner;  // in
  int64_t inner_numel;
  void* out;
  tsr_dtype out_dtype;
  int64_t* indices;
  const void* in;
  tsr_dtype in_dtype;
  double scale;

  // Element j's offset from the row's first element.
  TSR_HOST_DEVICE int64_t offset(int64_t j) const {
    return inner.ndim == 1 ? j * int64_t(inner.strides[0][0]) : int64_t(inner.get(j).v[0]);
  }

  TSR_HOST_DEVICE Partial partial(int64_t r, int, const BlockThread& t, const Partial*) const {
    const int64_t base = int64_t(outer.get(r).v[2]);
    // The common dtypes load through a compile-time dtype, one typed load
    // each, so scan_share's kShareLoads loads overlap; the rest switch per
    // element, one load at a time.
    switch (in_dtype) {
      case TSR_FLOAT32: return share_of<TSR_FLOAT32>(base, t);
      case TSR_FLOAT64: return share_of<TSR_FLOAT64>(base, t);
      case TSR_FLOAT16: return share_of<TSR_FLOAT16>(base, t);
      case TSR_BFLOAT16: return share_of<TSR_BFLOAT16>(base, t);
      case TSR_INT32: return share_of<TSR_INT32>(base, t);
      case TSR_INT64: return share_of<TSR_INT64>(base, t);
      default: return share<1>(t, [&](int64_t j) { return load_wide(in, base + offset(j), in_dtype); });
    }
  }

  // One reduced dim (the usual case) gets a loop of its own, whose offsets
  // are a multiply: no branch between the loads scan_share issues.
  template <tsr_dtype D>
  TSR_HOST_DEVICE Partial share_of(int64_t base, const BlockThread& t) const {
    if (inner.ndim == 1) {
      const int64_t stride = int64_t(inner.strides[0][0]);
      return share(t, [&](int64_t j) { return load_wide(in, base + j * stride, D); });
    }
    return share(t, [&](int64_t j) { return load_wide(in, base + int64_t(inner.get(j).v[0]), D); });
  }

  // Thread t's share of a row, its elements given by load(j), kUnroll at a
  // time (scan_share).
  template <int kUnroll = kShareLoads, typename Load>
  TSR_HOST_DEVICE Partial share(const BlockThread& t, const Load& load) const {
    if constexpr (Op == ReduceKernel::Sum) {
      Wide acc = is_floating(in_dtype) ? wide_float(0.0) : wide_int(0);
      scan_share<kUnroll>(t.tid, inner_numel, t.nthreads, load, [&](const Wide& v, int64_t) {
        if (acc.is_float) acc.f += v.f;
        else acc.i = wrap_add(acc.i, v.i);
        return true;
      });
      return {acc, 0};
    } else {
      // The CPU's scan over this share: the first element, then a greater
      // (Min: smaller) one, until the first NaN (nothing after it can win).
      Partial best{wide_int(0), -1};
      scan_share<kUnroll>(t.tid, inner_numel, t.nthreads, load, [&](const Wide& v, int64_t j) {
        const bool nan = wide_is_nan(v);
        const bool better = Op == ReduceKernel::Min ? wide_greater(best.v, v) : wide_greater(v, best.v);
        if (best.idx < 0 || nan || better) {
          best = {v, j};
          if (nan) return false;
        }
        return true;
      });
      return best;
    }
  }

  TSR_HOST_DEVICE Partial combine(int, const Partial& a, const Partial& b) const {
    if constexpr (Op != ReduceKernel::Sum) {
      return max_combine<Op == ReduceKernel::Min>(a, b);
    } else {
      if (a.v.is_float) return {wide_float(a.v.f + b.v.f), 0};
      return {wide_int(wrap_add(a.v.i, b.v.i)), 0};
    }
  }

  // One write per row: thread 0's.
  TSR_HOST_DEVICE void finish(int64_t r, const BlockThread& t, const Partial* done) const {
    if (t.tid != 0) return;
    const auto o = outer.get(r);
    if constexpr (Op == ReduceKernel::Sum) {
      Wide acc = done[0].v;
      if (scale != 1.0) acc = wide_float((acc.is_float ? acc.f : double(acc.i)) * scale);
      store_wide(out, int64_t(o.v[0]), out_dtype, acc);
    } else {
      store_wide(out, int64_t(o.v[0]), out_dtype, done[0].v);
      if (indices) indices[int64_t(o.v[1])] = done[0].idx;
    }
  }
};

}  // namespace tsr::gpu
