// C API: custom differentiable functions (function.h), torch.autograd.Function.
//
// A custom function is a Primitive whose forward and backward call the C
// callbacks, so it goes through autograd::run like any op: one node, the
// checkpoint tape (its forward replays as one call), the profiler, hooks.
// What the callbacks save is resolved after forward to the node's saved
// inputs and outputs (version-checked SavedVariables) or kept as
// intermediates by the primitive.
#include <tessera/function.h>

#include <memory>
#include <string>
#include <vector>

#include <tessera/error.h>

#include "autograd/checkpoint.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "autograd/run.h"
#include "capi/barrier.h"
#include "capi/handles.h"
#include "capi/struct_size.h"
#include "ops/inplace.h"
#include "primitive/op_names.h"

using namespace tsr;
using namespace tsr::capi;

namespace {

constexpr int64_t kMaxTensors = 64;  // inputs, outputs, saved tensors: bit masks of SaveSpec are 32 wide

// The definition's user_data, released once with the last primitive holding it.
struct UserData {
  void* data = nullptr;
  void (*release)(void*) = nullptr;
  ~UserData() {
    if (release) release(data);
  }
};

// Handles a callback sees (inputs, gradients: boxed for its duration) or
// fills (outputs, input gradients: new references), released on scope exit
// unless taken (set to NULL).
struct Handles {
  std::vector<tsr_tensor*> handles;
  explicit Handles(size_t n) : handles(n, nullptr) {}
  ~Handles() {
    for (tsr_tensor* h : handles) release(h);
  }
  void box(size_t i, const Tensor& t) {
    if (t.defined()) handles[i] = new tsr_tensor(t);
  }
};

// The message of a callback's failure: its own (tsr_set_last_error) or the
// status's name.
std::string callback_message(tsr_status status) {
  const char* m = tsr_last_error_message();
  if (tsr_last_error_code() == status && m && *m) return m;
  return std::string("failed with ") + tsr_status_name(status);
}

class CustomFunction;

}  // namespace

struct tsr_function_ctx {
  enum class Phase { Forward, Backward } phase;
  CustomFunction* fn;
  const prim::Tensors* inputs = nullptr;              // forward
  const prim::BackwardContext* backward = nullptr;     // backward
};

namespace {

// Where a saved tensor lives for backward.
struct SavedSlot {
  enum class Kind { None, Input, Output, Intermediate } kind = Kind::None;
  size_t index = 0;  // input or output number
  Tensor tensor;     // an intermediate
};

class CustomFunction final : public prim::Primitive {
 public:
  CustomFunction(const tsr_function_def& def, int64_t max_outputs)
      : name_(def.name), grad_fn_name_(name_ + "Backward"), forward_(def.forward), backward_(def.backward),
        max_outputs_(max_outputs), user_(std::make_shared<UserData>()) {
    user_->data = def.user_data;
    user_->release = def.release_user_data;
  }

  const char* name() const override { return grad_fn_name_.c_str(); }
  const char* op() const override { return name_.c_str(); }
  std::string profiler_name() const override { return name_; }
  std::vector<prim::TensorMeta> output_meta(const prim::Tensors&) const override { return metas_; }
  prim::Tensors eval_cpu(const prim::Tensors& inputs) override { return run_forward(inputs); }
  prim::Tensors eval_device(const prim::Tensors& inputs, DeviceKernels&) override { return run_forward(inputs); }
  prim::Tensors backward(const prim::BackwardContext& ctx) override;
  prim::SaveSpec save_spec(const prim::RequiresGrad&) const override;
  bool saves_scalar() const override { return has_intermediates_; }
  int inplace_input() const override { return dirty_input_; }
  bool materialize_grads() const override { return materialize_; }
  void release_saved_state() override {
    for (SavedSlot& s : saved_)
      if (s.kind == SavedSlot::Kind::Intermediate) s.tensor = Tensor();
  }

  // Outputs marked non-differentiable (indices), for apply to detach.
  const std::vector<size_t>& non_differentiable() const { return non_differentiable_outputs_; }

  // ctx calls, forward.
  void save(std::vector<Tensor> tensors) { pending_saves_ = std::move(tensors); }
  void mark_dirty(const Tensor& t) { pending_dirty_ = t; }
  void mark_non_differentiable(std::vector<Tensor> tensors) { pending_non_diff_ = std::move(tensors); }
  void set_materialize(bool v) { materialize_ = v; }
  // ctx calls, backward.
  std::vector<Tensor> saved_tensors(const prim::BackwardContext& ctx) const;
  size_t input_count() const { return n_inputs_; }

