/**
 * @file tessera/optim.h
 * @brief Optimizers (torch.optim) and parameter initializers
 * (torch.nn.init).
 *
 * An optimizer holds references to a list of parameters (leaf tensors that
 * usually require grad) and updates them in place from their .grad:
 *
 * @code
 *   tsr_adam_options o;
 *   tsr_adam_options_init(&o);           // torch.optim.Adam's defaults
 *   o.lr = 3e-4;
 *   tsr_optimizer* opt;
 *   tsr_optimizer_adam(params, n, &o, &opt);
 *   for (...) {
 *     tsr_optimizer_zero_grad(opt, true);
 *     ... forward, tsr_backward(loss, NULL, false) ...
 *     tsr_optimizer_step(opt);
 *   }
 *   tsr_optimizer_release(opt);
 * @endcode
 *
 * Semantics are torch.optim's of PyTorch 1.13 with parameter groups
 * (tsr_optimizer_add_param_group()) and foreach=False (the single-tensor algorithms _single_tensor_sgd/_adam/
 * _adamw), maximize=False, capturable=False: same update formulas, same
 * state (torch's keys, "step" a 0-dim float32 CPU tensor as in 1.13), same
 * argument errors and messages. A parameter whose .grad is NULL at a step is
 * skipped entirely (its state, "step" included, does not change). A step
 * runs under no_grad with the library's in-place ops, so it works for any
 * strides and for parameters on any device those ops support (state lives
 * on the parameter's device and has its strides), and bumps each written
 * tensor's version counter as torch does. Parameters: floating dtypes
 * (float32, float64; float16/bfloat16 as far as the in-place ops support
 * them). Numbers agree with torch to rounding (tests/test_optim.c compares
 * four steps of every variant with PyTorch 1.13 to 1e-6).
 *
 * Thread-safety: an optimizer is used by one thread at a time (as a
 * torch.optim optimizer); retain/release are thread-safe.
 *
 * @anchor optim_create
 * <b>Creating an optimizer</b> (tsr_optimizer_sgd(), tsr_optimizer_adam(),
 * tsr_optimizer_adamw()): statuses, with torch's messages where torch has
 * the check; nothing is created on failure:
 * - TSR_ERR_INVALID_ARGUMENT: NULL params (with num_params > 0), a NULL
 *   params[i], NULL out; num_params == 0 ("optimizer got an empty parameter
 *   list"); a parameter that is not a leaf ("can't optimize a non-leaf
 *   Tensor"); the same tensor twice ("optimizer contains a parameter group
 *   with duplicate parameters", torch's warning); a bad struct_size; lr < 0
 *   or unset ("Invalid learning rate: -0.1"); momentum < 0 ("Invalid
 *   momentum value: ..."); weight_decay < 0 ("Invalid weight_decay value:
 *   ..."); nesterov with momentum <= 0 or dampening != 0 ("Nesterov momentum
 *   requires a momentum and zero dampening"); eps < 0 ("Invalid epsilon
 *   value: ..."); beta1/beta2 outside [0, 1) ("Invalid beta parameter at
 *   index 0: 1.0").
 * - TSR_ERR_DTYPE_MISMATCH: a parameter of a non-floating dtype.
 * - TSR_ERR_OUT_OF_MEMORY.
 *
 * @anchor optim_init
 * <b>torch.nn.init</b> (tsr_init_*): each fills t in place under no_grad (so
 * t may be a leaf that requires grad), bumps its version counter once and
 * works for any strides and any device copy_ reaches. Random values come
 * from g (random.h: Philox, so they are not torch's numbers, but the same
 * distribution) drawn as one contiguous block of numel(t) values in t's C
 * order; g advances only on success. Statuses: NULL t (or g where taken):
 * TSR_ERR_INVALID_ARGUMENT; a non-floating t: TSR_ERR_DTYPE_MISMATCH;
 * TSR_ERR_OUT_OF_MEMORY. t is unchanged on failure.
 */
#ifndef TESSERA_OPTIM_H
#define TESSERA_OPTIM_H

#include "io.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Opaque, reference-counted optimizer handle (torch.optim.Optimizer). */
typedef struct tsr_optimizer tsr_optimizer;

