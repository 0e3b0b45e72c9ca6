// A primitive: one op family in one place, the model being mlx's
// `Primitive` (mlx/primitives.h). An instance holds the op's non-tensor
// arguments (a dim, a scalar, a view's geometry, a random offset); the class
// gives its names, its shape/dtype rule, its forward per device and its
// backward (a vector-Jacobian product written with other primitives, so that
// it is itself differentiable for create_graph).
//
// Everything that runs an op goes through autograd::run (autograd/run.h):
// forward, then the checkpoint tape, then the autograd node. An autograd
// node is a primitive plus the tensors its backward asked to keep; replaying
// a checkpoint region is calling forward again on the region's inputs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/device_kernels.h"
#include "core/tensor.h"

namespace tsr::prim {

using Tensors = TensorList;  // core/tensor.h: up to 4 inline

// Sizes, dtype and device of a tensor, without its data. Shape rules
// (output_meta) give sizes and dtype; output_description adds the device.
struct TensorMeta {
  Shape sizes;
  tsr_dtype dtype;
  Device device{};  // {0, 0} until output_description fills it
  bool operator==(const TensorMeta&) const = default;
};
inline TensorMeta meta_of(const Tensor& t) { return {t.sizes(), t.dtype(), t.device()}; }

// Which inputs require grad, by input (save_spec's argument): inline for
// up to 8 inputs.
using RequiresGrad = SmallVector<bool, 8>;

// Which inputs and outputs a backward reads (bit i = input/output i).
struct SaveSpec {
  uint32_t inputs = 0;
  uint32_t outputs = 0;
};

// What a backward sees. Saved tensors come back through input()/output()
// (TSR_ERR_AUTOGRAD if freed by an earlier backward or modified in place
// since); every input's sizes and dtype are always known.
class BackwardContext {
 public:
  virtual ~BackwardContext() = default;
  // Gradient of output i (the engine fills zeros for outputs nobody used).
  virtual const Tensor& grad(size_t i) const = 0;
  virtual Tensor input(size_t i) const = 0;
  virtual Tensor output(size_t i) const = 0;
  virtual const TensorMeta& input_meta(size_t i) const = 0;
  virtual bool needs_input_grad(size_t i) const = 0;
};

class Primitive {
 public:
  virtual ~Primitive() = default;

  // PyTorch's grad_fn class name ("MulBackward0"): tsr_grad_fn_name.
  virtual const char* name() const = 0;
  // The aten op name ("mul", "matmul", "dropout"): checkpoint policies and
  // the profiler select primitives by it.
  virtual const char* op() const = 0;

  // The shape/dtype rule: what forward returns for these inputs, without
  // running it. Throws the op's argument errors.
  virtual std::vector<TensorMeta> output_meta(const Tensors& inputs) const = 0;
  // The whole output description: output_meta, on the inputs' device (every
  // primitive's outputs live where its inputs are).
  std::vector<TensorMeta> output_description(const Tensors& inputs) const;
  // Where the outputs live: the inputs' device, except for a transfer.
  virtual Device output_device(const Tensors& inputs) const;

  // Forward on the inputs' device; one entry per device type. Inputs are
  // already checked to share one device.
  Tensors forward(const Tensors& inputs);
  virtual Tensors eval_cpu(const Tensors& inputs) = 0;
  // Every other device: the device's kernels (DeviceBackend::kernels()),
  // reached through src/device/'s tensor-level helpers. The default says
  // the op has no kernel on that device (TSR_ERR_UNSUPPORTED).
  virtual Tensors eval_device(const Tensors& inputs, DeviceKernels& kernels);

  // Input gradients (one per input; undefined where none flows or
  // needs_input_grad is false). Uses ops, so it records history under
  // create_graph. The default says the op is not differentiable.
  virtual Tensors backward(const BackwardContext& ctx);

  // Tensors the backward will read, given which inputs require grad.
  virtual SaveSpec save_spec(const RequiresGrad& input_requires_grad) const { return {}; }
  // True when torch keeps a non-tensor value for backward that a backward
  // frees (mul by a Python scalar saves it as a tensor): a second backward
  // without retain_graph then fails as for a freed tensor.
  virtual bool saves_scalar() const { return false; }
  // Index of the input written in place (its output 0 is that tensor), or -1.
  virtual int inplace_input() const { return -1; }
  // True when output 0 shares the storage of input 0 (a view).
  virtual bool is_view() const { return false; }
  // Random primitives remember the generator position (Philox seed and
  // offset) their first forward started from, so running forward again
  // draws the same numbers: a checkpoint replay with preserve_rng_state.
  // Replay without it calls forget_random_state first, and forward then
  // draws fresh numbers from the generator.
  virtual bool is_random() const { return false; }
  virtual void forget_random_state() {}
  // The profiler's event name for a forward run ("aten::mul"; a custom
  // function's own name).
  virtual std::string profiler_name() const { return std::string("aten::") + op(); }
  // False: the node passes undefined gradients for unused outputs instead
  // of zeros (torch's ctx.set_materialize_grads(False)).
  virtual bool materialize_grads() const { return true; }
  // Frees state a backward reads that is not a saved input or output (a
  // custom function's saved intermediates), with the node's saved tensors.
  virtual void release_saved_state() {}
};

using PrimitivePtr = std::shared_ptr<Primitive>;

}  // namespace tsr::prim