 private:
  prim::Tensors run_forward(const prim::Tensors& inputs);
  void resolve(const prim::Tensors& inputs, const prim::Tensors& outputs);

  std::string name_, grad_fn_name_;
  tsr_function_forward_fn forward_;
  tsr_function_backward_fn backward_;
  int64_t max_outputs_;
  std::shared_ptr<UserData> user_;
  // Set by each forward (a checkpoint replay sets them again).
  std::vector<Tensor> pending_saves_, pending_non_diff_;
  Tensor pending_dirty_;
  std::vector<SavedSlot> saved_;
  bool has_intermediates_ = false;
  int dirty_input_ = -1;
  std::vector<size_t> non_differentiable_outputs_;
  bool materialize_ = true;
  std::vector<prim::TensorMeta> metas_;
  size_t n_inputs_ = 0;
};

prim::Tensors CustomFunction::run_forward(const prim::Tensors& inputs) {
  pending_saves_.clear();
  pending_non_diff_.clear();
  pending_dirty_ = Tensor();
  materialize_ = true;
  n_inputs_ = inputs.size();
  tsr_function_ctx ctx{tsr_function_ctx::Phase::Forward, this, &inputs, nullptr};
  Handles in(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) in.box(i, inputs[i]);
  Handles out{size_t(max_outputs_)};
  int64_t n_out = -1;
  tsr_status status;
  size_t left_open;
  {
    // As torch: forward runs without recording history, and as one unit
    // on a checkpoint tape (the ops inside are not taped).
    autograd::NoGradGuard no_grad;
    autograd::checkpoint::RegionsAside aside;
    tsr_clear_last_error();
    status = forward_(&ctx, int64_t(inputs.size()), in.handles.data(), max_outputs_, &n_out,
                      out.handles.data(), user_->data);
    left_open = aside.left_open();
  }
  if (status != TSR_OK) throw Error(status, name_ + ".forward: " + callback_message(status));
  tsr_clear_last_error();  // failures the callback handled itself are not this call's
  TSR_CHECK(left_open == 0, TSR_ERR_AUTOGRAD, name_, ".forward: left ", left_open,
            " checkpoint region(s) open (each tsr_checkpoint_begin needs its end inside the callback)");
  TSR_CHECK(n_out >= 1 && n_out <= max_outputs_, TSR_ERR_INVALID_ARGUMENT, name_, ".forward: returned ", n_out,
            " outputs; expected 1 to ", max_outputs_, " (max_outputs)");
  prim::Tensors outputs;
  const Tensor* first_input = nullptr;
  for (const Tensor& t : inputs)
    if (t.defined() && !first_input) first_input = &t;
  for (int64_t i = 0; i < n_out; ++i) {
    TSR_CHECK(out.handles[size_t(i)], TSR_ERR_INVALID_ARGUMENT, name_, ".forward: output ", i, " is NULL");
    const Tensor& t = out.handles[size_t(i)]->tensor;
    TSR_CHECK(!first_input || t.device() == first_input->device(), TSR_ERR_INVALID_ARGUMENT, name_,
              ".forward: output ", i, " is on ", device_name(t.device()), ", its inputs on ",
              device_name(first_input->device()));
    outputs.push_back(t);
  }
  // An input returned unchanged (not marked dirty) comes back as an alias
  // (torch returns a view): the input itself must not take the node's
  // history, which would also tie the node to it in a cycle.
  for (Tensor& out : outputs)
    for (const Tensor& in : inputs)
      if (in.defined() && out.impl() == in.impl() &&
          !(pending_dirty_.defined() && pending_dirty_.impl() == in.impl()))
        out = autograd::detach(out);
  resolve(inputs, outputs);
  if (dirty_input_ >= 0) {
    // Before autograd::run saves anything: the write happened in forward.
    // A leaf that requires grad cannot be written (torch raises after the
    // forward as well).
    ops::check_inplace_allowed(outputs[0], name_.c_str());
    outputs[0].bump_version();
  }
  metas_.clear();
  for (const Tensor& t : outputs) metas_.push_back({t.sizes(), t.dtype()});
  return outputs;
}

// Maps what forward saved and marked onto inputs and outputs.
void CustomFunction::resolve(const prim::Tensors& inputs, const prim::Tensors& outputs) {
  auto index_in = [](const prim::Tensors& list, const Tensor& t) -> int {
    for (size_t i = 0; i < list.size(); ++i)
      if (list[i].defined() && list[i].impl() == t.impl()) return int(i);
    return -1;
  };
  dirty_input_ = -1;
  if (pending_dirty_.defined()) {
    const int in = index_in(inputs, pending_dirty_);
    TSR_CHECK(in >= 0, TSR_ERR_INVALID_ARGUMENT, name_, ".forward: mark_dirty names a tensor that is not an input");
    TSR_CHECK(outputs[0].impl() == pending_dirty_.impl(), TSR_ERR_INVALID_ARGUMENT, name_,
              ".forward: the input marked dirty must be returned as output 0 in this version");
    dirty_input_ = in;
  }
  non_differentiable_outputs_.clear();
  for (const Tensor& t : pending_non_diff_) {
    const int out = index_in(outputs, t);
    TSR_CHECK(out >= 0, TSR_ERR_INVALID_ARGUMENT, name_,
              ".forward: mark_non_differentiable names a tensor that is not an output");
    non_differentiable_outputs_.push_back(size_t(out));
  }
  TSR_CHECK(pending_saves_.size() <= 32, TSR_ERR_INVALID_ARGUMENT, name_, ".forward: saved ",
            pending_saves_.size(), " tensors; at most 32");
  saved_.clear();
  has_intermediates_ = false;
  for (const Tensor& t : pending_saves_) {
    SavedSlot slot;
    if (t.defined()) {
      const int out = index_in(outputs, t);
      const int in = index_in(inputs, t);
      if (out >= 0 && out < 32) {  // an output (a dirty input is output 0)
        slot.kind = SavedSlot::Kind::Output;
        slot.index = size_t(out);
      } else if (in >= 0 && in < 32) {
        slot.kind = SavedSlot::Kind::Input;
        slot.index = size_t(in);
      } else {
        slot.kind = SavedSlot::Kind::Intermediate;
        slot.tensor = t;
        has_intermediates_ = true;
      }
    }
    saved_.push_back(std::move(slot));
  }
  pending_saves_.clear();
}

prim::SaveSpec CustomFunction::save_spec(const prim::RequiresGrad&) const {
  prim::SaveSpec spec;
  for (const SavedSlot& s : saved_) {
    if (s.kind == SavedSlot::Kind::Input) spec.inputs |= 1u << s.index;
    if (s.kind == SavedSlot::Kind::Output) spec.outputs |= 1u << s.index;
  }
  return spec;
}

std::vector<Tensor> CustomFunction::saved_tensors(const prim::BackwardContext& ctx) const {
  std::vector<Tensor> out;
  for (const SavedSlot& s : saved_) {
    switch (s.kind) {
      case SavedSlot::Kind::None: out.emplace_back(); break;
      case SavedSlot::Kind::Input: out.push_back(ctx.input(s.index)); break;
      case SavedSlot::Kind::Output: out.push_back(ctx.output(s.index)); break;
      case SavedSlot::Kind::Intermediate:
        TSR_CHECK(s.tensor.defined(), TSR_ERR_AUTOGRAD, "Trying to backward through the graph a second time "
                  "(or directly access saved tensors after they have already been freed). Saved intermediate "
                  "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
                  "retain_graph=True if you need to backward through the graph a second time or if you need "
                  "to access saved tensors after calling backward.");
        out.push_back(s.tensor);
        break;
    }
  }
  return out;
}

prim::Tensors CustomFunction::backward(const prim::BackwardContext& bctx) {
  TSR_CHECK(backward_, TSR_ERR_AUTOGRAD, name_, ": the function has no backward (tsr_function_def.backward is NULL)");
  tsr_function_ctx ctx{tsr_function_ctx::Phase::Backward, this, nullptr, &bctx};
  Handles grads(metas_.size());
  for (size_t i = 0; i < metas_.size(); ++i) grads.box(i, bctx.grad(i));
  Handles grad_in(n_inputs_);
  tsr_clear_last_error();
  const tsr_status status = backward_(&ctx, int64_t(metas_.size()), grads.handles.data(), int64_t(n_inputs_),
                                      grad_in.handles.data(), user_->data);
  if (status != TSR_OK) throw Error(status, name_ + ".backward: " + callback_message(status));
  tsr_clear_last_error();
  prim::Tensors result;
  for (size_t i = 0; i < n_inputs_; ++i) {
    tsr_tensor* h = grad_in.handles[i];
    if (!h || !bctx.needs_input_grad(i)) {
      result.emplace_back();
      continue;
    }
    const Tensor& g = h->tensor;
    const prim::TensorMeta& want = bctx.input_meta(i);
    TSR_CHECK(g.sizes() == want.sizes, TSR_ERR_SHAPE_MISMATCH, "Function ", grad_fn_name_,
              " returned an invalid gradient at index ", i, " - got ", g.sizes(), " but expected shape compatible with ",
              want.sizes);
    TSR_CHECK(g.dtype() == want.dtype, TSR_ERR_DTYPE_MISMATCH, "Function ", grad_fn_name_,
              " returned an invalid gradient at index ", i, " - expected dtype ", dtype_name(want.dtype), " but got ",
              dtype_name(g.dtype()));
    result.push_back(g);
  }
  return result;
}

CustomFunction& function_of(tsr_function_ctx* ctx, tsr_function_ctx::Phase phase, const char* call) {
  require(ctx, "ctx");
  TSR_CHECK(ctx->phase == phase, TSR_ERR_INVALID_ARGUMENT, call, ": only in ",
            phase == tsr_function_ctx::Phase::Forward ? "forward" : "backward");
  return *ctx->fn;
}

std::vector<Tensor> tensor_list(int64_t n, tsr_tensor* const* tensors, const char* call) {
  TSR_CHECK(n >= 0 && n <= kMaxTensors, TSR_ERR_INVALID_ARGUMENT, call, ": n must be 0..", kMaxTensors, ", got ", n);
  TSR_CHECK(n == 0 || tensors, TSR_ERR_INVALID_ARGUMENT, call, ": tensors is NULL");
  std::vector<Tensor> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(tensors[i] ? tensors[i]->tensor : Tensor());
  return out;
}

}  // namespace

