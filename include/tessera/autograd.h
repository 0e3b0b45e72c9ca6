/**
 * @file tessera/autograd.h
 * @brief Reverse-mode automatic differentiation.
 *
 * The model of torch.autograd: operations on tensors that require grad record
 * a graph (each output has a grad_fn); tsr_backward() walks it from a root,
 * most recently created node first, and accumulates gradients into the .grad
 * of leaves. A version counter shared by a tensor and its views detects
 * in-place writes to tensors saved for backward (TSR_ERR_AUTOGRAD with
 * PyTorch's message). Grad mode is per thread.
 */
#ifndef TESSERA_AUTOGRAD_H
#define TESSERA_AUTOGRAD_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief torch.Tensor.requires_grad_(flag) on a leaf.
 * @param[in,out] t             the tensor
 * @param[in]     requires_grad the new flag
 * @return TSR_OK; only floating dtypes can require grad
 * (TSR_ERR_DTYPE_MISMATCH); turning it off on a non-leaf is TSR_ERR_AUTOGRAD
 * (use tsr_detach()); NULL t: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_set_requires_grad(tsr_tensor* t, bool requires_grad);
/**
 * @brief torch.Tensor.requires_grad.
 * @param[in] t the tensor
 * @return the flag; false for NULL.
 */
TSR_API bool tsr_requires_grad(const tsr_tensor* t);
/**
 * @brief torch.Tensor.is_leaf: true when t has no grad_fn (it was not
 * produced by a recorded op: a factory result, a tensor made under no_grad,
 * a detach).
 * @param[in] t the tensor
 * @return the answer; false for NULL (TSR_ERR_INVALID_ARGUMENT recorded).
 */
TSR_API bool tsr_is_leaf(const tsr_tensor* t);
/**
 * @brief Name of t's grad_fn ("AddBackward0", "MmBackward0", ...) as PyTorch
 * names it.
 * @param[in] t the tensor
 * @return the name, or NULL for leaves and NULL handles. Static storage.
 */
TSR_API const char* tsr_grad_fn_name(const tsr_tensor* t);
/**
 * @brief torch.Tensor._version: count of in-place writes to t's storage
 * through t or any view sharing its version counter.
 * @param[in] t the tensor
 * @return the count; -1 for NULL.
 */
TSR_API int64_t tsr_version(const tsr_tensor* t);

/**
 * @brief t.grad.
 * @param[in]  t   the tensor
 * @param[out] out a new reference to the gradient tensor, or NULL when t has
 *                 no gradient (yet)
 * @return TSR_OK; NULL t/out: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_grad(const tsr_tensor* t, tsr_tensor** out);
/**
 * @brief Sets t.grad = grad (NULL clears it, like `t.grad = None`).
 *
 * t.grad then is grad's tensor itself, not a copy (tsr_grad() returns a
 * handle to it; later accumulation writes into it); the caller keeps its own
 * reference to grad and releases it as usual.
 * @param[in,out] t    the tensor
 * @param[in]     grad the gradient, of t's sizes and dtype, or NULL
 * @return TSR_OK; grad of other sizes / dtype: TSR_ERR_SHAPE_MISMATCH /
 * TSR_ERR_DTYPE_MISMATCH; NULL t: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_set_grad(tsr_tensor* t, tsr_tensor* grad);
/**
 * @brief Fills t.grad with zeros in place if t has one
 * (optimizer.zero_grad with set_to_none=False); no-op otherwise.
 * @param[in,out] t the tensor
 * @return TSR_OK; NULL t: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_zero_grad(tsr_tensor* t);

/**
 * @brief torch.Tensor.backward(gradient, retain_graph).
 *
 * The errors below are found before any gradient is computed, so they change
 * no .grad. Each leaf's gradient is added to its .grad as soon as it is
 * complete (the incoming gradient is freed at once; a new .grad may be that
 * tensor itself when nothing else holds it and it is laid out like the
 * leaf); an allocation failure halfway (TSR_ERR_OUT_OF_MEMORY) may leave
 * some leaves updated, as in PyTorch. Thread-safe for graphs sharing leaves:
 * accumulation into a leaf's .grad is locked, as in PyTorch's
 * AccumulateGrad. The whole pass (every hook, then the queued callbacks)
 * runs on the calling thread.
 * @param[in] root         the tensor to differentiate
 * @param[in] gradient     may be NULL only when root has one element (then
 *                         1 is used); else it must have root's sizes;
 *                         another dtype is converted to root's, as torch does
 * @param[in] retain_graph keep saved tensors for another backward
 * @return TSR_OK; gradient of other sizes: TSR_ERR_SHAPE_MISMATCH. root that
 * does not require grad: TSR_ERR_AUTOGRAD ("element 0 of tensors does not
 * require grad and does not have a grad_fn"). A second backward through
 * freed buffers without retain_graph, or through a tensor modified in place
 * after it was saved: TSR_ERR_AUTOGRAD with PyTorch's message; so is a
 * backward while a checkpoint region is open on this thread (checkpoint.h).
 * TSR_ERR_OUT_OF_MEMORY as above. A hook (tsr_register_hook(),
 * tsr_register_post_accumulate_grad_hook()) or queued callback
 * (tsr_queue_backward_callback()) that fails: its status and message.
 */
