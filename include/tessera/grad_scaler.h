/**
 * @file tessera/grad_scaler.h
 * @brief Gradient scaling for mixed precision training
 * (torch.cuda.amp.GradScaler of PyTorch 1.13; torch.amp.GradScaler in 2.x).
 *
 * Small float16/bfloat16 gradients underflow to zero; multiplying the loss
 * by a large factor before backward keeps them representable, and the
 * optimizer then steps with the gradients divided by it again:
 *
 * @code
 *   tsr_grad_scaler_options so = TSR_GRAD_SCALER_OPTIONS_INIT;
 *   tsr_grad_scaler* scaler;
 *   tsr_grad_scaler_create(&so, &scaler);
 *   for (...) {
 *     tsr_optimizer_zero_grad(opt, true);
 *     ... forward (under autocast) to loss ...
 *     tsr_tensor* scaled;
 *     tsr_grad_scaler_scale(scaler, loss, &scaled);     // loss * scale
 *     tsr_backward(scaled, NULL, false);
 *     tsr_grad_scaler_unscale_(scaler, opt);            // optional: before clipping
 *     bool stepped;
 *     tsr_grad_scaler_step(scaler, opt, &stepped);      // skipped on inf/NaN
 *     tsr_grad_scaler_update(scaler);                   // back off or grow
 *     tsr_tensor_release(scaled);
 *   }
 *   tsr_grad_scaler_release(scaler);
 * @endcode
 *
 * The algorithm is torch 1.13's (torch/cuda/amp/grad_scaler.py and the CUDA
 * kernels _amp_foreach_non_finite_check_and_unscale_ and _amp_update_scale_),
 * on any device tessera's ops reach:
 * - The scale is a float32 value (torch keeps a 1-element float32 tensor),
 *   made from init_scale at the first tsr_grad_scaler_scale(); the growth
 *   tracker counts updates without inf/NaN since the last change.
 * - Each optimizer has a stage since the last update: READY, UNSCALED
 *   (after unscale_), STEPPED (after step), and what its checks found.
 * - unscale_ multiplies every gradient of the optimizer in place by the
 *   float32 reciprocal of the scale (computed in double, as torch), in the
 *   gradient's dtype with float arithmetic for bfloat16, and records
 *   whether any element was infinite or NaN before unscaling.
 * - step unscales if not done yet, then runs the optimizer's step unless an
 *   inf/NaN was found.
 * - update: if any optimizer's check found an inf/NaN, scale *=
 *   backoff_factor and the tracker is reset; else the tracker counts one
 *   more and, when it reaches growth_interval, scale *= growth_factor (kept
 *   only if finite) and the tracker is reset. Every stage goes back to
 *   READY.
 *
 * A disabled scaler (enabled = false) scales nothing: scale gives the loss
 * itself, unscale_/update do nothing, step just steps, get_scale is 1.
 *
 * Gradients: any floating dtype but float16, which torch 1.13 refuses
 * ("Attempting to unscale FP16 gradients.": keep float32 master
 * parameters, as torch requires); any strides and device. Every check of a
 * call is made before any gradient or state changes, so a failed call
 * changes nothing (where torch would have left gradients unscaled, the
 * tessera call fails first). TSR_ERR_OUT_OF_MEMORY or a device failure
 * part way through unscaling can leave earlier gradients unscaled.
 *
 * Optimizers are told apart by their handle's object (torch's
 * id(optimizer)); the scaler keeps a reference to each optimizer it has
 * a stage for until the next update or its release.
 *
 * Thread-safety: a scaler is used by one thread at a time (as torch's);
 * retain/release are thread-safe.
 */
#ifndef TESSERA_GRAD_SCALER_H
#define TESSERA_GRAD_SCALER_H

#include "optim.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Opaque, reference-counted gradient scaler (torch.cuda.amp.GradScaler). */
typedef struct tsr_grad_scaler tsr_grad_scaler;

/**
 * @brief Arguments of torch.cuda.amp.GradScaler(init_scale, growth_factor,
 * backoff_factor, growth_interval, enabled).
 *
 * Set struct_size = sizeof(tsr_grad_scaler_options), or start from
 * TSR_GRAD_SCALER_OPTIONS_INIT. Fields are only ever appended (a library
 * newer than the caller's header gives the fields past struct_size their
 * TSR_GRAD_SCALER_OPTIONS_INIT values); a struct_size that does not cover
 * init_scale is TSR_ERR_INVALID_ARGUMENT.
 */
