// C API: autograd (autograd.h).
#include <tessera/autograd.h>
#include "device/any_device.h"

#include "engine/backward.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "capi/barrier.h"
#include "capi/handles.h"
#include "cpu/kernels/copy.h"

using namespace tsr;
using namespace tsr::capi;

TSR_EXTERN tsr_status tsr_set_requires_grad(tsr_tensor* t, bool flag) {
  return guarded([&] { autograd::set_requires_grad(tensor_of(t), flag); });
}
TSR_EXTERN bool tsr_requires_grad(const tsr_tensor* t) {
  return guarded_value<bool>(false, [&] { return autograd::requires_grad(tensor_of(t)); });
}
TSR_EXTERN bool tsr_is_leaf(const tsr_tensor* t) {
  return guarded_value<bool>(false, [&] { return autograd::is_leaf(tensor_of(t)); });
}
TSR_EXTERN const char* tsr_grad_fn_name(const tsr_tensor* t) {
  return guarded_value<const char*>(nullptr, [&]() -> const char* {
    const auto& fn = autograd::grad_fn(tensor_of(t));
    return fn ? fn->name() : nullptr;
  });
}
TSR_EXTERN int64_t tsr_version(const tsr_tensor* t) {
  return guarded_value<int64_t>(-1, [&] { return tensor_of(t).version(); });
}

TSR_EXTERN tsr_status tsr_grad(const tsr_tensor* t, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    auto* meta = x.impl()->autograd.get();
    if (meta && meta->grad.defined()) emit(out, meta->grad);
    else *out = nullptr;
  });
}

TSR_EXTERN tsr_status tsr_set_grad(tsr_tensor* t, tsr_tensor* grad) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    if (grad) {
      const Tensor& g = grad->tensor;
      TSR_CHECK(g.sizes() == x.sizes(), TSR_ERR_SHAPE_MISMATCH, "assigned grad has data of a different "
                "size: grad sizes ", g.sizes(), ", tensor sizes ", x.sizes());
      TSR_CHECK(g.dtype() == x.dtype(), TSR_ERR_DTYPE_MISMATCH, "assigned grad has data of a different "
                "type: ", dtype_name(g.dtype()), " vs ", dtype_name(x.dtype()));
      auto& meta = x.impl()->autograd;
      if (!meta) meta = std::make_shared<autograd::AutogradMeta>();
      meta->grad = g;
    } else if (auto* meta = x.impl()->autograd.get()) {
      meta->grad = Tensor();
    }
  });
}

TSR_EXTERN tsr_status tsr_zero_grad(tsr_tensor* t) {
  return guarded([&] {
    auto* meta = tensor_of(t).impl()->autograd.get();
    if (meta && meta->grad.defined()) {
      device::fill_any(meta->grad, 0.0);
      meta->grad.bump_version();
    }
  });
}

TSR_EXTERN tsr_status tsr_backward(tsr_tensor* root, const tsr_tensor* gradient, bool retain_graph) {
  return guarded([&] {
    const Tensor& r = tensor_of(root, "root");
    engine::backward(r, gradient ? gradient->tensor : Tensor(), retain_graph);
  });
}

TSR_EXTERN tsr_status tsr_autograd_grad(int64_t n_outputs, tsr_tensor* const* outputs,
                                        const tsr_tensor* const* grad_outputs, int64_t n_inputs,
                                        tsr_tensor* const* inputs, bool retain_graph,
                                        bool create_graph, bool allow_unused, tsr_tensor** grads) {
  return guarded([&] {
    TSR_CHECK(n_outputs >= 1 && n_inputs >= 1, TSR_ERR_INVALID_ARGUMENT,
              "tsr_autograd_grad: n_outputs and n_inputs must be >= 1, got ", n_outputs, " and ", n_inputs);
    require(outputs, "outputs");
    require(inputs, "inputs");
    require(grads, "grads");
    std::vector<Tensor> outs, ins, gouts;
    for (int64_t i = 0; i < n_outputs; ++i) {
      outs.push_back(tensor_of(outputs[i], "outputs[i]"));
      gouts.push_back(grad_outputs && grad_outputs[i] ? grad_outputs[i]->tensor : Tensor());
    }
    for (int64_t i = 0; i < n_inputs; ++i) ins.push_back(tensor_of(inputs[i], "inputs[i]"));
    std::vector<Tensor> result = engine::grad(outs, ins, gouts, retain_graph, create_graph, allow_unused);
    // Boxed all first, written last: a failed allocation leaves grads untouched.
    std::vector<std::unique_ptr<tsr_tensor>> boxes;
    for (Tensor& g : result) boxes.push_back(g.defined() ? std::make_unique<tsr_tensor>(std::move(g)) : nullptr);
    for (int64_t i = 0; i < n_inputs; ++i) grads[i] = boxes[i].release();
  });
}

TSR_EXTERN tsr_status tsr_detach(const tsr_tensor* t, tsr_tensor** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    emit(out, autograd::detach(x));
  });
}

TSR_EXTERN bool tsr_is_grad_enabled(void) { return autograd::is_grad_enabled(); }
TSR_EXTERN bool tsr_set_grad_enabled(bool enabled) { return autograd::set_grad_enabled(enabled); }
