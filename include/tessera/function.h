/**
 * @file tessera/function.h
 * @brief Custom differentiable functions: torch.autograd.Function over the
 * C ABI.
 *
 * A custom function is a forward callback and a backward callback. Applied
 * with tsr_function_apply(), it takes part in autograd like any built-in
 * op: its outputs get a grad_fn named "<name>Backward", the profiler records
 * its forward under its name (the ops it runs nested inside) and its
 * backward under the grad_fn's name, gradient hooks and anomaly mode see
 * it, and inside a checkpoint region it is recomputed by calling forward
 * again.
 *
 * @code
 *   // y = x * sigmoid(x) over raw float32 memory, with its own backward
 *   static tsr_status swish_forward(tsr_function_ctx* ctx, int64_t n_in, tsr_tensor* const* in,
 *                                   int64_t max_out, int64_t* n_out, tsr_tensor** out, void* user) {
 *     tsr_tensor* x = NULL;
 *     tsr_status s = tsr_contiguous(in[0], TSR_CONTIGUOUS_FORMAT, &x);
 *     ... tsr_empty(...) an output y, write it through tsr_tensor_data_ptr() ...
 *     tsr_function_ctx_save_for_backward(ctx, 1, &in[0]);
 *     out[0] = y; *n_out = 1;
 *     return TSR_OK;
 *   }
 *   static tsr_status swish_backward(tsr_function_ctx* ctx, int64_t n_grads, tsr_tensor* const* grads,
 *                                    int64_t n_in, tsr_tensor** grad_in, void* user) {
 *     tsr_tensor* x; int64_t n;
 *     tsr_function_ctx_saved_tensors(ctx, 1, &n, &x);
 *     ... grad_in[0] = grads[0] * (s + x * s * (1 - s)) with s = sigmoid(x) ...
 *     tsr_tensor_release(x);
 *     return TSR_OK;
 *   }
 *   tsr_function_def def = TSR_FUNCTION_DEF_INIT;
 *   def.name = "Swish"; def.forward = swish_forward; def.backward = swish_backward;
 *   int64_t n; tsr_tensor* y;
 *   tsr_function_apply(&def, 1, &x, 1, &n, &y);   // y's grad_fn: "SwishBackward"
 * @endcode
 *
 * The contract, as torch.autograd.Function's:
 * - **forward** runs with grad mode off, so the tessera ops it calls record
 *   no history (and, inside a checkpoint region, are not taped: the
 *   function is recomputed as one unit). It returns new references to its
 *   outputs: tensors made by tessera ops, or by tsr_empty() and written
 *   through tsr_tensor_data_ptr(), or inputs themselves (marked dirty when
 *   modified in place). Inputs are borrowed for the call.
 * - **backward** receives one gradient per output (borrowed; NULL for an
 *   output whose gradient was never computed when materialize_grads is
 *   off, else zeros) and writes one new reference per input into
 *   grad_inputs, or leaves NULL for none. It runs with the engine's grad
 *   mode: under create_graph the tessera ops it calls record history, so a
 *   backward made of tessera ops is itself differentiable (double backward).
 * - **Errors.** A callback that fails returns its status, after
 *   tsr_set_last_error() for its own message; tsr_function_apply() or
 *   tsr_backward() then fails with that status and the message prefixed by
 *   the function's name ("Swish.forward: ..."). References the callback put
 *   in outputs / grad_inputs before failing are released; nothing is left
 *   half-done (no history is recorded for a failed forward).
 * - **Threads.** Callbacks run on the thread that calls
 *   tsr_function_apply() (forward, and replays inside a checkpoint region:
 *   the thread running backward) or runs the backward pass. They may call
 *   any tessera function, nested custom functions included; they must not
 *   unwind (C++ exceptions, longjmp) through tessera's frames.
 * - **Devices.** Callbacks get the tensors where they are; for CUDA tensors
 *   the work of the current stream (tsr_stream_current()) precedes theirs,
 *   and what they queue should go to that stream.
 * - **Replay.** Inside a checkpoint region the forward callback runs again
 *   during backward, on the same inputs, to recompute the outputs (and what
 *   it saved): side effects in forward happen once more, and it must give
 *   outputs of the same sizes and dtypes (the region's determinism check).
 */
