/**
 * @file tessera/checkpoint.h
 * @brief Gradient checkpointing (activation recomputation).
 *
 * The model is torch.utils.checkpoint.checkpoint(fn, *args,
 * use_reentrant=False), without the callable: between tsr_checkpoint_begin()
 * and tsr_checkpoint_end(), tessera records each op it runs on this thread (a
 * replayable tape) instead of keeping the tensors those ops save for
 * backward. Tensors from outside the region (its inputs, parameters) are
 * kept, with their version counters; tensors made inside are freed when
 * you release them. At backward, the first use of a dropped tensor replays
 * the tape from the region's inputs (without grad), then each recomputed
 * tensor is freed as soon as backward has used it. Gradients are the same,
 * bit for bit, as without the region; activation memory falls to the
 * region inputs plus one region's recomputation at a time, for about one
 * extra forward pass of compute (Chen et al. 2016).
 *
 * @code
 *   tsr_checkpoint_begin(NULL);            // defaults
 *   ... ops of one block ...               // outputs are ordinary tensors
 *   tsr_checkpoint_end();
 * @endcode
 *
 * Regions are per thread and nest (an inner region is recomputed with the
 * outer one, as a nested torch checkpoint is). Parameters used inside a
 * region get gradients even when no input requires grad. Writing in place
 * to a region input after the region, then running backward, gives
 * PyTorch's version-counter error (TSR_ERR_AUTOGRAD). In-place ops inside
 * the region on tensors made there are replayed; in-place writes to memory
 * from outside the region happen once and are not replayed.
 *
 * Random ops (tsr_dropout(), ...) draw from counter-based Philox generators:
 * with preserve_rng_state a replay draws exactly the numbers of the first
 * run, so masks match.
 */
#ifndef TESSERA_CHECKPOINT_H
#define TESSERA_CHECKPOINT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Options of a region.
 *
 * Set struct_size = sizeof(tsr_checkpoint_options) (or use
 * TSR_CHECKPOINT_OPTIONS_INIT); a caller built against an older, smaller
 * struct passes its own size, and the fields it lacks take their defaults.
 */
typedef struct tsr_checkpoint_options {
  size_t struct_size; /**< sizeof(tsr_checkpoint_options) */
  /** Default true: random ops replay the same numbers (torch's
   * preserve_rng_state). False: a replay draws fresh numbers from the
   * generator, so dropout masks differ between forward and recomputation. */
  bool preserve_rng_state;
  /** Default true: recomputed sizes/dtypes must equal the forward's, else
   * backward fails with TSR_ERR_AUTOGRAD naming the op (torch's
   * determinism_check="default"). */
  bool determinism_check;
  /** Default true: a replay stops once the tensors backward asked for exist
   * (torch 2.1's early stopping); false replays the whole tape. */
  bool early_stop;
  /** Selective checkpointing (torch's create_selective_checkpoint_contexts
   * with a fixed policy): comma-separated op names ("matmul,linear") whose
   * outputs the region keeps instead of recomputing; everything else is
   * recomputed. NULL or "" keeps nothing. Op names are aten's, listed in
   * the message of TSR_ERR_INVALID_ARGUMENT for an unknown name. The string
   * is read during tsr_checkpoint_begin() only. */
  const char* keep_ops;
} tsr_checkpoint_options;

/** @brief Initializer of a tsr_checkpoint_options holding the defaults. */
#define TSR_CHECKPOINT_OPTIONS_INIT { sizeof(tsr_checkpoint_options), true, true, true, NULL }

/**
 * @brief Opens a region on the calling thread.
 *
 * A larger struct (a newer header) is read up to the fields this library
 * knows.
 * @param[in] options NULL: the defaults above
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT: struct_size that does not cover
 * preserve_rng_state (not initialised), or an unknown op name in keep_ops;
 * nothing is opened then.
 */
TSR_API tsr_status tsr_checkpoint_begin(const tsr_checkpoint_options* options);
/**
 * @brief Closes the innermost region of the calling thread. Tensors made
 * inside stay valid.
 * @return TSR_OK; TSR_ERR_AUTOGRAD when no region is open on this thread
 * (end without begin, or more ends than begins); nothing changes then.
 */
TSR_API tsr_status tsr_checkpoint_end(void);
/**
 * @brief Number of regions open on the calling thread (0 outside any).
 * Never fails.
 * @return the depth.
 */
TSR_API int64_t tsr_checkpoint_depth(void);