/**
 * @brief Options of torch.optim.SGD.
 *
 * Set struct_size = sizeof(tsr_sgd_options), or call tsr_sgd_options_init().
 * Fields are only ever appended (a library newer than the caller's header
 * gives the fields past struct_size their tsr_sgd_options_init values); a
 * struct_size that does not cover lr is TSR_ERR_INVALID_ARGUMENT.
 */
typedef struct tsr_sgd_options {
  size_t struct_size;  /**< sizeof(tsr_sgd_options) */
  double lr;           /**< learning rate, >= 0. No default (torch's `required`):
                          tsr_sgd_options_init sets NaN, which tsr_optimizer_sgd
                          refuses until the caller sets it. */
  double momentum;     /**< >= 0; 0 (default) keeps no momentum_buffer */
  double dampening;    /**< default 0 */
  double weight_decay; /**< L2 penalty added to the gradient, >= 0; default 0 */
  bool nesterov;       /**< default false; needs momentum > 0 and dampening == 0 */
} tsr_sgd_options;

/**
 * @brief Options of torch.optim.Adam and torch.optim.AdamW (struct_size as
 * for tsr_sgd_options; the first field is lr).
 */
typedef struct tsr_adam_options {
  size_t struct_size;  /**< sizeof(tsr_adam_options) */
  double lr;           /**< >= 0; default 1e-3 */
  double beta1, beta2; /* each in [0, 1); defaults 0.9, 0.999 */
  double eps;          /**< >= 0; default 1e-8 */
  double weight_decay; /**< >= 0; default 0 (Adam's). AdamW's torch default is
                          1e-2: set it yourself for AdamW (Adam adds
                          weight_decay * param to the gradient, AdamW
                          multiplies param by 1 - lr * weight_decay). */
  bool amsgrad;        /**< default false */
} tsr_adam_options;
/** @var tsr_adam_options::beta1
 * in [0, 1); default 0.9 */
/** @var tsr_adam_options::beta2
 * in [0, 1); default 0.999 */

/**
 * @brief Fills *o with the SGD defaults above and struct_size = sizeof(*o).
 * NULL o is ignored.
 * @param[out] o the options
 */
TSR_API void tsr_sgd_options_init(tsr_sgd_options* o);
/**
 * @brief Fills *o with the Adam defaults above and struct_size = sizeof(*o).
 * NULL o is ignored.
 * @param[out] o the options
 */
TSR_API void tsr_adam_options_init(tsr_adam_options* o);

/**
 * @brief torch.optim.SGD(params, **o), one parameter group of num_params
 * tensors.
 *
 * The optimizer keeps a reference to each parameter's tensor (not to the
 * handles, which the caller keeps and releases as usual).
 * @param[in]  params     num_params parameter tensors
 * @param[in]  num_params number of parameters (> 0)
 * @param[in]  o          may be NULL: the defaults (for SGD that leaves lr
 *                        unset, an error)
 * @param[out] out        new reference
 * @return TSR_OK, or a status of @ref optim_create "creating an optimizer".
 */
TSR_API tsr_status tsr_optimizer_sgd(tsr_tensor* const* params, size_t num_params,
                                     const tsr_sgd_options* o, tsr_optimizer** out);
/**
 * @brief torch.optim.Adam(params, **o), one parameter group of num_params
 * tensors.
 *
 * The optimizer keeps a reference to each parameter's tensor (not to the
 * handles, which the caller keeps and releases as usual).
 * @param[in]  params     num_params parameter tensors
 * @param[in]  num_params number of parameters (> 0)
 * @param[in]  o          may be NULL: the defaults
 * @param[out] out        new reference
 * @return TSR_OK, or a status of @ref optim_create "creating an optimizer".
 */
TSR_API tsr_status tsr_optimizer_adam(tsr_tensor* const* params, size_t num_params,
                                      const tsr_adam_options* o, tsr_optimizer** out);
/**
 * @brief torch.optim.AdamW(params, **o), one parameter group of num_params
 * tensors.
 *
 * The optimizer keeps a reference to each parameter's tensor (not to the
 * handles, which the caller keeps and releases as usual).
 * @param[in]  params     num_params parameter tensors
 * @param[in]  num_params number of parameters (> 0)
 * @param[in]  o          may be NULL: the defaults (weight_decay 0, not
 *                        AdamW's torch default 1e-2)
 * @param[out] out        new reference
 * @return TSR_OK, or a status of @ref optim_create "creating an optimizer".
 */
