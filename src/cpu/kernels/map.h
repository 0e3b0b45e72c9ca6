// Elementwise maps over strided, broadcast operands: out[i] = f(in0[i],
// in1[i], ...), each operand read through its own strides (0 on broadcast
// dims) in its own element type, f computing in compute_t (float for the
// 16-bit floats). The loops are strided_loop.h's (dims coalesced, ordered
// by the output's strides). Used by the nn kernels (activation, indexing's
// where); elementwise.cpp keeps its own specialised loops.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "core/factory.h"
#include "cpu/kernels/convert_simd.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/strided_loop.h"
#include "cpu/kernels/strided_split.h"

namespace tsr::kernels {

// Byte strides of t read as if expanded to `shape` (t broadcasts to it):
// 0 where t's dim is size 1 (or absent) and shape's is not.
inline Shape broadcast_byte_strides(const Tensor& t, const Shape& shape) {
  Shape st(shape.size(), 0);
  const size_t off = shape.size() - size_t(t.ndim());
  for (size_t i = 0; i < size_t(t.ndim()); ++i)
    st[off + i] = (t.sizes()[i] == 1 && shape[off + i] != 1) ? 0 : t.strides()[i] * t.element_size();
  return st;
}

// t in dtype d: t itself when it already is, else a converted copy that
// keeps t's layout (empty_like with preserve_format).
inline Tensor converted(const Tensor& t, tsr_dtype d) {
  if (t.dtype() == d) return t;
  Tensor out = empty_like(t, d, TSR_PRESERVE_FORMAT);
  copy_strided(out, t);
  return out;
}

// A fresh output of `shape` with the strides TensorIterator gives it for
// these (possibly broadcast) inputs.
inline Tensor new_output(const Shape& shape, const TensorRefs& inputs, tsr_dtype d) {
  // The output lives where the inputs do (run() has checked they agree).
  return empty_strided(shape, output_strides(shape, inputs), d, inputs.at(0)->device());
}

namespace detail {
template <typename T>
inline compute_t<T> load(const char* p) {
  return compute_t<T>(*reinterpret_cast<const T*>(p));
}

template <typename T>
inline constexpr bool is_16bit_float = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// n 16-bit floats to float and back with convert_simd.h's vectorized
// conversions (exact one way, round to nearest even the other, as Half's
// and BFloat16's own conversions).
inline void to_float_n(const Half* s, float* d, int64_t n) {
  half_to_float_n(reinterpret_cast<const uint16_t*>(s), d, n, false);
}
inline void to_float_n(const BFloat16* s, float* d, int64_t n) {
  bf16_to_float_n(reinterpret_cast<const uint16_t*>(s), d, n, false);
}
inline void from_float_n(const float* s, Half* d, int64_t n) {
  float_to_half_n(s, reinterpret_cast<uint16_t*>(d), n, false);
}
inline void from_float_n(const float* s, BFloat16* d, int64_t n) {
  float_to_bf16_n(s, reinterpret_cast<uint16_t*>(d), n, false);
}

// Dense runs of 16-bit floats whose f computes in float: converted in
// chunks (the same values as converting one element at a time, with the
// conversions vectorized).
template <typename Out, typename... In>
inline constexpr bool chunked_16bit = is_16bit_float<Out> && (is_16bit_float<In> && ...) && sizeof...(In) > 0;
}  // namespace detail

// out[i] = f(compute_t<In>(ins[k][i])...) stored as Out. Every input
// broadcasts to out's sizes; element types are given, not dispatched. f
// sees one element at a time and keeps no state, so the elements split
// across tsr_set_num_threads threads (parallel_for_each_run) with the same
// results on any count.
template <typename Out, typename... In, typename F>
void map(const Tensor& out, F&& f, const std::array<Tensor, sizeof...(In)>& ins) {
  constexpr size_t N = 1 + sizeof...(In);
  if (out.numel() == 0) return;
  const Shape& shape = out.sizes();
  std::array<Shape, N> strides;
  std::array<char*, N> base;
  strides[0] = byte_strides(out);
  base[0] = static_cast<char*>(out.data_ptr());
  for (size_t k = 0; k + 1 < N; ++k) {
    strides[k + 1] = broadcast_byte_strides(ins[k], shape);
    base[k + 1] = static_cast<char*>(ins[k].data_ptr());
  }
  auto g = make_geometry<N>(shape, strides);
  parallel_for_each_run<N>(g, base, out.numel(), [&](char** p, const int64_t* s, int64_t n) {
    [&]<size_t... K>(std::index_sequence<K...>) {
      constexpr int64_t sizes[N] = {int64_t(sizeof(Out)), int64_t(sizeof(In))...};
      bool dense = true;
      for (size_t k = 0; k < N; ++k) dense &= s[k] == sizes[k];
      if constexpr (detail::chunked_16bit<Out, In...>) {
        if (dense && std::is_same_v<std::invoke_result_t<F&, compute_t<In>...>, float>) {
          constexpr int64_t kChunk = 256;
          alignas(64) float fin[N - 1][kChunk], fo[kChunk];
          Out* o = reinterpret_cast<Out*>(p[0]);
          for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
            const int64_t m = std::min(kChunk, n - i0);
            (detail::to_float_n(reinterpret_cast<const In*>(p[K + 1]) + i0, fin[K], m), ...);
            for (int64_t j = 0; j < m; ++j) fo[j] = float(f(fin[K][j]...));
            detail::from_float_n(fo, o + i0, m);
          }
          return;
        }
      }
      if (dense) {  // unit strides: plain arrays the compiler can vectorise
        Out* o = reinterpret_cast<Out*>(p[0]);
        for (int64_t i = 0; i < n; ++i)
          o[i] = Out(f(compute_t<In>(reinterpret_cast<const In*>(p[K + 1])[i])...));
      } else {
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<Out*>(p[0] + i * s[0]) = Out(f(detail::load<In>(p[K + 1] + i * s[K + 1])...));
      }
    }(std::index_sequence_for<In...>{});
  });
}

