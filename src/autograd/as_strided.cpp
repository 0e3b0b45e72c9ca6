#include "autograd/as_strided.h"

#include <algorithm>

#include "autograd/run.h"
#include "core/layout.h"
#include "core/views.h"
#include "device/any_device.h"

namespace tsr::autograd {

using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

int64_t Geometry::end() const { return offset + storage_extent(sizes, strides); }

Geometry geometry_of(const Tensor& t) { return {t.sizes(), t.strides(), t.storage_offset()}; }

namespace {

// PyTorch's as_strided_backward: the gradient is scattered into a buffer
// covering both the input's and the output's storage span through the
// output geometry (overlaps accumulate), then read back through the input
// geometry; where the input itself reaches one element several times, each
// reach gets the element's gradient divided by their count.
class AsStridedScatter final : public prim::Primitive {
 public:
  AsStridedScatter(Geometry in, Geometry out) : in_(std::move(in)), out_(std::move(out)) {}
  const char* name() const override { return "AsStridedScatterBackward0"; }
  const char* op() const override { return "as_strided_backward"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{in_.sizes, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override { return scatter(in[0]); }
  // The same steps through the device's kernels: the accumulations into
  // overlapping geometries are race-free there (device/accumulate.h).
  Tensors eval_device(const Tensors& in, DeviceKernels&) override { return scatter(in[0]); }

 private:
  Tensors scatter(const Tensor& grad) const {
    const tsr_dtype dtype = grad.dtype();
    const int64_t base = std::min(in_.offset, out_.offset);
    const int64_t span = std::max(in_.end(), out_.end()) - base;
    Tensor buffer = device::zeros_on({span}, dtype, grad.device());
    device::add_into_any(make_view(buffer, out_.sizes, out_.strides, out_.offset - base), grad, 1.0);
    Tensor result =
        device::contiguous_copy_any(make_view(buffer, in_.sizes, in_.strides, in_.offset - base), dtype);
    if (!is_non_overlapping_and_dense(in_.sizes, in_.strides)) {
      Tensor count = device::zeros_on({span}, dtype, grad.device());
      Tensor one = device::zeros_on({}, dtype, grad.device());
      device::fill_any(one, 1.0);
      device::add_into_any(make_view(count, in_.sizes, in_.strides, in_.offset - base),
                           views::expand(one, in_.sizes), 1.0);
      result = device::divide_any(result, make_view(count, in_.sizes, in_.strides, in_.offset - base));
    }
    return {result};
  }

  Geometry in_, out_;
};

class AsStrided final : public prim::Primitive {
 public:
  // in: the input's geometry when the op ran (backward needs no data).
  AsStrided(Geometry in, Geometry out) : in_(std::move(in)), out_(std::move(out)) {}
  const char* name() const override { return "AsStridedBackward0"; }
  const char* op() const override { return "as_strided"; }
  bool is_view() const override { return true; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override { return {{out_.sizes, in[0].dtype()}}; }
  Tensors eval_cpu(const Tensors& in) override {
    return {views::as_strided(in[0], out_.sizes, out_.strides, out_.offset)};
  }
  // Geometry only: the same on every device.
  Tensors eval_device(const Tensors& in, DeviceKernels&) override { return eval_cpu(in); }
  Tensors backward(const BackwardContext& ctx) override {
    return {run1<AsStridedScatter>({ctx.grad(0)}, in_, out_)};
  }

 private:
  Geometry in_, out_;
};

}  // namespace

prim::PrimitivePtr make_as_strided(Geometry in, Geometry out) {
  return std::make_shared<AsStrided>(std::move(in), std::move(out));
}

}  // namespace tsr::autograd
