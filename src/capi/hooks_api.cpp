// C API: gradient hooks, post-accumulate-grad hooks, end-of-backward
// callbacks, saved-tensor hooks, inference mode and anomaly detection
// (autograd.h), as C callbacks behind autograd/hooks.h.
#include <tessera/autograd.h>
#include <tessera/error.h>

#include "autograd/hooks.h"
#include "capi/barrier.h"
#include "capi/handles.h"
#include "core/inference_mode.h"

using namespace tsr;
using namespace tsr::capi;

namespace {

// The error a callback returned, with the message of the tessera call
// that failed inside it (or a generic one), thrown to the outer call.
[[noreturn]] void fail_from_callback(tsr_status st, const char* what) {
  const char* msg = tsr_last_error_code() == st ? tsr_last_error_message() : nullptr;
  fail(st, msg && *msg ? msg : str(what, " returned status ", int(st)));
}

// Owns a callback's ctx: destroy(ctx) runs once, with the last owner.
struct Context {
  Context(void* c, void (*d)(void*)) : ctx(c), destroy(d) {}
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context() {
    if (destroy) destroy(ctx);
  }
  void* ctx;
  void (*destroy)(void*);
};

// The handle a callback gets for a tensor it borrows: on the heap, not the
// stack, so the callback may tsr_tensor_retain() it and keep it (a Python
// hook keeping its argument does); the call's own reference goes after.
class ArgumentHandle {
 public:
  explicit ArgumentHandle(const Tensor& t) : h_(new tsr_tensor(t)) {}
  ~ArgumentHandle() { release(h_); }
  ArgumentHandle(const ArgumentHandle&) = delete;
  ArgumentHandle& operator=(const ArgumentHandle&) = delete;
  tsr_tensor* get() const { return h_; }

 private:
  tsr_tensor* h_;
};

class CGradHook final : public autograd::GradHook {
 public:
  CGradHook(tsr_grad_hook_fn fn, std::shared_ptr<Context> ctx) : fn_(fn), ctx_(std::move(ctx)) {}
  Tensor operator()(const Tensor& grad) override {
    ArgumentHandle box(grad);
    tsr_tensor* replacement = nullptr;
    tsr_status st = fn_(ctx_->ctx, box.get(), &replacement);
    if (st != TSR_OK) {
      release(replacement);
      fail_from_callback(st, "gradient hook");
    }
    if (!replacement) return Tensor();
    Tensor r = replacement->tensor;
    release(replacement);
    return r;
  }

 private:
  tsr_grad_hook_fn fn_;
  std::shared_ptr<Context> ctx_;
};

class CPostAccumulateGradHook final : public autograd::PostAccumulateGradHook {
 public:
  CPostAccumulateGradHook(tsr_post_accumulate_grad_hook_fn fn, std::shared_ptr<Context> ctx)
      : fn_(fn), ctx_(std::move(ctx)) {}
  void operator()(const Tensor& leaf) override {
    ArgumentHandle param(leaf);
    tsr_status st = fn_(ctx_->ctx, param.get());
    if (st != TSR_OK) fail_from_callback(st, "post accumulate grad hook");
  }

 private:
  tsr_post_accumulate_grad_hook_fn fn_;
  std::shared_ptr<Context> ctx_;
};

class CBackwardCallback final : public autograd::BackwardCallback {
 public:
  CBackwardCallback(tsr_backward_callback_fn fn, void* ctx, void (*destroy)(void*)) : fn_(fn), ctx_(ctx, destroy) {}
  void operator()() override {
    tsr_status st = fn_(ctx_.ctx);
    if (st != TSR_OK) fail_from_callback(st, "backward callback");
  }

 private:
  tsr_backward_callback_fn fn_;
  Context ctx_;
};

struct CSavedHooks;

class CPacked final : public autograd::PackedTensor {
 public:
  CPacked(std::shared_ptr<const CSavedHooks> hooks, void* packed) : hooks_(std::move(hooks)), packed_(packed) {}
  ~CPacked() override;
  Tensor unpack() override;

 private:
  std::shared_ptr<const CSavedHooks> hooks_;
  void* packed_;
};

struct CSavedHooks final : autograd::SavedTensorHooks, std::enable_shared_from_this<CSavedHooks> {
  tsr_pack_hook_fn pack_fn;
  tsr_unpack_hook_fn unpack_fn;
  tsr_packed_free_fn free_fn;
  std::shared_ptr<Context> ctx;