namespace detail {
template <typename T, size_t>
using repeat = T;
}  // namespace detail

// The common case: every operand of one element type T.
template <typename T, size_t M, typename F>
void map_same(const Tensor& out, F&& f, const std::array<Tensor, M>& ins) {
  [&]<size_t... K>(std::index_sequence<K...>) {
    map<T, detail::repeat<T, K>...>(out, std::forward<F>(f), ins);
  }(std::make_index_sequence<M>{});
}

// c10's ScalarType name ('Float', 'Half', 'Long'), for torch's
// "\"kernel\" not implemented for 'Half'" messages.
inline const char* scalar_type_name(tsr_dtype d) {
  switch (d) {
    case TSR_UINT8: return "Byte";
    case TSR_INT8: return "Char";
    case TSR_INT16: return "Short";
    case TSR_INT32: return "Int";
    case TSR_INT64: return "Long";
    case TSR_FLOAT16: return "Half";
    case TSR_FLOAT32: return "Float";
    case TSR_FLOAT64: return "Double";
    case TSR_BOOL: return "Bool";
    case TSR_BFLOAT16: return "BFloat16";
    case TSR_UINT16: return "UInt16";
    case TSR_UINT32: return "UInt32";
    case TSR_UINT64: return "UInt64";
    case TSR_FLOAT8_E4M3FN: return "Float8_e4m3fn";
    case TSR_FLOAT8_E5M2: return "Float8_e5m2";
  }
  return "Unknown";
}

// Throws torch's "not implemented" error (TSR_ERR_DTYPE_MISMATCH) for what
// a kernel of torch 1.13's CPU backend does not take: `op` names the op,
// `kernel` torch's kernel as its message names it.
[[noreturn]] inline void not_implemented(const char* op, const char* kernel, tsr_dtype d) {
  fail(TSR_ERR_DTYPE_MISMATCH, op, ": \"", kernel, "\" not implemented for '", scalar_type_name(d),
       "' (", dtype_name(d) ? dtype_name(d) : "invalid", ")");
}

// float16, bfloat16, float32 and float64. torch 1.13's CPU kernels of
// transcendental functions lack float16; tessera follows torch 2.x there
// (issue 31): a Half element is loaded as float, computed in float
// (compute_t<Half>) and rounded once when stored.
template <typename Fn>
decltype(auto) dispatch_float_opmath(tsr_dtype d, const char* op, const char* kernel, Fn&& fn) {
  switch (d) {
    case TSR_FLOAT16: return fn.template operator()<Half>();
    case TSR_BFLOAT16: return fn.template operator()<BFloat16>();
    case TSR_FLOAT32: return fn.template operator()<float>();
    case TSR_FLOAT64: return fn.template operator()<double>();
    default: break;
  }
  not_implemented(op, kernel, d);
}

}  // namespace tsr::kernels