TSR_EXTERN tsr_status tsr_function_apply(const tsr_function_def* def, int64_t n_inputs, tsr_tensor* const* inputs,
                                         int64_t max_outputs, int64_t* n_outputs, tsr_tensor** outputs) {
  // user_data is released on every path: by the primitive once it exists,
  // by hand before that.
  std::shared_ptr<CustomFunction> fn;
  tsr_status status = guarded([&] {
    require(def, "def");
    const tsr_function_def defaults = TSR_FUNCTION_DEF_INIT;
    tsr_function_def d = read_struct(def, defaults, TSR_FIRST_VERSION_SIZE(tsr_function_def, release_user_data),
                                     "def", "tsr_function_def");
    fn = std::make_shared<CustomFunction>(
        tsr_function_def{d.struct_size, d.name ? d.name : "", d.forward, d.backward, d.user_data,
                         d.release_user_data},
        max_outputs < 1 ? 1 : max_outputs);
    TSR_CHECK(d.name && *d.name, TSR_ERR_INVALID_ARGUMENT, "tsr_function_apply: def->name is NULL or empty");
    TSR_CHECK(d.forward, TSR_ERR_INVALID_ARGUMENT, "tsr_function_apply: def->forward is NULL");
    TSR_CHECK(n_inputs >= 0 && n_inputs <= kMaxTensors, TSR_ERR_INVALID_ARGUMENT,
              "tsr_function_apply: n_inputs must be 0..", kMaxTensors, ", got ", n_inputs);
    TSR_CHECK(n_inputs == 0 || inputs, TSR_ERR_INVALID_ARGUMENT, "tsr_function_apply: inputs is NULL");
    TSR_CHECK(max_outputs >= 1 && max_outputs <= kMaxTensors, TSR_ERR_INVALID_ARGUMENT,
              "tsr_function_apply: max_outputs must be 1..", kMaxTensors, ", got ", max_outputs);
    require(n_outputs, "n_outputs");
    require(outputs, "outputs");
    prim::register_op_names({d.name});  // keep_ops and the profiler may name it
    prim::Tensors in;
    for (int64_t i = 0; i < n_inputs; ++i) in.push_back(inputs[i] ? inputs[i]->tensor : Tensor());
    prim::Tensors out = autograd::run(fn, in);
    for (size_t i : fn->non_differentiable()) out[i] = autograd::detach(out[i]);
    Handles made(out.size());  // released if boxing one fails
    for (size_t i = 0; i < out.size(); ++i) made.handles[i] = new tsr_tensor(out[i]);
    for (size_t i = 0; i < out.size(); ++i) std::swap(outputs[i], made.handles[i]);
    for (tsr_tensor*& h : made.handles) h = nullptr;  // whatever the caller's slots held is theirs
    *n_outputs = int64_t(out.size());
  });
  if (!fn && def && status != TSR_OK) {
    // read_struct or make_shared failed: release by hand (struct_size may
    // not cover the field, then nothing is read from it).
    if (def->struct_size >= TSR_FIRST_VERSION_SIZE(tsr_function_def, release_user_data) && def->release_user_data)
      def->release_user_data(def->user_data);
  }
  return status;
}

