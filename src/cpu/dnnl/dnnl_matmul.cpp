#include "cpu/dnnl/dnnl_matmul.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "core/layout.h"
#include "core/views.h"
#include "cpu/dnnl/dnnl_context.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/empty_cpu.h"

namespace tsr::kernels::onednn {

namespace {

using dnnl::memory;

// oneDNN's matmul takes at most this many dims (DNNL_MAX_NDIMS).
constexpr int64_t kMaxDims = DNNL_MAX_NDIMS;

memory::data_type data_type(tsr_dtype d) {
  switch (d) {
    case TSR_BFLOAT16: return memory::data_type::bf16;
    case TSR_FLOAT32: return memory::data_type::f32;
    default: fail(TSR_ERR_INTERNAL, "oneDNN matmul called for ", dtype_name(d));
  }
}

// t's descriptor with `ndims` dims (t's own, with leading size-1 dims
// added): dims t broadcasts (stride 0) get size 1, which is how oneDNN's
// matmul broadcasts (it takes a zero stride only in its slow reference
// kernel). A size-1 dim gets the stride a dense layout would give it.
memory::desc matmul_desc(const Tensor& t, int64_t ndims) {
  memory::dims dims(size_t(ndims), 1), strides(size_t(ndims), 0);
  const int64_t lead = ndims - t.ndim();
  int64_t extent = 1;  // elements spanned by the dims inside d
  for (int64_t d = t.ndim() - 1; d >= 0; --d) {
    const int64_t size = t.sizes()[d], stride = t.strides()[d];
    const bool single = size == 1 || stride == 0;
    dims[lead + d] = single ? 1 : size;
    strides[lead + d] = single ? extent : stride;
    if (!single) extent = std::max(extent, stride * size);
  }
  for (int64_t d = lead - 1; d >= 0; --d) strides[d] = extent;
  return memory::desc(dims, data_type(t.dtype()), strides);
}

// t with its broadcast dims cut to size 1, copied to contiguous memory.
Tensor dense_compact(const Tensor& t) {
  Shape sizes = t.sizes();
  Shape strides = t.strides();
  for (int64_t d = 0; d < t.ndim(); ++d)
    if (strides[d] == 0) sizes[d] = 1;
  return contiguous_copy(make_view(t, sizes, strides, t.storage_offset()), t.dtype());
}

// The one implementation taken: oneDNN 2.6's brgemm matmul for AVX512_BF16.
// It splits the work over threads by batch, rows and columns only, never
// over K, so every element is summed in one order whatever the thread count
// (checked on 1, 2, 3, 4 and 7 threads, 2-D products up to K = 1e6,
// transposed operands, and batched ones: tests/test_matmul_lowp.c). oneDNN's
// jit gemm (taken for operands whose rows are not dense) may split K over
// threads, its AMX kernels may too, and its reference kernel is slow:
// operands such kernels would get are copied dense first, and where no
// brgemm kernel remains (a CPU without AVX512_BF16) the caller computes in
// float32.
bool accepted(const dnnl::matmul::primitive_desc& pd) {
  return std::string_view(pd.impl_info_str()) == "brg:avx512_core_bf16";
}

std::optional<dnnl::matmul::primitive_desc> find(const memory::desc& a, const memory::desc& b,
                                                  const memory::desc& bias, const memory::desc& out) {
  try {
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, bias, out), attr(), engine());
    do {
      if (accepted(pd)) return pd;
    } while (pd.next_impl());
  } catch (const dnnl::error&) {
    // No implementation at all for these descriptors.
  }
  return std::nullopt;
}

}  // namespace

bool matmul_bf16(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias) {
  const int64_t nd = out.ndim();
  if (nd > kMaxDims) {
    // Beyond oneDNN's dims: one product per index of the first batch dim.
    for (int64_t i = 0; i < out.sizes()[0]; ++i)
      if (!matmul_bf16(views::select(out, 0, i), views::select(a, 0, i), views::select(b, 0, i), bias))
        return false;
    return true;
  }
  bool ok = false;
  run("matmul", [&] {
    const memory::desc od = matmul_desc(out, nd);
    const memory::desc biasd = bias.defined() ? matmul_desc(bias, nd) : memory::desc();
    Tensor A = a, B = b;
    std::optional<dnnl::matmul::primitive_desc> pd = find(matmul_desc(A, nd), matmul_desc(B, nd), biasd, od);
    if (!pd) {
      A = dense_compact(a);
      B = dense_compact(b);
      pd = find(matmul_desc(A, nd), matmul_desc(B, nd), biasd, od);
    }
    if (!pd) return;
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, mem(pd->src_desc(), A)},
                                         {DNNL_ARG_WEIGHTS, mem(pd->weights_desc(), B)},
                                         {DNNL_ARG_DST, mem(pd->dst_desc(), out)}};
    if (bias.defined()) args.emplace(DNNL_ARG_BIAS, mem(pd->bias_desc(), bias));
    // The scratchpad (oneDNN's copies of operand blocks, 130 KiB a thread)
    // from tessera's caching allocator: a fresh one each call (execute()'s)
    // would be mapped and faulted in anew.
    const memory::desc sd = pd->scratchpad_desc();
    Tensor scratch;
    if (sd.get_size() > 0) {
      scratch = empty_cpu({int64_t(sd.get_size())}, TSR_UINT8);
      args.emplace(DNNL_ARG_SCRATCHPAD, memory(sd, engine(), scratch.data_ptr()));
    }
    dnnl::matmul(*pd).execute(stream(), args);
    stream().wait();
    ok = true;
  });
  return ok;
}

}  // namespace tsr::kernels::onednn