TSR_API tsr_status tsr_backward(tsr_tensor* root, const tsr_tensor* gradient,
                                bool retain_graph);

/**
 * @brief torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph,
 * create_graph, allow_unused).
 *
 * The gradients of the n_outputs outputs (weighted by grad_outputs) with
 * respect to each of the n_inputs inputs, written as new references into the
 * caller's array grads[0..n_inputs). No .grad is read or written, and only
 * the part of the graph between the outputs and the inputs runs. Inputs may
 * be leaves or not; each must require grad. torch defaults retain_graph to
 * create_graph; here both are explicit, so pass retain_graph = true with
 * create_graph when the result will be differentiated again (its graph runs
 * through this one).
 * @param[in]  n_outputs    number of outputs (>= 1)
 * @param[in]  outputs      n_outputs handles
 * @param[in]  grad_outputs NULL, or n_outputs entries each NULL (ones: only
 *                          for one-element outputs) or of that output's sizes
 *                          (another dtype is converted)
 * @param[in]  n_inputs     number of inputs (>= 1)
 * @param[in]  inputs       n_inputs handles
 * @param[in]  retain_graph keep saved tensors for another backward
 * @param[in]  create_graph record the backward computation itself, so the
 *                          returned gradients require grad and can be
 *                          differentiated again (higher-order gradients)
 * @param[in]  allow_unused an input no output depends on gets NULL; without
 *                          it that is an error
 * @param[out] grads        n_inputs slots, each receives a new reference (or
 *                          NULL, see allow_unused); untouched on failure
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for NULL arrays/handles or counts
 * < 1; TSR_ERR_AUTOGRAD for an output or input that does not require grad
 * (torch's messages), an unused input without allow_unused, a checkpoint
 * region open on this thread, or the errors of tsr_backward() (freed graph,
 * in-place modification); TSR_ERR_SHAPE_MISMATCH for a grad_output of the
 * wrong sizes; a failing hook or queued callback: its status and message.
 */
TSR_API tsr_status tsr_autograd_grad(int64_t n_outputs, tsr_tensor* const* outputs,
                                     const tsr_tensor* const* grad_outputs, int64_t n_inputs,
                                     tsr_tensor* const* inputs, bool retain_graph,
                                     bool create_graph, bool allow_unused, tsr_tensor** grads);

/**
 * @brief torch.Tensor.detach: a view sharing storage and version counter,
 * with no history and requires_grad false.
 * @param[in]  t   the tensor
 * @param[out] out new reference
 * @return TSR_OK; NULL t/out: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_detach(const tsr_tensor* t, tsr_tensor** out);

/**
 * @brief torch.is_grad_enabled for the calling thread. Never fails.
 * @return whether grad mode is on.
 */
