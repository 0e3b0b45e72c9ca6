#include "autograd/run.h"

#include "autograd/checkpoint.h"
#include "autograd/primitive_node.h"
#include "autograd/rebase.h"
#include "primitive/op_names.h"

namespace tsr::autograd {

namespace {

// PyTorch's message for operands on two devices.
void check_same_device(const prim::Tensors& inputs) {
  const Tensor* first = nullptr;
  for (const Tensor& t : inputs) {
    if (!t.defined()) continue;
    if (!first) first = &t;
    else
      TSR_CHECK(t.device() == first->device(), TSR_ERR_DEVICE_MISMATCH,
                "Expected all tensors to be on the same device, but found at least two devices, ",
                device_name(first->device()), " and ", device_name(t.device()), "!");
  }
}

#ifdef TSR_CHECK_PRIMITIVES
// Debug builds hold every forward to its primitive's shape/dtype rule.
void check_output_meta(const prim::Primitive& p, const prim::Tensors& inputs,
                       const prim::Tensors& outputs) {
  // Every op name must be registered, or keep_ops could not name it.
  TSR_CHECK(prim::is_known_op(p.op()), TSR_ERR_INTERNAL, "primitive op '", p.op(),
            "' is not registered (prim::register_op_names in its family's file)");
  auto metas = p.output_description(inputs);
  TSR_CHECK(metas.size() == outputs.size(), TSR_ERR_INTERNAL, p.op(), ": shape rule gives ",
            metas.size(), " outputs, forward ", outputs.size());
  for (size_t i = 0; i < metas.size(); ++i)
    TSR_CHECK(metas[i] == prim::meta_of(outputs[i]), TSR_ERR_INTERNAL, p.op(), ": output ", i,
              " is ", dtype_name(outputs[i].dtype()), " ", outputs[i].sizes(), " on ",
              device_name(outputs[i].device()), ", its shape rule says ", dtype_name(metas[i].dtype),
              " ", metas[i].sizes, " on ", device_name(metas[i].device));
}
#endif

}  // namespace

bool keeps_primitive(const prim::Tensors& inputs) { return checkpoint::recording() || any_requires_grad(inputs); }

prim::Tensors run_unkept(prim::Primitive& p, const prim::Tensors& inputs) {
  check_same_device(inputs);
  prim::Tensors outputs = p.forward(inputs);
#ifdef TSR_CHECK_PRIMITIVES
  check_output_meta(p, inputs, outputs);
#endif
  return outputs;
}

prim::Tensors run(const prim::PrimitivePtr& p, const prim::Tensors& inputs) {
  prim::Tensors outputs = run_unkept(*p, inputs);
  // The tape first: it tags the outputs, so the node's saves below know
  // which tensors the region will recompute instead of keeping.
  if (checkpoint::recording()) checkpoint::record(p, inputs, outputs);
  if (!any_requires_grad(inputs)) return outputs;
  if (p->inplace_input() >= 0) {
    rebase_history(p, inputs, outputs);
    return outputs;
  }
  set_history(std::make_shared<PrimitiveNode>(p, inputs, outputs), inputs, outputs);
  if (p->is_view())
    for (const Tensor& out : outputs) track_view(inputs[0], out);
  return outputs;
}

}  // namespace tsr::autograd