TSR_API tsr_status tsr_optimizer_adamw(tsr_tensor* const* params, size_t num_params,
                                       const tsr_adam_options* o, tsr_optimizer** out);

/**
 * @brief optimizer.step(): one update of every parameter that has a .grad,
 * in parameter order, under no_grad.
 *
 * Before anything is written every gradient is checked.
 * @param[in,out] opt the optimizer
 * @return TSR_OK; a gradient must have its parameter's sizes
 * (TSR_ERR_SHAPE_MISMATCH), dtype (TSR_ERR_DTYPE_MISMATCH) and device
 * (TSR_ERR_DEVICE_MISMATCH), and the parameter must not have overlapping
 * elements (TSR_ERR_INVALID_ARGUMENT, as torch's in-place ops); on these
 * errors nothing changes. NULL opt: TSR_ERR_INVALID_ARGUMENT. An out of
 * memory error (TSR_ERR_OUT_OF_MEMORY) or a device failure part way can
 * leave earlier parameters updated, as in torch.
 */
TSR_API tsr_status tsr_optimizer_step(tsr_optimizer* opt);
/**
 * @brief optimizer.zero_grad(set_to_none) of torch 1.13.
 * @param[in,out] opt         the optimizer
 * @param[in]     set_to_none true drops each parameter's .grad (tsr_grad()
 *                            then gives NULL); otherwise a gradient with a
 *                            grad_fn is detached and every gradient is
 *                            filled with zeros in place (its version counter
 *                            bumped)
 * @return TSR_OK; NULL opt: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_optimizer_zero_grad(tsr_optimizer* opt, bool set_to_none);
/**
 * @brief Sets param_groups[0]["lr"] (tsr_optimizer_set_group_option() for
 * any group); the next step uses the new value (what
 * an LR scheduler does).
 * @param[in,out] opt the optimizer
 * @param[in]     lr  the learning rate, >= 0
 * @return TSR_OK; lr < 0: TSR_ERR_INVALID_ARGUMENT ("Invalid learning rate:
 * ..."); NULL opt: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_optimizer_set_lr(tsr_optimizer* opt, double lr);
/**
 * @brief Gets param_groups[0]["lr"].
 * @param[in]  opt the optimizer
 * @param[out] lr  the learning rate; untouched on failure
 * @return TSR_OK; NULL opt/lr: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_optimizer_get_lr(const tsr_optimizer* opt, double* lr);
/**
 * @brief optimizer.state[params[param_index]][key].
 *
 * Keys: SGD "momentum_buffer" (parameter's dtype, sizes, device); Adam/AdamW
 * "step" (0-dim float32 CPU tensor counting this parameter's steps),
 * "exp_avg", "exp_avg_sq", "max_exp_avg_sq".
 * @param[in]  opt         the optimizer
 * @param[in]  param_index index of the parameter, as given at creation
 * @param[in]  key         the state key
 * @param[out] out         a new reference to the state tensor itself
 *                         (writing it changes the optimizer's state, as in
 *                         torch), or NULL with TSR_OK when the optimizer
 *                         keeps that key but has no value yet (before the
 *                         parameter's first step; "momentum_buffer" of SGD
 *                         without momentum; "max_exp_avg_sq" without
 *                         amsgrad)
 * @return TSR_OK; another key, param_index >= the number of parameters, NULL
 * opt/key/out: TSR_ERR_INVALID_ARGUMENT (*out untouched).
 */
TSR_API tsr_status tsr_optimizer_state(const tsr_optimizer* opt, size_t param_index, const char* key,
                                       tsr_tensor** out);
/**
 * @brief Number of parameters.
 * @param[in] opt the optimizer
 * @return the count; -1 for NULL (TSR_ERR_INVALID_ARGUMENT recorded).
 */
TSR_API int64_t tsr_optimizer_num_params(const tsr_optimizer* opt);
/* ---- Parameter groups and state_dict --------------------------------------- */