/**
 * @brief The callback form: a function run inside a region
 * (tsr_checkpoint()).
 * @param[in]  ctx         the ctx given to tsr_checkpoint()
 * @param[in]  n_inputs    number of inputs
 * @param[in]  inputs      the input handles, borrowed for the call
 * @param[in]  max_outputs capacity of outputs
 * @param[out] n_outputs   the number of outputs written
 * @param[out] outputs     at most max_outputs new references
 * @return TSR_OK or the status of the tessera call that failed (its message
 * stays the thread's last error).
 */
typedef tsr_status (*tsr_checkpoint_fn)(void* ctx, int64_t n_inputs, tsr_tensor* const* inputs,
                                        int64_t max_outputs, int64_t* n_outputs,
                                        tsr_tensor** outputs);

/**
 * @brief torch.utils.checkpoint.checkpoint(fn, *inputs, use_reentrant=False).
 *
 * Begins a region with options, calls fn(ctx, n_inputs, inputs,
 * max_outputs, n_outputs, outputs), ends the region. fn runs synchronously
 * on the calling thread; ctx is passed through and never freed by tessera.
 * On any failure the handles fn wrote are released, every region this call
 * opened is closed, and *n_outputs/outputs are untouched.
 * @param[in]  fn          the function
 * @param[in]  ctx         passed to fn
 * @param[in]  n_inputs    number of inputs (>= 0)
 * @param[in]  inputs      n_inputs handles (may be NULL when n_inputs == 0)
 * @param[in]  options     as for tsr_checkpoint_begin() (NULL: defaults)
 * @param[in]  max_outputs number of slots in outputs
 * @param[out] n_outputs   the number of outputs
 * @param[out] outputs     the caller's array of max_outputs slots; on
 *                         success *n_outputs handles (new references, the
 *                         caller releases each) are in outputs[0..*n_outputs)
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for NULL fn/n_outputs/outputs, a
 * negative count, NULL inputs with n_inputs > 0, or bad options (as
 * tsr_checkpoint_begin()); fn's status when fn fails (its message is kept);
 * TSR_ERR_INVALID_ARGUMENT when fn reports more than max_outputs or a
 * negative count, or leaves a NULL output; TSR_ERR_AUTOGRAD when fn leaves
 * regions it opened unclosed or closes the region it runs in.
 */
TSR_API tsr_status tsr_checkpoint(tsr_checkpoint_fn fn, void* ctx, int64_t n_inputs,
                                  tsr_tensor* const* inputs, const tsr_checkpoint_options* options,
                                  int64_t max_outputs, int64_t* n_outputs, tsr_tensor** outputs);

/**
 * @brief One layer of a sequential model: *output = layer(input).
 * @param[in]  ctx    the layer's entry of ctxs (tsr_checkpoint_sequential())
 * @param[in]  input  the layer's input
 * @param[out] output a new reference
 * @return TSR_OK or the status of the tessera call that failed.
 */
typedef tsr_status (*tsr_layer_fn)(void* ctx, const tsr_tensor* input, tsr_tensor** output);

/**
 * @brief torch.utils.checkpoint.checkpoint_sequential(functions, segments,
 * input, use_reentrant=False).
 *
 * Runs layers[0..n_layers) in order, in `segments` consecutive groups of
 * n_layers / segments layers; every group but the last runs inside its own
 * region (the last one, with the remaining layers, runs normally, as
 * torch's does).
 * @param[in]  n_layers number of layers (>= 1)
 * @param[in]  layers   n_layers functions
 * @param[in]  ctxs     ctxs[i] is passed to layers[i] (ctxs may be NULL: all
 *                      NULL)
 * @param[in]  segments number of groups, in [1, n_layers]
 * @param[in]  input    the first layer's input
 * @param[in]  options  as for tsr_checkpoint_begin() (NULL: defaults)
 * @param[out] out      the last layer's output, a new reference
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for NULL layers/input/out,
 * n_layers < 1, segments < 1 or > n_layers, a NULL layer, or bad options; a
 * layer's status when it fails (regions closed, intermediate tensors
 * released, *out untouched).
 */
TSR_API tsr_status tsr_checkpoint_sequential(int64_t n_layers, const tsr_layer_fn* layers,
                                             void* const* ctxs, int64_t segments,
                                             const tsr_tensor* input,
                                             const tsr_checkpoint_options* options,
                                             tsr_tensor** out);

#ifdef __cplusplus
}
#endif
#endif
