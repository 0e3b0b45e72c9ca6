// Selection and indexing primitives: where (WhereBackward0). The backward
// of each is a primitive too (where again), so create_graph works.
#include "autograd/run.h"
#include "kernels/elementwise.h"
#include "kernels/indexing.h"
#include "ops/grad_util.h"
#include "ops/nn_functional.h"

namespace tsr::ops {

using autograd::run1;
using prim::BackwardContext;
using prim::TensorMeta;
using prim::Tensors;

namespace {

class Where final : public prim::Primitive {
 public:
  const char* name() const override { return "WhereBackward0"; }
  const char* op() const override { return "where"; }
  std::vector<TensorMeta> output_meta(const Tensors& in) const override {
    const tsr_dtype d = kernels::where_result_dtype(in[0], in[1], in[2]);
    return {{broadcast_shapes(broadcast_shapes(in[0].sizes(), in[1].sizes()), in[2].sizes()), d}};
  }
  Tensors eval_cpu(const Tensors& in) override { return {kernels::where(in[0], in[1], in[2])}; }
  prim::SaveSpec save_spec(const std::vector<bool>&) const override { return {bit(0), 0}; }
  // where(cond, g, 0) for a, where(cond, 0, g) for b.
  Tensors backward(const BackwardContext& ctx) override {
    const Tensor& g = ctx.grad(0);
    Tensor cond = ctx.input(0);
    Tensor zero = kernels::zeros({}, g.dtype());
    Tensor ga, gb;
    if (ctx.needs_input_grad(1)) ga = to_input(where(cond, g, zero), ctx.input_meta(1));
    if (ctx.needs_input_grad(2)) gb = to_input(where(cond, zero, g), ctx.input_meta(2));
    return {Tensor(), ga, gb};
  }
};

}  // namespace

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) { return run1<Where>({cond, a, b}); }

}  // namespace tsr::ops