typedef struct tsr_grad_scaler_options {
  size_t struct_size;      /**< sizeof(tsr_grad_scaler_options) */
  double init_scale;       /**< the first scale; default 65536 (2^16) */
  double growth_factor;    /**< scale multiplier after growth_interval clean updates; default 2, > 1 when enabled */
  double backoff_factor;   /**< scale multiplier after an inf/NaN; default 0.5, < 1 when enabled */
  int64_t growth_interval; /**< clean updates in a row before growing; default 2000 */
  bool enabled;            /**< default true; false makes every call a pass-through */
} tsr_grad_scaler_options;

/** @brief Initializer of a tsr_grad_scaler_options holding torch's defaults. */
#define TSR_GRAD_SCALER_OPTIONS_INIT { sizeof(tsr_grad_scaler_options), 65536.0, 2.0, 0.5, 2000, true }

/**
 * @brief torch.cuda.amp.GradScaler(**o).
 * @param[in]  o   the options; NULL means TSR_GRAD_SCALER_OPTIONS_INIT
 * @param[out] out new reference
 * @return TSR_OK; when enabled, growth_factor <= 1 ("The growth factor must
 * be > 1.0.") or backoff_factor >= 1 ("The backoff factor must be < 1.0.",
 * NaN fails both), a bad struct_size, NULL out: TSR_ERR_INVALID_ARGUMENT;
 * TSR_ERR_OUT_OF_MEMORY. *out is untouched on failure.
 */
TSR_API tsr_status tsr_grad_scaler_create(const tsr_grad_scaler_options* o, tsr_grad_scaler** out);

/**
 * @brief scaler.scale(outputs): outputs multiplied by the scale.
 *
 * The product with a 1-element float32 tensor holding the scale on outputs'
 * device, as torch's `outputs * self._scale`: so with torch's promotion and
 * broadcasting (a 0-dim float16 or bfloat16 loss gives a float32 tensor of
 * sizes [1]) and recorded by autograd (grad_fn MulBackward0) when outputs
 * requires grad. The first call makes the scale from init_scale. Disabled:
 * a new reference to outputs itself.
 * @param[in,out] scaler  the scaler
 * @param[in]     outputs any tensor (a loss, usually 0-dim)
 * @param[out]    out     new reference to the scaled tensor
 * @return TSR_OK; NULL scaler/outputs/out: TSR_ERR_INVALID_ARGUMENT; the
 * statuses of tsr_mul(); nothing changes (the scale is not made) on failure.
 */
TSR_API tsr_status tsr_grad_scaler_scale(tsr_grad_scaler* scaler, const tsr_tensor* outputs, tsr_tensor** out);

/**
 * @brief scaler.unscale_(optimizer): every .grad of the optimizer's
 * parameters multiplied in place by 1/scale (float32), under no_grad, each
 * gradient's version counter bumped; records whether any element was
 * infinite or NaN. Parameters without a .grad are skipped. Disabled: does
 * nothing.
 * @param[in,out] scaler    the scaler
 * @param[in,out] optimizer the optimizer whose gradients are unscaled
 * @return TSR_OK; on failure nothing changes, all TSR_ERR_INVALID_ARGUMENT
 * with torch's messages: before the first tsr_grad_scaler_scale()
 * ("Attempted unscale_ but _scale is None.  This may indicate your script
 * did not use scaler.scale(loss or outputs) earlier in the iteration."), a
 * second unscale_ for this optimizer since the last update ("unscale_() has
 * already been called on this optimizer since the last update()."), after
 * its step ("unscale_() is being called after step()."), a float16
 * gradient ("Attempting to unscale FP16 gradients."), a gradient that
 * cannot be written in place (expanded, read-only), NULL scaler/optimizer;
 * TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_grad_scaler_unscale_(tsr_grad_scaler* scaler, tsr_optimizer* optimizer);

/**
 * @brief scaler.step(optimizer): unscales the optimizer's gradients unless
 * tsr_grad_scaler_unscale_() did since the last update, then runs
 * tsr_optimizer_step() unless an inf/NaN was found. Disabled: just
 * tsr_optimizer_step().
 * @param[in,out] scaler    the scaler
 * @param[in,out] optimizer the optimizer
 * @param[out]    stepped   may be NULL; whether the optimizer stepped
 *                          (false: skipped for an inf/NaN); untouched on
 *                          failure
 * @return TSR_OK; on failure nothing changes: before the first scale
 * ("Attempted step but _scale is None.  ..."), a second step since the last
 * update ("step() has already been called since the last update()."), no
 * parameter with a .grad ("No inf checks were recorded for this
 * optimizer."), the statuses of tsr_grad_scaler_unscale_() and
 * tsr_optimizer_step() (all checked before unscaling), NULL scaler or
 * optimizer: TSR_ERR_INVALID_ARGUMENT and the step's own statuses.
 */