/**
 * @brief optimizer.add_param_group({"params": params, key: value, ...}) of
 * torch 1.13: a new parameter group whose options are the optimizer's
 * defaults (what it was created with) overridden by the given pairs.
 *
 * Parameters are numbered across groups in order (the first group's are
 * 0..n-1, the next group's follow): tsr_optimizer_state() and the state_dict
 * use those numbers. Option keys are torch's (SGD: "lr", "momentum",
 * "dampening", "weight_decay", "nesterov"; Adam/AdamW: "lr", "beta1",
 * "beta2" (torch's "betas" pair), "eps", "weight_decay", "amsgrad"; booleans
 * as 0/1); other keys are stored with the group as torch keeps any key of a
 * group's dict (schedulers keep "initial_lr" there).
 * @param[in,out] opt           the optimizer
 * @param[in]     params        num_params parameter tensors (num_params may be 0)
 * @param[in]     num_params    number of parameters
 * @param[in]     option_keys   num_options keys
 * @param[in]     option_values num_options values
 * @param[in]     num_options   number of overridden options
 * @return TSR_OK; on failure nothing changes: a parameter that is already
 * in a group (TSR_ERR_INVALID_ARGUMENT, "some parameters appear in more
 * than one parameter group"), the statuses of @ref optim_create "creating
 * an optimizer" for the parameters and the options (tessera checks a
 * group's options as the constructor checks its arguments; torch checks
 * only the constructor's), NULL opt, NULL arrays with a non-zero count or a
 * NULL key: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_optimizer_add_param_group(tsr_optimizer* opt, tsr_tensor* const* params, size_t num_params,
                                                 const char* const* option_keys, const double* option_values,
                                                 size_t num_options);
/**
 * @brief len(optimizer.param_groups).
 * @param[in] opt the optimizer
 * @return the count; -1 for NULL (TSR_ERR_INVALID_ARGUMENT recorded).
 */
TSR_API int64_t tsr_optimizer_param_group_count(const tsr_optimizer* opt);
/**
 * @brief len(optimizer.param_groups[group]["params"]): the group's
 * parameters are numbered from the sum of the earlier groups' sizes.
 * @param[in] opt   the optimizer
 * @param[in] group the group index
 * @return the count; -1 for NULL opt or group out of range
 * (TSR_ERR_INVALID_ARGUMENT recorded).
 */
TSR_API int64_t tsr_optimizer_param_group_size(const tsr_optimizer* opt, size_t group);
/**
 * @brief Number of options of param_groups[group] (its keys but "params").
 * @param[in] opt   the optimizer
 * @param[in] group the group index
 * @return the count; -1 for NULL opt or group out of range
 * (TSR_ERR_INVALID_ARGUMENT recorded).
 */
TSR_API int64_t tsr_optimizer_group_option_count(const tsr_optimizer* opt, size_t group);
/**
 * @brief The i-th option key of param_groups[group], in byte order of the
 * keys.
 * @param[in] opt   the optimizer
 * @param[in] group the group index
 * @param[in] i     the key's position, < tsr_optimizer_group_option_count()
 * @return a borrowed string, valid until the next
 * tsr_optimizer_set_group_option() or tsr_optimizer_load_state_dict() on
 * opt or its release; NULL (TSR_ERR_INVALID_ARGUMENT recorded) for NULL opt
 * or an index out of range.
 */
TSR_API const char* tsr_optimizer_group_option_key(const tsr_optimizer* opt, size_t group, size_t i);
/**
 * @brief param_groups[group][key].
 * @param[in]  opt   the optimizer
 * @param[in]  group the group index
 * @param[in]  key   the option (keys as for tsr_optimizer_add_param_group())
 * @param[out] value its value; untouched on failure
 * @return TSR_OK; a key the group does not hold, group out of range, NULL
 * opt/key/value: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_optimizer_get_group_option(const tsr_optimizer* opt, size_t group, const char* key,
                                                  double* value);
/**
 * @brief param_groups[group][key] = value; the next step uses it (what a
 * scheduler does with "lr", and OneCycleLR with "momentum" / "beta1").
 *
 * The optimizer's own options are checked as its constructor checks them
 * (lr < 0: "Invalid learning rate: ..."); any other key is stored as given.
 * @param[in,out] opt   the optimizer
 * @param[in]     group the group index
 * @param[in]     key   the option
 * @param[in]     value the value
 * @return TSR_OK; an invalid value for the optimizer's option, group out of
 * range, NULL opt/key: TSR_ERR_INVALID_ARGUMENT (nothing changes).
 */
