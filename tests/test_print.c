/* tsr_tensor_to_string against repr(torch.Tensor) of PyTorch 1.13
 * (golden/print_golden.h, from golden/gen_print.py): every dtype, the
 * formatter's integer, fixed and scientific modes, non-finite values,
 * summaries, line wrapping, views, autograd suffixes and print options;
 * then the error paths. */
#include "helpers.h"

#include <stdlib.h>
#include <string.h>

#include "golden/print_golden.h"

/* The case's tensor, built as gen_print.py builds it. */
static tsr_tensor* build(const print_case* c) {
  int64_t numel = 1;
  for (int64_t d = 0; d < c->ndim; ++d) numel *= c->sizes[d];
  double* vals = malloc((size_t)(numel ? numel : 1) * sizeof *vals);
  cr_assert_not_null(vals);
  for (int64_t i = 0; i < numel; ++i)
    vals[i] = c->arange ? (double)i * c->step + c->start : c->values[i];
  tsr_tensor *f64 = NULL, *t = NULL;
  TSR_ASSERT_OK(tsr_from_data(vals, (size_t)numel * sizeof *vals, c->ndim, c->sizes, TSR_FLOAT64,
                              &f64));
  free(vals);
  TSR_ASSERT_OK(tsr_to_dtype(f64, c->dtype, &t));
  tsr_tensor_release(f64);
  if (c->transpose) {
    tsr_tensor* tt = NULL;
    TSR_ASSERT_OK(tsr_transpose(t, 0, 1, &tt));
    tsr_tensor_release(t);
    t = tt;
  }
  if (c->requires_grad) {
    TSR_ASSERT_OK(tsr_set_requires_grad(t, true));
    if (c->times_two) {
      tsr_tensor* y = NULL;
      TSR_ASSERT_OK(tsr_mul_scalar(t, 2.0, &y));
      tsr_tensor_release(t);
      t = y;
    }
  }
  return t;
}

Test(print, matches_torch_repr) {
  for (size_t i = 0; i < N_PRINT_CASES; ++i) {
    const print_case* c = &print_cases[i];
    tsr_tensor* t = build(c);
    char* text = NULL;
    TSR_ASSERT_OK(tsr_tensor_to_string(t, &c->options, &text));
    cr_expect_str_eq(text, c->expected, "case %s:\n%s\nexpected\n%s", c->name, text, c->expected);
    tsr_free_string(text);
    tsr_tensor_release(t);
  }
}

/* NULL options are torch's defaults. */
Test(print, null_options_are_the_defaults) {
  const int64_t sizes[] = {2, 2};
  const float vals[] = {1, 2, 3, 4};
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_from_data(vals, sizeof vals, 2, sizes, TSR_FLOAT32, &t));
  char* text = NULL;
  TSR_ASSERT_OK(tsr_tensor_to_string(t, NULL, &text));
  cr_assert_str_eq(text, "tensor([[1., 2.],\n        [3., 4.]])");
  tsr_free_string(text);
  tsr_tensor_release(t);
}

/* A caller built against an older header passes a smaller struct: the
 * fields past it take their defaults. */
Test(print, older_struct_takes_defaults) {
  const int64_t n = 3;
  const float vals[] = {1e-5f, 1, 2};
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_from_data(vals, sizeof vals, 1, &n, TSR_FLOAT32, &t));
  tsr_print_options o = TSR_PRINT_OPTIONS_INIT;
  o.precision = 2;
  o.sci_mode = 0; /* past the smaller struct: ignored */
  o.struct_size = offsetof(tsr_print_options, threshold);
  char* text = NULL;
  TSR_ASSERT_OK(tsr_tensor_to_string(t, &o, &text));
  cr_assert_str_eq(text, "tensor([1.00e-05, 1.00e+00, 2.00e+00])");
  tsr_free_string(text);
  tsr_tensor_release(t);
}

Test(print, bad_arguments_leave_text_untouched) {
  const int64_t n = 2;
  tsr_tensor* t = NULL;
  TSR_ASSERT_OK(tsr_zeros(1, &n, TSR_FLOAT32, TSR_CPU, &t));
  char* text = (char*)"untouched";
  TSR_ASSERT_FAILS(tsr_tensor_to_string(NULL, NULL, &text), TSR_ERR_INVALID_ARGUMENT, "NULL");
  TSR_ASSERT_FAILS(tsr_tensor_to_string(t, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "text is NULL");
  struct {
    tsr_print_options o;
    const char* message;
  } bad[] = {
      {{sizeof(size_t), 4, 1000, 3, 80, -1}, "struct_size is 8"},
      {{sizeof(tsr_print_options), -1, 1000, 3, 80, -1}, "precision -1 is outside 0..50"},
      {{sizeof(tsr_print_options), 51, 1000, 3, 80, -1}, "precision 51 is outside 0..50"},
      {{sizeof(tsr_print_options), 4, -1, 3, 80, -1}, "threshold -1 is negative"},
      {{sizeof(tsr_print_options), 4, 1000, 0, 80, -1}, "edgeitems 0 is less than 1"},
      {{sizeof(tsr_print_options), 4, 1000, 3, 0, -1}, "linewidth 0 is less than 1"},
      {{sizeof(tsr_print_options), 4, 1000, 3, 80, 2}, "sci_mode 2 is not -1 (auto), 0 or 1"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    TSR_ASSERT_FAILS(tsr_tensor_to_string(t, &bad[i].o, &text), TSR_ERR_INVALID_ARGUMENT,
                     bad[i].message);
    cr_assert_str_eq(text, "untouched");
  }
  tsr_tensor_release(t);
}