TSR_EXTERN tsr_status tsr_function_ctx_save_for_backward(tsr_function_ctx* ctx, int64_t n, tsr_tensor* const* tensors) {
  return guarded([&] {
    CustomFunction& fn = function_of(ctx, tsr_function_ctx::Phase::Forward, "save_for_backward");
    fn.save(tensor_list(n, tensors, "save_for_backward"));
  });
}

TSR_EXTERN tsr_status tsr_function_ctx_saved_tensors(tsr_function_ctx* ctx, int64_t max, int64_t* n, tsr_tensor** out) {
  return guarded([&] {
    CustomFunction& fn = function_of(ctx, tsr_function_ctx::Phase::Backward, "saved_tensors");
    require(n, "n");
    std::vector<Tensor> saved = fn.saved_tensors(*ctx->backward);
    *n = int64_t(saved.size());
    TSR_CHECK(int64_t(saved.size()) <= max, TSR_ERR_INVALID_ARGUMENT, "saved_tensors: ", saved.size(),
              " tensors were saved; out has room for ", max);
    TSR_CHECK(saved.empty() || out, TSR_ERR_INVALID_ARGUMENT, "saved_tensors: out is NULL");
    for (size_t i = 0; i < saved.size(); ++i) out[i] = saved[i].defined() ? new tsr_tensor(saved[i]) : nullptr;
  });
}