TSR_API tsr_status tsr_optimizer_set_group_option(tsr_optimizer* opt, size_t group, const char* key,
                                                  double value);
/**
 * @brief optimizer.state_dict() of torch 1.13, flattened into named tensors
 * for tsr_save():
 * - "state.<i>.<key>": the state tensor of parameter i (numbered as in
 *   tsr_optimizer_add_param_group()) under torch's key, for parameters
 *   that have state; the tensors themselves, not copies (as torch's
 *   state_dict; tsr_save() writes their contents).
 * - "param_groups.<g>.<option>": a 0-dim float64 CPU tensor per option of
 *   group g (Adam's "betas" as "beta1" and "beta2").
 * - "param_groups.<g>.params": a 1-dim int64 CPU tensor of the group's
 *   parameter numbers.
 * @param[in]  opt the optimizer
 * @param[out] out new reference to an immutable map (read it with io.h's
 *                 tsr_tensor_map_* functions), names in byte order
 * @return TSR_OK; NULL opt/out: TSR_ERR_INVALID_ARGUMENT;
 * TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_optimizer_state_dict(const tsr_optimizer* opt, tsr_tensor_map** out);
/**
 * @brief optimizer.load_state_dict(state_dict) of torch 1.13 from the
 * named tensors tsr_optimizer_state_dict() gives (for example those of
 * tsr_load() of a file tsr_save() wrote from them). Names of other forms
 * are ignored (a file may hold the model's tensors too).
 *
 * As torch: the groups' options are replaced by the loaded ones (each
 * group keeps its parameters), and the state of every parameter is
 * replaced by copies of the loaded tensors, cast to the parameter's dtype
 * and moved to its device ("step" kept as it is); a parameter without
 * loaded state has none afterwards.
 * @param[in,out] opt     the optimizer
 * @param[in]     n       number of tensors
 * @param[in]     names   n names
 * @param[in]     tensors n tensors
 * @return TSR_OK; on failure nothing changes: a different number of groups
 * ("loaded state dict has a different number of parameter groups"), a group
 * of another size ("loaded state dict contains a parameter group that
 * doesn't match the size of optimizer's group"), a missing
 * "param_groups.<g>.params" or option the optimizer reads, an option or
 * params tensor that is not a one-element / 1-dim number tensor, a state
 * key the optimizer does not keep, a parameter number out of range, a
 * state tensor whose sizes differ from its parameter's ("step": not one
 * element), an Adam/AdamW parameter state without all of "step",
 * "exp_avg" and "exp_avg_sq", NULL opt or arrays (with n > 0) or a NULL
 * name or tensor: TSR_ERR_INVALID_ARGUMENT; an option value the optimizer refuses: as for
 * tsr_optimizer_set_group_option(); TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_optimizer_load_state_dict(tsr_optimizer* opt, int64_t n, const char* const* names,
                                                 tsr_tensor* const* tensors);

/**
 * @brief Adds one reference. NULL is ignored. Thread-safe.
 * @param[in] opt the optimizer, or NULL
 */
TSR_API void tsr_optimizer_retain(tsr_optimizer* opt);
/**
 * @brief Drops one reference; the last release frees the optimizer, its
 * state and its references to the parameters. NULL is ignored. Thread-safe.
 * @param[in] opt the optimizer, or NULL
 */
TSR_API void tsr_optimizer_release(tsr_optimizer* opt);

/* ---- torch.nn.init: rules in the file comment ---------------------------- */

/**
 * @brief torch.nn.init.calculate_gain(nonlinearity, param).
 *
 * "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d/2d/3d",
 * "sigmoid": 1; "tanh": 5/3; "relu": sqrt(2); "leaky_relu":
 * sqrt(2 / (1 + slope^2)) with slope = *param, or 0.01 when param is NULL;
 * "selu": 3/4.
 * @param[in]  nonlinearity the name
 * @param[in]  param        leaky_relu's slope, or NULL
 * @param[out] gain         the gain
 * @return TSR_OK; another name: TSR_ERR_INVALID_ARGUMENT ("Unsupported
 * nonlinearity foo"). NULL nonlinearity/gain: TSR_ERR_INVALID_ARGUMENT.
 */