TSR_API bool tsr_is_grad_enabled(void);
/**
 * @brief torch.set_grad_enabled for the calling thread. Never fails.
 *
 * Returns the previous setting, so a no_grad scope is
 *     bool prev = tsr_set_grad_enabled(false); ...; tsr_set_grad_enabled(prev);
 * @param[in] enabled the new setting
 * @return the previous setting.
 */
TSR_API bool tsr_set_grad_enabled(bool enabled);

/* ---- hooks -------------------------------------------------------------- */

/**
 * @brief A gradient hook (tsr_register_hook()).
 * @param[in]  ctx         the ctx given at registration
 * @param[in]  grad        the gradient, borrowed for the call
 *                         (tsr_tensor_retain() it to keep it)
 * @param[out] replacement left NULL (keep grad) or set to a new reference to
 *                         a tensor of grad's sizes that replaces it
 * @return TSR_OK or the status of the tessera call that failed (its message
 * reaches the caller of backward).
 */
typedef tsr_status (*tsr_grad_hook_fn)(void* ctx, const tsr_tensor* grad, tsr_tensor** replacement);

/**
 * @brief torch.Tensor.register_hook(hook).
 *
 * On a leaf, fn runs on the gradient before it is added to .grad (or
 * returned by tsr_autograd_grad()); on a non-leaf, on the gradient of t
 * before t's grad_fn uses it. Hooks run in registration order, on the thread
 * running backward. A hook returning a tensor of other sizes fails the
 * backward with TSR_ERR_SHAPE_MISMATCH.
 * @param[in,out] t       the tensor
 * @param[in]     fn      the hook
 * @param[in]     ctx     passed to fn and destroy
 * @param[in]     destroy may be NULL; runs once when the hook is removed or
 *                        its tensor's graph is freed
 * @param[out]    handle  an id for tsr_remove_hook()
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for NULL t/fn/handle (destroy is
 * not called then); TSR_ERR_AUTOGRAD when t does not require grad (torch's
 * "cannot register a hook on a tensor that doesn't require gradient";
 * destroy(ctx) runs).
 */
TSR_API tsr_status tsr_register_hook(tsr_tensor* t, tsr_grad_hook_fn fn, void* ctx,
                                     void (*destroy)(void* ctx), int64_t* handle);
/**
 * @brief A post-accumulate-grad hook
 * (tsr_register_post_accumulate_grad_hook()).
 * @param[in] ctx   the ctx given at registration
 * @param[in] param the leaf itself (not its gradient), borrowed for the call
 *                  (tsr_tensor_retain() it to keep it); tsr_grad(param)
 *                  already includes this backward's gradient
 * @return TSR_OK or the status of the tessera call that failed (its message
 * reaches the caller of backward).
 */
typedef tsr_status (*tsr_post_accumulate_grad_hook_fn)(void* ctx, tsr_tensor* param);

/**
 * @brief torch.Tensor.register_post_accumulate_grad_hook(hook) (torch 2.1;
 * torch 1.13 has no such method).
 *
 * fn runs each time a tsr_backward() adds a gradient to t.grad: once per
 * backward, after every gradient reaching t in that pass has been summed,
 * passed through t's tsr_register_hook() hooks and accumulated. It gets t
 * itself and may read or replace t.grad and update t in place (grad mode is
 * off then), register or remove hooks, or queue a
 * tsr_queue_backward_callback(). Hooks run in registration order, on the
 * thread running backward, while the rest of the backward pass is still to
 * come (no lock is held). tsr_autograd_grad() accumulates nothing, so it
 * runs none; a checkpoint region's recomputation runs none either. A hook
 * that fails fails the backward with its status and message (later hooks
 * and the rest of the pass do not run; .grad keeps what was accumulated).
 * @param[in,out] t       a leaf that requires grad
 * @param[in]     fn      the hook
 * @param[in]     ctx     passed to fn and destroy
 * @param[in]     destroy may be NULL; runs once when the hook is removed or t
 *                        is freed
 * @param[out]    handle  an id for tsr_remove_hook() (the ids of
 *                        tsr_register_hook() and of this function never
 *                        collide)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for NULL t/fn/handle (destroy is
 * not called then); TSR_ERR_AUTOGRAD, with destroy(ctx) run, when t does not
 * require grad ("cannot register a hook on a tensor that doesn't require
 * gradient") or is not a leaf ("post accumulate grad hooks cannot be
 * registered on non-leaf tensors").
 */
