/**
 * @file tessera/print.h
 * @brief A tensor as text, the way PyTorch prints it.
 *
 * The model is repr(torch.Tensor) in PyTorch 1.13 (torch/_tensor_str.py)
 * with the settings of torch.set_printoptions: the same formatter (integer
 * mode "1., 2.", fixed "0.1235", or scientific "1.0000e-05", chosen from the
 * values printed), the same line wrapping, "..." summaries past 1,000
 * elements, and the same suffixes (device='cuda:0', dtype=tessera.float64,
 * `grad_fn=<AddBackward0>` or requires_grad=True). The one difference is the
 * dtype's module: torch writes dtype=torch.float64, tessera
 * dtype=tessera.float64, the dtype's name in every binding. Each binding's
 * str/toString/ToString/String() returns this text.
 */
#ifndef TESSERA_PRINT_H
#define TESSERA_PRINT_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief torch.set_printoptions.
 *
 * Set struct_size = sizeof(tsr_print_options) (or use
 * TSR_PRINT_OPTIONS_INIT); a caller built against an older, smaller struct
 * passes its own size and the fields it lacks take their defaults.
 */
typedef struct tsr_print_options {
  size_t struct_size; /**< sizeof(tsr_print_options) */
  /** Digits after the decimal point, 0..50. Default 4. */
  int32_t precision;
  /** A tensor with more elements than this is summarised. Default 1000. */
  int64_t threshold;
  /** Items kept at the start and end of each summarised dim, >= 1 (torch
   * 1.13 fails on 0 for a 2-D tensor). Default 3. */
  int64_t edgeitems;
  /** Characters per line before elements wrap, >= 1. Default 80. */
  int64_t linewidth;
  /** -1: scientific notation where torch picks it (its sci_mode=None, the
   * default); 0: never; 1: always. */
  int32_t sci_mode;
} tsr_print_options;
/** @brief Initializer of a tsr_print_options holding the defaults. */
#define TSR_PRINT_OPTIONS_INIT { sizeof(tsr_print_options), 4, 1000, 3, 80, -1 }

/**
 * @brief repr(t) as PyTorch 1.13 writes it.
 *
 * For example
 * @code
 *   tensor([[0.1000, 2.0000],
 *           [3.0000, 4.0000]], dtype=tessera.float64, requires_grad=True)
 * @endcode
 * Values on a device are copied to the host to be read (only the tensor's
 * own elements; nothing is changed). float16 and bfloat16 print through
 * float32, as torch prints them. Units: options count elements and
 * characters. Thread-safe: t is only read.
 * @param[in]  t       the tensor
 * @param[in]  options NULL: the defaults above
 * @param[out] text    a new NUL-terminated string; the caller frees it with
 *                     tsr_free_string()
 * @return TSR_OK; TSR_ERR_INVALID_ARGUMENT for NULL t or text, a struct_size
 * that does not cover precision, precision outside 0..50, negative
 * threshold, edgeitems < 1, linewidth < 1, sci_mode not -1/0/1 (*text
 * untouched); TSR_ERR_OUT_OF_MEMORY.
 */
TSR_API tsr_status tsr_tensor_to_string(const tsr_tensor* t, const tsr_print_options* options,
                                        char** text);

#ifdef __cplusplus
}
#endif
#endif