TSR_API tsr_status tsr_grad_scaler_step(tsr_grad_scaler* scaler, tsr_optimizer* optimizer, bool* stepped);

/**
 * @brief tsr_grad_scaler_step() up to the optimizer's step, which the
 * caller runs itself when *run_step is true: for bindings whose
 * optimizer step is their own code (Python's step(optimizer, *args,
 * **kwargs) returns what optimizer.step returns). The stage becomes
 * STEPPED either way.
 * @param[in,out] scaler    the scaler
 * @param[in,out] optimizer the optimizer (its gradients are unscaled)
 * @param[out]    run_step  whether the caller must now step the optimizer
 *                          (always true when disabled); untouched on failure
 * @return as tsr_grad_scaler_step() without the optimizer step's own
 * checks; NULL run_step: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_grad_scaler_step_deferred(tsr_grad_scaler* scaler, tsr_optimizer* optimizer,
                                                 bool* run_step);

/**
 * @brief scaler.update(): the scale backed off (an inf/NaN was found by
 * any optimizer's check since the last update) or counted towards growth
 * (see the file comment); every optimizer's stage back to READY.
 * Disabled: does nothing.
 * @param[in,out] scaler the scaler
 * @return TSR_OK; before the first scale ("Attempted update but _scale is
 * None.  ..."), no unscale_/step since the last update ("No inf checks were
 * recorded prior to update."), NULL scaler: TSR_ERR_INVALID_ARGUMENT
 * (nothing changes).
 */
TSR_API tsr_status tsr_grad_scaler_update(tsr_grad_scaler* scaler);

/**
 * @brief scaler.update(new_scale): the scale set to new_scale (rounded to
 * float32, as torch's fill_), the growth tracker kept; every optimizer's
 * stage back to READY. Disabled: does nothing.
 * @param[in,out] scaler    the scaler
 * @param[in]     new_scale the new scale (torch checks no value)
 * @return TSR_OK; before the first scale ("Attempted update but _scale is
 * None.  ..."), NULL scaler: TSR_ERR_INVALID_ARGUMENT (nothing changes).
 */
TSR_API tsr_status tsr_grad_scaler_update_scale(tsr_grad_scaler* scaler, double new_scale);

