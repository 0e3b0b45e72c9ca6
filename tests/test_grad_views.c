/* Gradients through views against PyTorch 1.13 (tests/golden/gen_autograd.py
 * -> grad_views_golden.h): transpose, permute, narrow/slice, select, expand,
 * unfold and as_strided with overlapping elements (gradients accumulate),
 * diagonal, reshape that views and reshape that copies, clone, to(dtype),
 * and chains of them. Each case also checks torch's grad_fn name, is_leaf and
 * requires_grad of every intermediate. */
#include "golden/grad_views_golden.h"
#include "helpers.h"
#include "ops_program.h"

TG_PARAMETERIZED(grad_views, golden, tg_grad_views, TG_GRAD_VIEWS_N) { tg_check_backward(c); }