TSR_API tsr_status tsr_register_post_accumulate_grad_hook(tsr_tensor* t, tsr_post_accumulate_grad_hook_fn fn,
                                                          void* ctx, void (*destroy)(void* ctx),
                                                          int64_t* handle);

/**
 * @brief RemovableHandle.remove(), for the hooks of tsr_register_hook() and
 * tsr_register_post_accumulate_grad_hook().
 * @param[in,out] t      the tensor
 * @param[in]     handle the id from either function
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT when t has no hook with that id
 * (or t is NULL).
 */
TSR_API tsr_status tsr_remove_hook(tsr_tensor* t, int64_t handle);

/**
 * @brief A callback queued by tsr_queue_backward_callback().
 * @param[in] ctx the ctx given when it was queued
 * @return TSR_OK or the status of the tessera call that failed (its message
 * reaches the caller of backward).
 */
typedef tsr_status (*tsr_backward_callback_fn)(void* ctx);

/**
 * @brief torch.autograd.Variable._execution_engine.queue_callback(callback).
 *
 * Callable only while a backward pass (tsr_backward() or
 * tsr_autograd_grad()) runs on the calling thread, i.e. from a hook
 * (tsr_register_hook(), tsr_register_post_accumulate_grad_hook()), a custom
 * function's backward, or another queued callback. fn runs once, on that
 * thread, after the pass has finished (every gradient computed and
 * accumulated into .grad) and before tsr_backward() returns; callbacks run
 * in queue order, and those queued by a callback run after it. A backward
 * started inside a hook is a pass of its own: callbacks queued during it
 * run when it ends. When the pass fails (a hook, a node, or a callback
 * failing), the callbacks not yet run are dropped (only destroyed), and the
 * backward returns that failure; a failing fn's status and message are the
 * backward's.
 * @param[in] fn      the callback
 * @param[in] ctx     passed to fn and destroy
 * @param[in] destroy may be NULL; runs exactly once, after fn has run or
 *                    when it is dropped or refused (not for a NULL fn)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for NULL fn (destroy is not
 * called then); TSR_ERR_AUTOGRAD, with destroy(ctx) run, when no backward
 * pass runs on this thread (torch's "Final callbacks can only be installed
 * during backward pass.").
 */
TSR_API tsr_status tsr_queue_backward_callback(tsr_backward_callback_fn fn, void* ctx,
                                               void (*destroy)(void* ctx));

/**
 * @brief Pack hook of tsr_saved_tensors_hooks_push().
 * @param[in]  ctx    the ctx given at the push
 * @param[in]  t      the tensor autograd saves, borrowed for the call
 *                    (tsr_tensor_retain() it to keep it)
 * @param[out] packed anything the hook likes (an offloaded copy, a file
 *                    name, the tensor itself)
 * @return TSR_OK, or a status that fails the op that saved (nothing
 * recorded).
 */
typedef tsr_status (*tsr_pack_hook_fn)(void* ctx, const tsr_tensor* t, void** packed);
/**
 * @brief Unpack hook of tsr_saved_tensors_hooks_push().
 * @param[in]  ctx    the ctx given at the push
 * @param[in]  packed what the pack hook stored
 * @param[out] out    a new reference to a tensor of the saved sizes
 * @return TSR_OK, or a status that fails the backward with its status and
 * message.
 */