  std::shared_ptr<autograd::PackedTensor> pack(const Tensor& t) override {
    ArgumentHandle box(t);
    void* packed = nullptr;
    tsr_status st = pack_fn(ctx->ctx, box.get(), &packed);
    if (st != TSR_OK) fail_from_callback(st, "saved tensor pack hook");
    return std::make_shared<CPacked>(shared_from_this(), packed);
  }
};

CPacked::~CPacked() {
  if (hooks_->free_fn) hooks_->free_fn(hooks_->ctx->ctx, packed_);
}

Tensor CPacked::unpack() {
  tsr_tensor* out = nullptr;
  tsr_status st = hooks_->unpack_fn(hooks_->ctx->ctx, packed_, &out);
  if (st != TSR_OK) {
    release(out);
    fail_from_callback(st, "saved tensor unpack hook");
  }
  TSR_CHECK(out != nullptr, TSR_ERR_AUTOGRAD, "saved tensor unpack hook returned TSR_OK without a tensor");
  Tensor t = out->tensor;
  release(out);
  return t;
}

}  // namespace

TSR_EXTERN tsr_status tsr_register_hook(tsr_tensor* t, tsr_grad_hook_fn fn, void* ctx,
                                        void (*destroy)(void* ctx), int64_t* handle) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(fn, "fn");
    require(handle, "handle");
    auto owner = std::make_shared<Context>(ctx, destroy);
    *handle = autograd::register_hook(x, std::make_shared<CGradHook>(fn, std::move(owner)));
  });
}

TSR_EXTERN tsr_status tsr_register_post_accumulate_grad_hook(tsr_tensor* t, tsr_post_accumulate_grad_hook_fn fn,
                                                             void* ctx, void (*destroy)(void* ctx),
                                                             int64_t* handle) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(fn, "fn");
    require(handle, "handle");
    auto owner = std::make_shared<Context>(ctx, destroy);
    *handle = autograd::register_post_accumulate_grad_hook(
        x, std::make_shared<CPostAccumulateGradHook>(fn, std::move(owner)));
  });
}

TSR_EXTERN tsr_status tsr_queue_backward_callback(tsr_backward_callback_fn fn, void* ctx,
                                                  void (*destroy)(void* ctx)) {
  return guarded([&] {
    require(fn, "fn");
    autograd::queue_backward_callback(std::make_unique<CBackwardCallback>(fn, ctx, destroy));
  });
}

TSR_EXTERN tsr_status tsr_remove_hook(tsr_tensor* t, int64_t handle) {
  return guarded([&] {
    TSR_CHECK(autograd::remove_hook(tensor_of(t), handle), TSR_ERR_INVALID_ARGUMENT,
              "tsr_remove_hook: the tensor has no hook ", handle);
  });
}

TSR_EXTERN tsr_status tsr_saved_tensors_hooks_push(tsr_pack_hook_fn pack, tsr_unpack_hook_fn unpack,
                                                   tsr_packed_free_fn free_packed, void* ctx,
                                                   void (*destroy)(void* ctx)) {
  return guarded([&] {
    require(pack, "pack");
    require(unpack, "unpack");
    auto hooks = std::make_shared<CSavedHooks>();
    hooks->pack_fn = pack;
    hooks->unpack_fn = unpack;
    hooks->free_fn = free_packed;
    hooks->ctx = std::make_shared<Context>(ctx, destroy);
    autograd::push_saved_tensor_hooks(std::move(hooks));
  });
}

TSR_EXTERN tsr_status tsr_saved_tensors_hooks_pop(void) {
  return guarded([] { autograd::pop_saved_tensor_hooks(); });
}

TSR_EXTERN bool tsr_set_inference_mode(bool enabled) { return set_inference_mode(enabled); }
TSR_EXTERN bool tsr_is_inference_mode_enabled(void) { return is_inference_mode_enabled(); }
TSR_EXTERN bool tsr_is_inference(const tsr_tensor* t) {
  return guarded_value<bool>(false, [&] { return tensor_of(t).is_inference(); });
}

TSR_EXTERN bool tsr_set_detect_anomaly(bool enabled) { return autograd::set_anomaly_enabled(enabled); }
TSR_EXTERN bool tsr_is_anomaly_enabled(void) { return autograd::is_anomaly_enabled(); }
