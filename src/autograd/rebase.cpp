#include "autograd/rebase.h"
#include "device/any_device.h"

#include "autograd/as_strided.h"
#include "autograd/primitive_node.h"
#include "core/shape.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/elementwise.h"

namespace tsr::autograd {

namespace {

// The base's node after an in-place write to one of its views: the
// gradient of the base, with the view's slice replaced by what the in-place
// op's backward gives for the view's old value.
class CopySlices final : public Node {
 public:
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<PrimitiveNode> fn)
      : base_(geometry_of(base)), view_(geometry_of(view)), fn_(std::move(fn)) {}

  TensorList apply(TensorList grads) override {
    const Tensor& g = grads[0];
    // The base's gradient laid out in a buffer with the base's strides, so
    // the view's geometry picks its slice out of it.
    Tensor buffer = device::zeros_on({storage_extent(base_.sizes, base_.strides)}, g.dtype(), g.device());
    Tensor result = make_view(buffer, base_.sizes, base_.strides, 0);
    device::copy_strided_any(result, g);
    Tensor slice = make_view(buffer, view_.sizes, view_.strides, view_.offset - base_.offset);
    TensorList fn_grads = fn_->apply({device::contiguous_copy_any(slice, slice.dtype())});
    if (fn_grads[0].defined()) device::copy_strided_any(slice, fn_grads[0]);
    else device::fill_any(slice, 0.0);
    TensorList out{result};
    out.insert(out.end(), fn_grads.begin() + 1, fn_grads.end());
    return out;
  }
  const char* name() const override { return "CopySlices"; }
  void release_saved() override { fn_->release_saved(); }
  void check_saved() const override { fn_->check_saved(); }

 private:
  Geometry base_, view_;
  std::shared_ptr<PrimitiveNode> fn_;
};

AutogradMeta& meta_of(const Tensor& t) {
  auto& m = t.impl()->autograd;
  if (!m) m = std::make_shared<AutogradMeta>();
  return *m;
}

// view's grad_fn: AsStridedBackward0 of its base, or none when the base
// needs no gradient.
void regenerate(const Tensor& view, AutogradMeta& m) {
  m.attr_version = view.version();
  const Tensor& base = m.view_base;
  if (!requires_grad(base) || !is_floating(view.dtype())) {
    m.grad_fn = nullptr;
    return;
  }
  auto node = std::make_shared<PrimitiveNode>(make_as_strided(geometry_of(base), geometry_of(view)),
                                              prim::Tensors{base}, prim::Tensors{view});
  set_history(node, {base}, {view});
}

}  // namespace

void track_view(const Tensor& input, const Tensor& view) {
  const Tensor* base = view_base(input);
  AutogradMeta& m = meta_of(view);
  m.view_base = base ? *base : input;
  m.attr_version = view.version();
}

void refresh_view_grad_fn(const Tensor& t) {
  auto* m = t.impl()->autograd.get();
  if (!m || !m->view_base.defined() || m->attr_version == t.version()) return;
  regenerate(t, *m);
}

void rebase_history(const prim::PrimitivePtr& p, const prim::Tensors& inputs, const prim::Tensors& outputs) {
  const Tensor& self = outputs[0];
  TSR_CHECK(is_floating(self.dtype()), TSR_ERR_AUTOGRAD, p->op(), ": an in-place write of a tensor that "
            "requires grad into a ", dtype_name(self.dtype()), " tensor cannot record history");
  auto node = std::make_shared<PrimitiveNode>(p, inputs, outputs);
  const Tensor* base = view_base(self);
  if (!base) {
    set_history(node, inputs, {self});
    return;
  }
  // The op's own node keeps its edges (its input 0 is the view's old value,
  // whose gradient CopySlices writes into the base's slice).
  for (const Tensor& t : inputs) node->next_edges.push_back(t.defined() ? gradient_edge(t) : Edge{});
  node->outputs.push_back({self.sizes(), self.dtype(), self.device()});
  Tensor b = *base;
  auto copy_slices = std::make_shared<CopySlices>(b, self, node);
  copy_slices->next_edges.push_back(gradient_edge(b));
  copy_slices->next_edges.insert(copy_slices->next_edges.end(), node->next_edges.begin() + 1,
                                 node->next_edges.end());
  copy_slices->outputs.push_back({b.sizes(), b.dtype(), b.device()});
  AutogradMeta& bm = meta_of(b);
  bm.grad_fn = copy_slices;
  bm.output_nr = 0;
  regenerate(self, meta_of(self));
}

}  // namespace tsr::autograd