typedef tsr_status (*tsr_unpack_hook_fn)(void* ctx, void* packed, tsr_tensor** out);
/**
 * @brief Frees a packed value of tsr_saved_tensors_hooks_push(); runs once
 * when the saved value is no longer needed.
 * @param[in] ctx    the ctx given at the push
 * @param[in] packed what the pack hook stored
 */
typedef void (*tsr_packed_free_fn)(void* ctx, void* packed);
/**
 * @brief torch.autograd.graph.saved_tensors_hooks(pack, unpack) for C.
 *
 * While pushed on the calling thread, each tensor autograd saves for
 * backward is given to pack (borrowed), which stores anything it likes in
 * *packed (an offloaded copy, a file name, the tensor itself); backward
 * calls unpack(ctx, packed, &out), which must give a new reference to a
 * tensor of the saved sizes; free_packed(ctx, packed) runs once when the
 * saved value is no longer needed. Hooks of one push are used for what was
 * saved during it, also after the pop; destroy(ctx) runs after the last such
 * use. Hooks do not apply to tensors a checkpoint region recomputes.
 * Unpacked tensors are not version-checked. A failing pack fails the op that
 * saved (nothing recorded); a failing unpack fails the backward with its
 * status and message.
 * @param[in] pack        the pack hook
 * @param[in] unpack      the unpack hook
 * @param[in] free_packed may be NULL
 * @param[in] ctx         passed to every hook and to destroy
 * @param[in] destroy     may be NULL
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for NULL pack/unpack.
 */
TSR_API tsr_status tsr_saved_tensors_hooks_push(tsr_pack_hook_fn pack, tsr_unpack_hook_fn unpack,
                                                tsr_packed_free_fn free_packed, void* ctx,
                                                void (*destroy)(void* ctx));
/**
 * @brief Pops the hooks of the last tsr_saved_tensors_hooks_push() on this
 * thread.
 * @return TSR_OK; TSR_ERR_AUTOGRAD when nothing is pushed on this thread.
 */
TSR_API tsr_status tsr_saved_tensors_hooks_pop(void);

/* ---- inference mode and anomaly detection ------------------------------ */

/**
 * @brief torch.inference_mode for the calling thread. Never fails.
 *
 * While on: grad mode is off, and new tensors are inference tensors, whose
 * in-place writes bump no version counter. Outside it, an inference tensor
 * saved for backward by a recorded op fails that op (TSR_ERR_AUTOGRAD,
 * "Inference tensors cannot be saved for backward. ..."), and so do in-place
 * writes to one and setting requires_grad on one (torch's messages). Views
 * share their base's kind.
 * @param[in] enabled the new setting
 * @return the previous setting.
 */
TSR_API bool tsr_set_inference_mode(bool enabled);
/**
 * @brief torch.is_inference_mode_enabled for the calling thread. Never
 * fails.
 * @return the setting.
 */
TSR_API bool tsr_is_inference_mode_enabled(void);
/**
 * @brief torch.Tensor.is_inference().
 * @param[in] t the tensor
 * @return the answer; false for NULL.
 */
TSR_API bool tsr_is_inference(const tsr_tensor* t);

/**
 * @brief torch.autograd.set_detect_anomaly(enabled), process-wide. Never
 * fails.
 *
 * While on, backward checks every gradient a node returns and fails with
 * TSR_ERR_AUTOGRAD naming the node and its forward op ("Function
 * 'DivBackward0' returned nan values in its 0th output. It is the backward
 * of the forward op 'div'."), at the cost of one pass over each gradient.
 * @param[in] enabled the new setting
 * @return the previous setting.
 */
TSR_API bool tsr_set_detect_anomaly(bool enabled);
/**
 * @brief torch.is_anomaly_enabled (process-wide). Never fails.
 * @return the setting.
 */
TSR_API bool tsr_is_anomaly_enabled(void);

#ifdef __cplusplus
}
#endif
#endif