#ifndef TESSERA_FUNCTION_H
#define TESSERA_FUNCTION_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The context of one callback (torch's ctx): valid only during that
 * callback; the same apply's forward and backward share its saved state. */
typedef struct tsr_function_ctx tsr_function_ctx;

/**
 * @brief A custom function's forward.
 * @param[in]  ctx         the context (save_for_backward, mark_dirty, ...)
 * @param[in]  n_inputs    number of inputs
 * @param[in]  inputs      the inputs, borrowed (an entry may be NULL)
 * @param[in]  max_outputs capacity of outputs
 * @param[out] n_outputs   number of outputs written, 1..max_outputs
 * @param[out] outputs     new references to the outputs
 * @param[in]  user_data   the definition's user_data
 * @return TSR_OK, or the failure's status (tsr_set_last_error() first).
 */
typedef tsr_status (*tsr_function_forward_fn)(tsr_function_ctx* ctx, int64_t n_inputs,
                                              tsr_tensor* const* inputs, int64_t max_outputs,
                                              int64_t* n_outputs, tsr_tensor** outputs, void* user_data);

/**
 * @brief A custom function's backward (vector-Jacobian product).
 * @param[in]  ctx            the context (saved_tensors, needs_input_grad)
 * @param[in]  n_grad_outputs number of gradients: the forward's outputs
 * @param[in]  grad_outputs   gradient of each output, borrowed (NULL where
 *                            none was computed and materialize_grads is off)
 * @param[in]  n_inputs       number of inputs of the forward
 * @param[out] grad_inputs    n_inputs slots, all NULL on entry: a new
 *                            reference to each input's gradient (of that
 *                            input's sizes), or NULL for none
 * @param[in]  user_data      the definition's user_data
 * @return TSR_OK, or the failure's status (tsr_set_last_error() first).
 */
typedef tsr_status (*tsr_function_backward_fn)(tsr_function_ctx* ctx, int64_t n_grad_outputs,
                                               tsr_tensor* const* grad_outputs, int64_t n_inputs,
                                               tsr_tensor** grad_inputs, void* user_data);

/**
 * @brief What tsr_function_apply() runs. Fields are only ever appended:
 * set struct_size = sizeof(tsr_function_def), or start from
 * TSR_FUNCTION_DEF_INIT.
 */
typedef struct tsr_function_def {
  size_t struct_size;                    /**< sizeof(tsr_function_def) */
  const char* name;                      /**< "Swish": grad_fn "SwishBackward"; copied */
  tsr_function_forward_fn forward;       /**< required */
  tsr_function_backward_fn backward;     /**< NULL: not differentiable (backward fails) */
  void* user_data;                       /**< passed to both callbacks: this apply's own state */
  void (*release_user_data)(void* user_data); /**< NULL, or called exactly once when the apply
                                                   no longer needs user_data (its graph and
                                                   checkpoint tape gone; at once when nothing
                                                   was recorded, or when apply fails) */
} tsr_function_def;

/** @brief A tsr_function_def with struct_size set and everything else NULL. */
#define TSR_FUNCTION_DEF_INIT {sizeof(tsr_function_def), NULL, NULL, NULL, NULL, NULL}

/**
 * @brief torch.autograd.Function.apply: runs def's forward on the inputs
 * and, when an input requires grad (and grad mode is on), records one node
 * whose backward calls def's backward.
 * @param[in]  def         the function (copied; see its fields)
 * @param[in]  n_inputs    number of inputs, 0..64
 * @param[in]  inputs      the inputs (NULL entries allowed: no tensor)
 * @param[in]  max_outputs capacity of outputs, >= 1
 * @param[out] n_outputs   number of outputs the forward returned
 * @param[out] outputs     max_outputs slots: new references
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL def / name / forward /
 * out pointer, an empty name, counts out of range, inputs on different
 * devices, or a forward that returned no output, more than max_outputs, a
 * NULL output, an output on another device than its inputs, or a dirty
 * tensor that is not an input returned as output 0 (each message names
 * which); TSR_ERR_AUTOGRAD for a dirty input that is a leaf requiring grad;
 * the forward callback's own status when it fails. On failure no outputs
 * are written and user_data has been released.
 */
TSR_API tsr_status tsr_function_apply(const tsr_function_def* def, int64_t n_inputs,
                                      tsr_tensor* const* inputs, int64_t max_outputs,
                                      int64_t* n_outputs, tsr_tensor** outputs);