TSR_EXTERN tsr_status tsr_function_ctx_needs_input_grad(const tsr_function_ctx* ctx, int64_t i, bool* out) {
  return guarded([&] {
    require(ctx, "ctx");
    require(out, "out");
    if (ctx->phase == tsr_function_ctx::Phase::Forward) {
      const prim::Tensors& in = *ctx->inputs;
      TSR_CHECK(i >= 0 && i < int64_t(in.size()), TSR_ERR_INVALID_ARGUMENT, "needs_input_grad: input ", i,
                " out of range (", in.size(), " inputs)");
      // forward runs under no_grad; what counts is the mode at apply, which
      // recorded history only when it was on (the node's edges say so later)
      *out = in[size_t(i)].defined() && autograd::requires_grad(in[size_t(i)]);
    } else {
      TSR_CHECK(i >= 0 && i < int64_t(ctx->fn->input_count()), TSR_ERR_INVALID_ARGUMENT,
                "needs_input_grad: input ", i, " out of range");
      *out = ctx->backward->needs_input_grad(size_t(i));
    }
  });
}

TSR_EXTERN tsr_status tsr_function_ctx_mark_dirty(tsr_function_ctx* ctx, int64_t n, tsr_tensor* const* tensors) {
  return guarded([&] {
    CustomFunction& fn = function_of(ctx, tsr_function_ctx::Phase::Forward, "mark_dirty");
    std::vector<Tensor> list = tensor_list(n, tensors, "mark_dirty");
    TSR_CHECK(list.size() <= 1, TSR_ERR_INVALID_ARGUMENT, "mark_dirty: one dirty input per function in this version, got ",
              list.size());
    if (!list.empty()) {
      bool is_input = false;
      for (const Tensor& t : *ctx->inputs) is_input |= t.defined() && list[0].defined() && t.impl() == list[0].impl();
      TSR_CHECK(is_input, TSR_ERR_INVALID_ARGUMENT, "mark_dirty: the tensor is not an input of this call");
      fn.mark_dirty(list[0]);
    }
  });
}

TSR_EXTERN tsr_status tsr_function_ctx_mark_non_differentiable(tsr_function_ctx* ctx, int64_t n,
                                                               tsr_tensor* const* tensors) {
  return guarded([&] {
    CustomFunction& fn = function_of(ctx, tsr_function_ctx::Phase::Forward, "mark_non_differentiable");
    fn.mark_non_differentiable(tensor_list(n, tensors, "mark_non_differentiable"));
  });
}

TSR_EXTERN tsr_status tsr_function_ctx_set_materialize_grads(tsr_function_ctx* ctx, bool value) {
  return guarded([&] { function_of(ctx, tsr_function_ctx::Phase::Forward, "set_materialize_grads").set_materialize(value); });
}