/**
 * @brief scaler.get_scale(): the current scale (a float32 value); before
 * the first scale the init_scale as given (a double); 1 when disabled.
 * @param[in]  scaler the scaler
 * @param[out] scale  the scale; untouched on failure
 * @return TSR_OK; NULL scaler/scale: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_grad_scaler_get_scale(const tsr_grad_scaler* scaler, double* scale);
/**
 * @brief scaler.get_growth_factor().
 * @param[in]  scaler the scaler
 * @param[out] value  the growth factor; untouched on failure
 * @return TSR_OK; NULL scaler/value: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_grad_scaler_get_growth_factor(const tsr_grad_scaler* scaler, double* value);
/**
 * @brief scaler.set_growth_factor(new_factor); torch checks no value.
 * @param[in,out] scaler the scaler
 * @param[in]     value  the new growth factor
 * @return TSR_OK; NULL scaler: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_grad_scaler_set_growth_factor(tsr_grad_scaler* scaler, double value);
/**
 * @brief scaler.get_backoff_factor().
 * @param[in]  scaler the scaler
 * @param[out] value  the backoff factor; untouched on failure
 * @return TSR_OK; NULL scaler/value: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_grad_scaler_get_backoff_factor(const tsr_grad_scaler* scaler, double* value);
/**
 * @brief scaler.set_backoff_factor(new_factor); torch checks no value.
 * @param[in,out] scaler the scaler
 * @param[in]     value  the new backoff factor
 * @return TSR_OK; NULL scaler: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_grad_scaler_set_backoff_factor(tsr_grad_scaler* scaler, double value);
/**
 * @brief scaler.get_growth_interval().
 * @param[in]  scaler the scaler
 * @param[out] value  the growth interval; untouched on failure
 * @return TSR_OK; NULL scaler/value: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_grad_scaler_get_growth_interval(const tsr_grad_scaler* scaler, int64_t* value);
/**
 * @brief scaler.set_growth_interval(new_interval); torch checks no value
 * (an interval <= 0 never grows the scale).
 * @param[in,out] scaler the scaler
 * @param[in]     value  the new growth interval
 * @return TSR_OK; NULL scaler: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_grad_scaler_set_growth_interval(tsr_grad_scaler* scaler, int64_t value);
/**
 * @brief scaler._get_growth_tracker(): clean updates counted since the
 * scale last changed; 0 when disabled.
 * @param[in]  scaler the scaler
 * @param[out] value  the count; untouched on failure
 * @return TSR_OK; NULL scaler/value: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_grad_scaler_get_growth_tracker(const tsr_grad_scaler* scaler, int64_t* value);
/**
 * @brief scaler.is_enabled().
 * @param[in]  scaler  the scaler
 * @param[out] enabled whether it scales; untouched on failure
 * @return TSR_OK; NULL scaler/enabled: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_grad_scaler_is_enabled(const tsr_grad_scaler* scaler, bool* enabled);

/**
 * @brief scaler.state_dict() of torch 1.13 as named tensors for tsr_save():
 * "scale", "growth_factor", "backoff_factor" (0-dim float64 CPU tensors:
 * torch's Python floats) and "growth_interval", "_growth_tracker" (0-dim
 * int64 CPU tensors: torch's Python ints); empty when disabled. Call it
 * after tsr_grad_scaler_update(), as torch advises.
 * @param[in]  scaler the scaler
 * @param[out] out    new reference to an immutable map (io.h's
 *                    tsr_tensor_map_* functions), names in byte order
 * @return TSR_OK; NULL scaler/out: TSR_ERR_INVALID_ARGUMENT;
 * TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_grad_scaler_state_dict(const tsr_grad_scaler* scaler, tsr_tensor_map** out);
/**
 * @brief scaler.load_state_dict(state_dict) of torch 1.13 from the named
 * tensors tsr_grad_scaler_state_dict() gives (for example those tsr_load()
 * read back). Names other than the five are ignored (a file may hold the
 * model's and optimizer's tensors too). As torch: the scale (or, before
 * the first scale, the init_scale), factors, interval and tracker are
 * replaced. Disabled: does nothing.
 * @param[in,out] scaler  the scaler
 * @param[in]     n       number of tensors
 * @param[in]     names   n names
 * @param[in]     tensors n tensors
 * @return TSR_OK; on failure nothing changes, TSR_ERR_INVALID_ARGUMENT: none
 * of the five names ("The source state dict is empty, possibly because it
 * was saved from a disabled instance of GradScaler."), one of them missing,
 * an entry that is not one number, a non-integer "growth_interval" or
 * "_growth_tracker" (or one outside int64 / int32), n < 0, NULL scaler or
 * arrays (with n > 0), a NULL name or tensor; TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_grad_scaler_load_state_dict(tsr_grad_scaler* scaler, int64_t n, const char* const* names,
                                                   tsr_tensor* const* tensors);

/**
 * @brief Adds one reference. NULL is ignored. Thread-safe.
 * @param[in] scaler the scaler, or NULL
 */
TSR_API void tsr_grad_scaler_retain(tsr_grad_scaler* scaler);
/**
 * @brief Drops one reference; the last release frees the scaler and its
 * references to optimizers. NULL is ignored. Thread-safe.
 * @param[in] scaler the scaler, or NULL
 */
TSR_API void tsr_grad_scaler_release(tsr_grad_scaler* scaler);

#ifdef __cplusplus
}
#endif
#endif