/**
 * @brief ctx.save_for_backward(*tensors): keeps tensors (inputs, outputs or
 * intermediates; NULL entries allowed) for backward, replacing any earlier
 * call's. Forward only. In backward, an input or output saved here that
 * was modified in place since gives torch's error ("one of the variables
 * needed for gradient computation has been modified by an inplace
 * operation").
 * @param[in] ctx     the forward's context
 * @param[in] n       number of tensors, 0..64
 * @param[in] tensors the tensors (retained)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL ctx, n out of range,
 * or a call outside forward.
 */
TSR_API tsr_status tsr_function_ctx_save_for_backward(tsr_function_ctx* ctx, int64_t n,
                                                      tsr_tensor* const* tensors);

/**
 * @brief ctx.saved_tensors: the tensors save_for_backward kept, in order.
 * Backward only.
 * @param[in]  ctx the backward's context
 * @param[in]  max capacity of out
 * @param[out] n   number saved (also when it exceeds max: then nothing is
 *                 written to out)
 * @param[out] out new references (NULL for a NULL entry)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT outside backward or when n >
 * max; TSR_ERR_AUTOGRAD for a saved input or output modified in place since
 * it was saved, or freed by an earlier backward without retain_graph.
 */
TSR_API tsr_status tsr_function_ctx_saved_tensors(tsr_function_ctx* ctx, int64_t max, int64_t* n,
                                                  tsr_tensor** out);

/**
 * @brief ctx.needs_input_grad[i]: whether input i's gradient is wanted.
 * In forward: whether input i requires grad (and grad mode was on at
 * apply); in backward: whether its gradient goes anywhere.
 * @param[in]  ctx the context
 * @param[in]  i   the input, 0..n_inputs-1
 * @param[out] out the answer
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for a NULL ctx/out or i out of
 * range.
 */
TSR_API tsr_status tsr_function_ctx_needs_input_grad(const tsr_function_ctx* ctx, int64_t i, bool* out);

/**
 * @brief ctx.mark_dirty(*tensors): the forward modified these inputs in
 * place. tessera bumps their version counters after forward and records the
 * function as an in-place op on them (torch's rebase of history, views
 * included). In this version one input may be dirty, and forward must
 * return it as output 0. Forward only.
 * @param[in] ctx     the forward's context
 * @param[in] n       number of tensors
 * @param[in] tensors inputs of this call
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT outside forward, for a tensor
 * that is not an input, or for more than one tensor.
 */
TSR_API tsr_status tsr_function_ctx_mark_dirty(tsr_function_ctx* ctx, int64_t n, tsr_tensor* const* tensors);

/**
 * @brief ctx.mark_non_differentiable(*tensors): these outputs get no
 * gradient (they do not require grad; backward sees zeros, or NULL without
 * materialize_grads, for them). Forward only; the tensors must be among the
 * outputs forward returns (checked when it returns).
 * @param[in] ctx     the forward's context
 * @param[in] n       number of tensors, 0..64
 * @param[in] tensors the outputs
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT outside forward.
 */
TSR_API tsr_status tsr_function_ctx_mark_non_differentiable(tsr_function_ctx* ctx, int64_t n,
                                                            tsr_tensor* const* tensors);

/**
 * @brief ctx.set_materialize_grads(value): with false, backward gets NULL
 * instead of zeros for outputs whose gradient was never computed (torch's
 * default is true). Forward only.
 * @param[in] ctx   the forward's context
 * @param[in] value materialize or not
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT outside forward.
 */
TSR_API tsr_status tsr_function_ctx_set_materialize_grads(tsr_function_ctx* ctx, bool value);

/**
 * @brief Records status and message as the calling thread's last error, as
 * a failing tessera call would: a callback calls it before returning its
 * failure, so that the caller of tsr_function_apply() / tsr_backward() sees
 * the callback's own message.
 * @param[in] status  the status (not TSR_OK)
 * @param[in] message UTF-8 text (copied); NULL for none
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for TSR_OK or a status outside
 * the enum (the last error is then that complaint).
 */
TSR_API tsr_status tsr_set_last_error(tsr_status status, const char* message);

#ifdef __cplusplus
}
#endif
#endif