TSR_API tsr_status tsr_init_calculate_gain(const char* nonlinearity, const double* param, double* gain);
/**
 * @brief torch.nn.init._calculate_fan_in_and_fan_out: for t of sizes
 * [out, in, k...], fan_in = in * prod(k), fan_out = out * prod(k).
 * @param[in]  t       the tensor
 * @param[out] fan_in  in * prod(k)
 * @param[out] fan_out out * prod(k)
 * @return TSR_OK; fewer than 2 dims: TSR_ERR_INVALID_ARGUMENT ("Fan in and
 * fan out can not be computed for tensor with fewer than 2 dimensions").
 */
TSR_API tsr_status tsr_init_calculate_fan_in_and_fan_out(const tsr_tensor* t, int64_t* fan_in,
                                                         int64_t* fan_out);
/**
 * @brief torch.nn.init.kaiming_uniform_(t, a, mode, nonlinearity): uniform
 * in [-bound, bound), bound = sqrt(3) * calculate_gain(nonlinearity, a) /
 * sqrt(fan).
 *
 * torch's defaults: a = 0, "fan_in", "leaky_relu". A t with no elements is
 * left alone (TSR_OK, torch warns). The rules of @ref optim_init
 * "torch.nn.init" apply.
 * @param[in,out] t            the tensor filled
 * @param[in]     a            leaky_relu's slope
 * @param[in]     mode         "fan_in" | "fan_out" (fan = fan_in or fan_out);
 *                             NULL takes the default
 * @param[in]     nonlinearity as for tsr_init_calculate_gain(); NULL takes
 *                             the default
 * @param[in,out] g            the generator
 * @return TSR_OK; another mode: TSR_ERR_INVALID_ARGUMENT ("Mode fan_avg not
 * supported, please use one of ['fan_in', 'fan_out']"); fewer than 2 dims
 * is an error as for tsr_init_calculate_fan_in_and_fan_out(); the
 * torch.nn.init statuses.
 */
TSR_API tsr_status tsr_init_kaiming_uniform_(tsr_tensor* t, double a, const char* mode,
                                             const char* nonlinearity, tsr_generator* g);
/**
 * @brief torch.nn.init.xavier_uniform_(t, gain): uniform in [-b, b),
 * b = gain * sqrt(6 / (fan_in + fan_out)). The rules of @ref optim_init
 * "torch.nn.init" apply.
 * @param[in,out] t    the tensor filled
 * @param[in]     gain the gain
 * @param[in,out] g    the generator
 * @return TSR_OK; fewer than 2 dims: TSR_ERR_INVALID_ARGUMENT; the
 * torch.nn.init statuses.
 */
TSR_API tsr_status tsr_init_xavier_uniform_(tsr_tensor* t, double gain, tsr_generator* g);
/**
 * @brief torch.nn.init.zeros_(t). The rules of @ref optim_init
 * "torch.nn.init" apply.
 * @param[in,out] t the tensor filled
 * @return TSR_OK; the torch.nn.init statuses.
 */
TSR_API tsr_status tsr_init_zeros_(tsr_tensor* t);
/**
 * @brief torch.nn.init.normal_(t, mean, std): normal values
 * mean + std * N(0, 1). The rules of @ref optim_init "torch.nn.init" apply.
 * @param[in,out] t    the tensor filled
 * @param[in]     mean the mean
 * @param[in]     std  the standard deviation, >= 0
 * @param[in,out] g    the generator
 * @return TSR_OK; std < 0: TSR_ERR_INVALID_ARGUMENT ("normal expects
 * std >= 0.0, but found std -1"); the torch.nn.init statuses.
 */
TSR_API tsr_status tsr_init_normal_(tsr_tensor* t, double mean, double std, tsr_generator* g);
/**
 * @brief torch.nn.init.uniform_(t, a, b): uniform in [a, b). The rules of
 * @ref optim_init "torch.nn.init" apply.
 * @param[in,out] t the tensor filled
 * @param[in]     a lower bound
 * @param[in]     b upper bound
 * @param[in,out] g the generator
 * @return TSR_OK; a > b: TSR_ERR_INVALID_ARGUMENT (torch's "uniform_
 * expects to return a [from, to) range, but found from=1 > to=0"); the
 * torch.nn.init statuses.
 */
TSR_API tsr_status tsr_init_uniform_(tsr_tensor* t, double a, double b, tsr_generator* g);

#ifdef __cplusplus
}
#endif
#endif
