/* Error paths of the core tensor API (tensor.h, views.h, layout.h, error.h):
 * one test per path, each checking the status, the recorded code and
 * message, that the out parameter still holds its sentinel, and that the
 * inputs are unchanged. Then NULL handles for every query, and the
 * thread-local error record. Messages are PyTorch's where it has one. */
#include "helpers.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>

/* Asserts call fails with status and a message containing needle, and that
 * the tensor out parameter `out` (initialised to SENTINEL) was not written. */
#define EXPECT_FAILS_UNTOUCHED(call, out, status, needle) \
  do {                                                    \
    (out) = SENTINEL;                                     \
    TSR_ASSERT_FAILS(call, status, needle);               \
    cr_assert_eq((out), SENTINEL, "%s wrote its out parameter", #call); \
  } while (0)

/* The fixture tensor x = arange(24., float32).view(2, 3, 4), and its sizes. */
static tsr_tensor* x;
static const int64_t kX[] = {2, 3, 4}, kXStrides[] = {12, 4, 1};

static void setup(void) {
  tsr_tensor* a;
  TSR_ASSERT_OK(tsr_arange(0, 24, 1, TSR_FLOAT32, TSR_CPU, &a));
  TSR_ASSERT_OK(tsr_view(a, 3, kX, &x));
  tsr_tensor_release(a);
}

/* x's geometry, values and version are what setup made. */
static void teardown(void) {
  tsr_assert_geometry(x, 3, kX, kXStrides);
  cr_assert_eq(tsr_tensor_storage_offset(x), 0);
  cr_assert_eq(tsr_version(x), 0, "a failed call bumped the version");
  float v[24];
  TSR_ASSERT_OK(tsr_copy_to_buffer(x, v, sizeof v, NULL));
  for (int i = 0; i < 24; ++i) cr_assert_eq(v[i], (float)i, "element %d changed", i);
  tsr_tensor_release(x);
  x = NULL;
}

#define ETEST(suite, name) Test(suite, name, .init = setup, .fini = teardown)

/* ---- NULL handles in queries ---------------------------------------------------- */

/* Each query on NULL returns its sentinel and records TSR_ERR_INVALID_ARGUMENT. */
#define EXPECT_NULL_QUERY(expr, sentinel)                                        \
  do {                                                                           \
    tsr_clear_last_error();                                                      \
    cr_assert((expr) == (sentinel), "%s did not return its sentinel", #expr);    \
    cr_assert_eq(tsr_last_error_code(), TSR_ERR_INVALID_ARGUMENT, "%s", #expr);  \
    cr_assert(strstr(tsr_last_error_message(), "is NULL"), "%s: \"%s\"", #expr, \
              tsr_last_error_message());                                         \
  } while (0)

Test(errors_queries, null_tensor_handles_return_sentinels) {
  EXPECT_NULL_QUERY(tsr_tensor_ndim(NULL), -1);
  EXPECT_NULL_QUERY(tsr_tensor_sizes(NULL), NULL);
  EXPECT_NULL_QUERY(tsr_tensor_strides(NULL), NULL);
  EXPECT_NULL_QUERY(tsr_tensor_storage_offset(NULL), -1);
  EXPECT_NULL_QUERY(tsr_tensor_numel(NULL), -1);
  EXPECT_NULL_QUERY(tsr_tensor_element_size(NULL), -1);
  EXPECT_NULL_QUERY(tsr_tensor_nbytes(NULL), -1);
  EXPECT_NULL_QUERY(tsr_tensor_dtype(NULL), (tsr_dtype)-1);
  EXPECT_NULL_QUERY(tsr_tensor_device_type(NULL), (tsr_device_type)-1);
  EXPECT_NULL_QUERY(tsr_tensor_device_index(NULL), -1);
  EXPECT_NULL_QUERY(tsr_tensor_data_ptr(NULL), NULL);
}

Test(errors_queries, null_storage_handles_return_sentinels) {
  EXPECT_NULL_QUERY(tsr_storage_nbytes(NULL), -1);
  EXPECT_NULL_QUERY(tsr_storage_data_ptr(NULL), NULL);
  EXPECT_NULL_QUERY(tsr_storage_device_type(NULL), (tsr_device_type)-1);
  EXPECT_NULL_QUERY(tsr_storage_use_count(NULL), -1);
}

Test(errors_queries, release_and_retain_accept_null) {
  tsr_clear_last_error();
  tsr_tensor_retain(NULL);
  tsr_tensor_release(NULL);
  tsr_storage_retain(NULL);
  tsr_storage_release(NULL);
  cr_assert_eq(tsr_last_error_code(), TSR_OK);
}

ETEST(errors_queries, size_and_stride_null_handle_or_out) {
  int64_t v = 77;
  TSR_ASSERT_FAILS(tsr_tensor_size(NULL, 0, &v), TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_tensor_stride(NULL, 0, &v), TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_tensor_size(x, 0, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_tensor_stride(x, 0, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_assert_eq(v, 77);
}

/* x.size(3) on a 3-D tensor: "Dimension out of range (expected to be in range
 * of [-3, 2], but got 3)" */
ETEST(errors_queries, size_and_stride_dim_out_of_range) {
  int64_t v = 77;
  TSR_ASSERT_FAILS(tsr_tensor_size(x, 3, &v), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  TSR_ASSERT_FAILS(tsr_tensor_stride(x, -4, &v), TSR_ERR_INVALID_ARGUMENT,
                   "Dimension out of range (expected to be in range of [-3, 2], but got -4)");
  cr_assert_eq(v, 77);
  tsr_tensor* s;
  TSR_ASSERT_OK(tsr_full(0, NULL, 1, TSR_FLOAT32, TSR_CPU, &s));
  TSR_ASSERT_FAILS(tsr_tensor_size(s, 0, &v), TSR_ERR_INVALID_ARGUMENT, "0-dim");
  cr_assert_eq(v, 77);
  tsr_tensor_release(s);
}

ETEST(errors_queries, storage_null_handle_or_out) {
  tsr_storage* st = (tsr_storage*)SENTINEL;
  TSR_ASSERT_FAILS(tsr_tensor_storage(NULL, &st), TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_tensor_storage(x, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_assert_eq(st, (tsr_storage*)SENTINEL);
}

/* ---- factories -------------------------------------------------------------------- */

Test(errors_factories, null_out) {
  const int64_t s[] = {2};
  TSR_ASSERT_FAILS(tsr_empty(1, s, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, NULL),
                   TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_empty_strided(1, s, NULL, TSR_FLOAT32, TSR_CPU, NULL),
                   TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_zeros(1, s, TSR_FLOAT32, TSR_CPU, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  TSR_ASSERT_FAILS(tsr_ones(1, s, TSR_FLOAT32, TSR_CPU, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  TSR_ASSERT_FAILS(tsr_full(1, s, 2, TSR_FLOAT32, TSR_CPU, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  TSR_ASSERT_FAILS(tsr_arange(0, 2, 1, TSR_FLOAT32, TSR_CPU, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  float d[2] = {0, 0};
  TSR_ASSERT_FAILS(tsr_from_data(d, sizeof d, 1, s, TSR_FLOAT32, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
}

Test(errors_factories, ndim_out_of_range_or_null_sizes) {
  tsr_tensor* t;
  const int64_t s[65] = {1};
  EXPECT_FAILS_UNTOUCHED(tsr_empty(-1, s, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "number of dims must be in [0, 64], got -1");
  EXPECT_FAILS_UNTOUCHED(tsr_zeros(65, s, TSR_FLOAT32, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "number of dims must be in [0, 64], got 65");
  EXPECT_FAILS_UNTOUCHED(tsr_ones(2, NULL, TSR_FLOAT32, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "sizes is NULL with ndim 2");
}

/* torch.empty(2, -1): "Trying to create tensor with negative dimension -1: [2, -1]" */
Test(errors_factories, negative_size) {
  tsr_tensor* t;
  const int64_t s[] = {2, -1};
  EXPECT_FAILS_UNTOUCHED(tsr_empty(2, s, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "negative dimension -1");
  EXPECT_FAILS_UNTOUCHED(tsr_full(2, s, 1, TSR_INT32, TSR_CPU, &t), t, TSR_ERR_INVALID_ARGUMENT,
                         "negative dimension -1");
  EXPECT_FAILS_UNTOUCHED(tsr_from_data(NULL, 0, 2, s, TSR_INT32, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "negative dimension -1");
  const int64_t st[] = {1, 1};
  EXPECT_FAILS_UNTOUCHED(tsr_empty_strided(2, s, st, TSR_FLOAT32, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "negative dimension -1");
}

Test(errors_factories, unknown_dtype) {
  tsr_tensor* t;
  const int64_t s[] = {2};
  EXPECT_FAILS_UNTOUCHED(tsr_empty(1, s, (tsr_dtype)8, TSR_CONTIGUOUS_FORMAT, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "invalid dtype value 8");
  EXPECT_FAILS_UNTOUCHED(tsr_zeros(1, s, (tsr_dtype)-1, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "invalid dtype value -1");
  EXPECT_FAILS_UNTOUCHED(tsr_arange(0, 1, 1, (tsr_dtype)99, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "invalid dtype value 99");
  EXPECT_FAILS_UNTOUCHED(tsr_empty_strided(1, s, NULL, (tsr_dtype)12, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "invalid dtype value 12");
  int32_t d[2] = {0, 0};
  EXPECT_FAILS_UNTOUCHED(tsr_from_data(d, sizeof d, 1, s, (tsr_dtype)10, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "invalid dtype value 10");
}

Test(errors_factories, unknown_or_unsupported_device) {
  tsr_tensor* t;
  const int64_t s[] = {2};
  EXPECT_FAILS_UNTOUCHED(tsr_zeros(1, s, TSR_FLOAT32, TSR_DEVICE_CUDA, 0, &t), t,
                         TSR_ERR_UNSUPPORTED, "CUDA");
  EXPECT_FAILS_UNTOUCHED(tsr_ones(1, s, TSR_FLOAT32, TSR_DEVICE_CPU, 1, &t), t,
                         TSR_ERR_UNSUPPORTED, "CPU device index must be 0, got 1");
  EXPECT_FAILS_UNTOUCHED(
      tsr_empty(1, s, TSR_FLOAT32, TSR_CONTIGUOUS_FORMAT, (tsr_device_type)7, 0, &t), t,
      TSR_ERR_INVALID_ARGUMENT, "invalid device type 7");
  EXPECT_FAILS_UNTOUCHED(tsr_arange(0, 1, 1, TSR_FLOAT32, TSR_DEVICE_CUDA, 0, &t), t,
                         TSR_ERR_UNSUPPORTED, "CUDA");
}

/* torch.empty(2, 3, memory_format=torch.channels_last): "required rank 4
 * tensor to use channels_last format" */
Test(errors_factories, memory_format_rank_or_value) {
  tsr_tensor* t;
  const int64_t s3[] = {2, 3, 4}, s4[] = {2, 3, 4, 5};
  EXPECT_FAILS_UNTOUCHED(tsr_empty(3, s3, TSR_FLOAT32, TSR_CHANNELS_LAST, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "required rank 4 tensor to use channels_last");
  EXPECT_FAILS_UNTOUCHED(tsr_empty(4, s4, TSR_FLOAT32, TSR_CHANNELS_LAST_3D, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT,
                         "required rank 5 tensor to use channels_last_3d");
  EXPECT_FAILS_UNTOUCHED(tsr_empty(3, s3, TSR_FLOAT32, TSR_PRESERVE_FORMAT, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "preserve_format");
  EXPECT_FAILS_UNTOUCHED(tsr_empty(3, s3, TSR_FLOAT32, (tsr_memory_format)4, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "invalid memory_format value 4");
}

/* torch.empty_strided((2, 2), (2, -1)) is rejected too ("negative strides
 * are not supported"). */
Test(errors_factories, empty_strided_bad_strides) {
  tsr_tensor* t;
  const int64_t s[] = {2, 2}, neg[] = {2, -1};
  EXPECT_FAILS_UNTOUCHED(tsr_empty_strided(2, s, neg, TSR_FLOAT32, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "negative strides [2, -1]");
}

/* torch.full((2,), 300, dtype=torch.uint8): "value cannot be converted to
 * type uint8_t without overflow" */
Test(errors_factories, full_value_overflows_dtype) {
  tsr_tensor* t;
  const int64_t s[] = {2};
  EXPECT_FAILS_UNTOUCHED(tsr_full(1, s, 300, TSR_UINT8, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT,
                         "value cannot be converted to type uint8_t without overflow");
  EXPECT_FAILS_UNTOUCHED(tsr_full(1, s, NAN, TSR_INT32, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT,
                         "value cannot be converted to type int without overflow");
  EXPECT_FAILS_UNTOUCHED(tsr_full(1, s, 70000, TSR_FLOAT16, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT,
                         "value cannot be converted to type at::Half without overflow");
}

/* torch.arange(0, 10, 0): "step must be nonzero"; torch.arange(0, inf):
 * "unsupported range: 0 -> inf"; torch.arange(5, 0, 1): "upper bound and
 * larger bound inconsistent with step sign" */
Test(errors_factories, arange_bad_range) {
  tsr_tensor* t;
  EXPECT_FAILS_UNTOUCHED(tsr_arange(0, 10, 0, TSR_FLOAT32, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "step must be nonzero");
  EXPECT_FAILS_UNTOUCHED(tsr_arange(0, 10, 0.5, TSR_INT32, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "step must be nonzero");
  EXPECT_FAILS_UNTOUCHED(tsr_arange(0, INFINITY, 1, TSR_FLOAT64, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "unsupported range: 0 -> inf");
  EXPECT_FAILS_UNTOUCHED(tsr_arange(NAN, 1, 1, TSR_FLOAT32, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "unsupported range");
  EXPECT_FAILS_UNTOUCHED(tsr_arange(5, 0, 1, TSR_FLOAT32, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT,
                         "upper bound and larger bound inconsistent with step sign");
  EXPECT_FAILS_UNTOUCHED(tsr_arange(0, 1e30, 1e29, TSR_INT64, TSR_CPU, &t), t,
                         TSR_ERR_INVALID_ARGUMENT,
                         "value cannot be converted to type int64_t without overflow");
  EXPECT_FAILS_UNTOUCHED(tsr_arange(0, 3, 1, TSR_BOOL, TSR_CPU, &t), t, TSR_ERR_DTYPE_MISMATCH,
                         "not implemented for 'Bool'");
}

Test(errors_factories, from_data_byte_count_or_null_data) {
  tsr_tensor* t;
  const int64_t s[] = {2, 3};
  float d[6] = {0};
  EXPECT_FAILS_UNTOUCHED(tsr_from_data(d, 20, 2, s, TSR_FLOAT32, &t), t, TSR_ERR_SHAPE_MISMATCH,
                         "from_data: sizes [2, 3] of float32 need 24 bytes, got 20");
  EXPECT_FAILS_UNTOUCHED(tsr_from_data(NULL, 24, 2, s, TSR_FLOAT32, &t), t,
                         TSR_ERR_INVALID_ARGUMENT, "data is NULL");
}

/* ---- element access ------------------------------------------------------------------ */

ETEST(errors_elements, null_handle_or_out) {
  double d = 5;
  int64_t i = 5;
  const int64_t idx[] = {0, 0, 0};
  TSR_ASSERT_FAILS(tsr_item_double(NULL, &d), TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_item_int64(x, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_get_double(NULL, 3, idx, &d), TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_get_double(x, 3, idx, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_get_int64(x, 3, idx, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_set_double(NULL, 3, idx, 1), TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_set_int64(NULL, 3, idx, 1), TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_set_double(x, 3, NULL, 1), TSR_ERR_INVALID_ARGUMENT, "index is NULL");
  cr_assert_eq(d, 5);
  cr_assert_eq(i, 5);
}

ETEST(errors_elements, item_of_many_elements) {
  double d = 5;
  TSR_ASSERT_FAILS(tsr_item_double(x, &d), TSR_ERR_SHAPE_MISMATCH,
                   "a Tensor with 24 elements cannot be converted to Scalar");
  cr_assert_eq(d, 5);
}

ETEST(errors_elements, index_out_of_range_and_count) {
  double d = 5;
  const int64_t bad[] = {0, 3, 0}, two[] = {0, 0};
  TSR_ASSERT_FAILS(tsr_get_double(x, 3, bad, &d), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index 3 is out of bounds for dimension 1 with size 3");
  TSR_ASSERT_FAILS(tsr_set_int64(x, 3, bad, 1), TSR_ERR_INDEX_OUT_OF_RANGE,
                   "index 3 is out of bounds for dimension 1 with size 3");
  TSR_ASSERT_FAILS(tsr_set_double(x, 2, two, 1), TSR_ERR_INVALID_ARGUMENT,
                   "expected 3 indices, got 2");
  cr_assert_eq(d, 5);
}

ETEST(errors_elements, set_value_overflows_dtype) {
  tsr_tensor* u;
  const int64_t s[] = {2}, i0[] = {0};
  TSR_ASSERT_OK(tsr_zeros(1, s, TSR_INT8, TSR_CPU, &u));
  TSR_ASSERT_FAILS(tsr_set_int64(u, 1, i0, 200), TSR_ERR_INVALID_ARGUMENT,
                   "value cannot be converted to type int8_t without overflow");
  TSR_ASSERT_FAILS(tsr_set_double(u, 1, i0, -128.5), TSR_ERR_INVALID_ARGUMENT,
                   "value cannot be converted to type int8_t without overflow");
  int64_t v = 9;
  TSR_ASSERT_OK(tsr_get_int64(u, 1, i0, &v));
  cr_assert_eq(v, 0);
  cr_assert_eq(tsr_version(u), 0);
  tsr_tensor_release(u);
}

ETEST(errors_elements, copy_to_buffer_null_or_short) {
  float buf[24];
  memset(buf, 0, sizeof buf);
  size_t need = 0;
  TSR_ASSERT_FAILS(tsr_copy_to_buffer(NULL, buf, sizeof buf, &need), TSR_ERR_INVALID_ARGUMENT,
                   "tensor is NULL");
  cr_assert_eq(need, 0);
  TSR_ASSERT_FAILS(tsr_copy_to_buffer(x, NULL, sizeof buf, &need), TSR_ERR_INVALID_ARGUMENT,
                   "dst is NULL");
  TSR_ASSERT_FAILS(tsr_copy_to_buffer(x, buf, sizeof buf - 1, &need), TSR_ERR_INVALID_ARGUMENT,
                   "buffer holds 95 bytes, the tensor needs 96");
  for (int i = 0; i < 24; ++i) cr_assert_eq(buf[i], 0.0f);
}

/* ---- views ---------------------------------------------------------------------------- */

ETEST(errors_views, null_handle_or_out) {
  tsr_tensor* o;
  const int64_t s[] = {24};
  EXPECT_FAILS_UNTOUCHED(tsr_view(NULL, 1, s, &o), o, TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_view(x, 1, s, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_reshape(x, 1, s, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  EXPECT_FAILS_UNTOUCHED(tsr_transpose(NULL, 0, 1, &o), o, TSR_ERR_INVALID_ARGUMENT, "is NULL");
  TSR_ASSERT_FAILS(tsr_t(x, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_permute(x, 3, (const int64_t[]){0, 1, 2}, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  EXPECT_FAILS_UNTOUCHED(tsr_narrow(NULL, 0, 0, 1, &o), o, TSR_ERR_INVALID_ARGUMENT, "is NULL");
  EXPECT_FAILS_UNTOUCHED(tsr_slice(NULL, 0, 0, 1, 1, &o), o, TSR_ERR_INVALID_ARGUMENT, "is NULL");
  EXPECT_FAILS_UNTOUCHED(tsr_select(NULL, 0, 0, &o), o, TSR_ERR_INVALID_ARGUMENT, "is NULL");
  TSR_ASSERT_FAILS(tsr_expand(x, 3, kX, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  EXPECT_FAILS_UNTOUCHED(tsr_squeeze(NULL, &o), o, TSR_ERR_INVALID_ARGUMENT, "is NULL");
  EXPECT_FAILS_UNTOUCHED(tsr_squeeze_dim(NULL, 0, &o), o, TSR_ERR_INVALID_ARGUMENT, "is NULL");
  EXPECT_FAILS_UNTOUCHED(tsr_unsqueeze(NULL, 0, &o), o, TSR_ERR_INVALID_ARGUMENT, "is NULL");
  EXPECT_FAILS_UNTOUCHED(tsr_flatten(NULL, 0, -1, &o), o, TSR_ERR_INVALID_ARGUMENT, "is NULL");
  TSR_ASSERT_FAILS(tsr_unflatten(x, 0, 2, (const int64_t[]){1, 2}, NULL),
                   TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  EXPECT_FAILS_UNTOUCHED(tsr_movedim(NULL, 1, (const int64_t[]){0}, (const int64_t[]){1}, &o), o,
                         TSR_ERR_INVALID_ARGUMENT, "is NULL");
  TSR_ASSERT_FAILS(tsr_as_strided(x, 1, s, (const int64_t[]){1}, 0, NULL),
                   TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  EXPECT_FAILS_UNTOUCHED(tsr_unfold(NULL, 0, 1, 1, &o), o, TSR_ERR_INVALID_ARGUMENT, "is NULL");
  EXPECT_FAILS_UNTOUCHED(tsr_diagonal(NULL, 0, 0, 1, &o), o, TSR_ERR_INVALID_ARGUMENT, "is NULL");
  int64_t count = -5;
  TSR_ASSERT_FAILS(tsr_split(NULL, 1, 0, NULL, 0, &count), TSR_ERR_INVALID_ARGUMENT, "is NULL");
  TSR_ASSERT_FAILS(tsr_chunk(x, 2, 0, NULL, 0, NULL), TSR_ERR_INVALID_ARGUMENT, "count is NULL");
  cr_assert_eq(count, -5);
}

/* torch: x.view(-1, -1): "only one dimension can be inferred"; x.view(5, 5):
 * "shape '[5, 5]' is invalid for input of size 24"; x.view(-2, 12): "invalid
 * shape dimension -2" */
ETEST(errors_views, view_bad_shape) {
  tsr_tensor* o;
  EXPECT_FAILS_UNTOUCHED(tsr_view(x, 2, (const int64_t[]){-1, -1}, &o), o,
                         TSR_ERR_INVALID_ARGUMENT, "only one dimension can be inferred");
  EXPECT_FAILS_UNTOUCHED(tsr_view(x, 2, (const int64_t[]){5, 5}, &o), o, TSR_ERR_SHAPE_MISMATCH,
                         "shape '[5, 5]' is invalid for input of size 24");
  EXPECT_FAILS_UNTOUCHED(tsr_reshape(x, 2, (const int64_t[]){-1, 7}, &o), o,
                         TSR_ERR_SHAPE_MISMATCH, "shape '[-1, 7]' is invalid for input of size 24");
  EXPECT_FAILS_UNTOUCHED(tsr_view(x, 2, (const int64_t[]){-2, 12}, &o), o,
                         TSR_ERR_INVALID_ARGUMENT, "invalid shape dimension -2");
  EXPECT_FAILS_UNTOUCHED(tsr_view(x, 2, NULL, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "sizes is NULL with ndim 2");
}

ETEST(errors_views, view_needs_a_copy) {
  tsr_tensor *tr, *o;
  TSR_ASSERT_OK(tsr_transpose(x, 0, 2, &tr));
  EXPECT_FAILS_UNTOUCHED(tsr_view(tr, 1, (const int64_t[]){24}, &o), o, TSR_ERR_NOT_VIEWABLE,
                         "view size is not compatible with input tensor's size and stride");
  cr_assert(strstr(tsr_last_error_message(), "sizes [4, 3, 2] with strides [1, 4, 12]"), "%s",
            tsr_last_error_message());
  cr_assert(strstr(tsr_last_error_message(), "Use .reshape(...) instead."));
  const int64_t ts[] = {4, 3, 2}, tst[] = {1, 4, 12};
  tsr_assert_geometry(tr, 3, ts, tst);
  tsr_tensor_release(tr);
}

/* x.transpose(0, 3): "Dimension out of range (expected to be in range of
 * [-3, 2], but got 3)" */
ETEST(errors_views, dim_out_of_range) {
  tsr_tensor* o;
  const char* msg = "Dimension out of range (expected to be in range of [-3, 2], but got 3)";
  EXPECT_FAILS_UNTOUCHED(tsr_transpose(x, 0, 3, &o), o, TSR_ERR_INVALID_ARGUMENT, msg);
  EXPECT_FAILS_UNTOUCHED(tsr_narrow(x, 3, 0, 1, &o), o, TSR_ERR_INVALID_ARGUMENT, msg);
  EXPECT_FAILS_UNTOUCHED(tsr_slice(x, 3, 0, 1, 1, &o), o, TSR_ERR_INVALID_ARGUMENT, msg);
  EXPECT_FAILS_UNTOUCHED(tsr_select(x, 3, 0, &o), o, TSR_ERR_INVALID_ARGUMENT, msg);
  EXPECT_FAILS_UNTOUCHED(tsr_squeeze_dim(x, 3, &o), o, TSR_ERR_INVALID_ARGUMENT, msg);
  EXPECT_FAILS_UNTOUCHED(tsr_flatten(x, 0, 3, &o), o, TSR_ERR_INVALID_ARGUMENT, msg);
  EXPECT_FAILS_UNTOUCHED(tsr_unflatten(x, 3, 1, (const int64_t[]){4}, &o), o,
                         TSR_ERR_INVALID_ARGUMENT, msg);
  EXPECT_FAILS_UNTOUCHED(tsr_unfold(x, 3, 1, 1, &o), o, TSR_ERR_INVALID_ARGUMENT, msg);
  EXPECT_FAILS_UNTOUCHED(tsr_diagonal(x, 0, 0, 3, &o), o, TSR_ERR_INVALID_ARGUMENT, msg);
  EXPECT_FAILS_UNTOUCHED(tsr_permute(x, 3, (const int64_t[]){0, 1, 3}, &o), o,
                         TSR_ERR_INVALID_ARGUMENT, msg);
  EXPECT_FAILS_UNTOUCHED(tsr_movedim(x, 1, (const int64_t[]){3}, (const int64_t[]){0}, &o), o,
                         TSR_ERR_INVALID_ARGUMENT, msg);
  int64_t count = -5;
  TSR_ASSERT_FAILS(tsr_split(x, 1, 3, NULL, 0, &count), TSR_ERR_INVALID_ARGUMENT, msg);
  cr_assert_eq(count, -5);
  /* unsqueeze accepts [-4, 3] on a 3-D tensor */
  EXPECT_FAILS_UNTOUCHED(tsr_unsqueeze(x, 4, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "Dimension out of range (expected to be in range of [-4, 3], but got 4)");
}

/* x.t() on 3-D: "t() expects a tensor with <= 2 dimensions, but self is 3D" */
ETEST(errors_views, t_of_3d) {
  tsr_tensor* o;
  EXPECT_FAILS_UNTOUCHED(tsr_t(x, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "t() expects a tensor with <= 2 dimensions, but self is 3D");
}

ETEST(errors_views, permute_not_a_permutation) {
  tsr_tensor* o;
  EXPECT_FAILS_UNTOUCHED(tsr_permute(x, 2, (const int64_t[]){0, 1}, &o), o,
                         TSR_ERR_INVALID_ARGUMENT, "input.dim() = 3 is not equal to len(dims) = 2");
  EXPECT_FAILS_UNTOUCHED(tsr_permute(x, 3, (const int64_t[]){0, 0, 1}, &o), o,
                         TSR_ERR_INVALID_ARGUMENT, "duplicate dims are not allowed");
  EXPECT_FAILS_UNTOUCHED(tsr_permute(x, 3, (const int64_t[]){0, -3, 1}, &o), o,
                         TSR_ERR_INVALID_ARGUMENT, "duplicate dims are not allowed");
}

/* x.narrow(2, 3, 2): "start (3) + length (2) exceeds dimension size (4)." */
ETEST(errors_views, narrow_beyond_the_size) {
  tsr_tensor *o, *s;
  EXPECT_FAILS_UNTOUCHED(tsr_narrow(x, 2, 3, 2, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "start (3) + length (2) exceeds dimension size (4).");
  EXPECT_FAILS_UNTOUCHED(tsr_narrow(x, 2, 0, -1, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "start (0) + length (-1) exceeds dimension size (4).");
  EXPECT_FAILS_UNTOUCHED(tsr_narrow(x, 2, 5, 0, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "Dimension out of range (expected to be in range of [-4, 3], but got 5)");
  TSR_ASSERT_OK(tsr_full(0, NULL, 1, TSR_FLOAT32, TSR_CPU, &s));
  EXPECT_FAILS_UNTOUCHED(tsr_narrow(s, 0, 0, 1, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "narrow() cannot be applied to a 0-dim tensor.");
  tsr_tensor_release(s);
}

/* x[..., ::0]: "slice step must be positive" */
ETEST(errors_views, slice_step_not_positive) {
  tsr_tensor *o, *s;
  EXPECT_FAILS_UNTOUCHED(tsr_slice(x, 2, 0, INT64_MAX, 0, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "slice step must be positive");
  EXPECT_FAILS_UNTOUCHED(tsr_slice(x, 2, 0, INT64_MAX, -1, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "slice step must be positive");
  TSR_ASSERT_OK(tsr_full(0, NULL, 1, TSR_FLOAT32, TSR_CPU, &s));
  EXPECT_FAILS_UNTOUCHED(tsr_slice(s, 0, 0, 1, 1, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "slice() cannot be applied to a 0-dim tensor.");
  tsr_tensor_release(s);
}

/* x.select(1, 3): "select(): index 3 out of range for tensor of size [2, 3, 4]
 * at dimension 1" */
ETEST(errors_views, select_index_out_of_range) {
  tsr_tensor *o, *s;
  EXPECT_FAILS_UNTOUCHED(tsr_select(x, 1, 3, &o), o, TSR_ERR_INDEX_OUT_OF_RANGE,
                         "select(): index 3 out of range for tensor of size [2, 3, 4] at "
                         "dimension 1");
  EXPECT_FAILS_UNTOUCHED(tsr_select(x, 1, -4, &o), o, TSR_ERR_INDEX_OUT_OF_RANGE, "index -4");
  TSR_ASSERT_OK(tsr_full(0, NULL, 1, TSR_FLOAT32, TSR_CPU, &s));
  EXPECT_FAILS_UNTOUCHED(tsr_select(s, 0, 0, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "select() cannot be applied to a 0-dim tensor.");
  tsr_tensor_release(s);
}

/* x.expand(3, 4): "the number of sizes provided (2) must be greater or equal
 * to the number of dimensions in the tensor (3)"; x.expand(2, 5, 4): "The
 * expanded size of the tensor (5) must match the existing size (3) at
 * non-singleton dimension 1" */
ETEST(errors_views, expand_incompatible) {
  tsr_tensor* o;
  EXPECT_FAILS_UNTOUCHED(tsr_expand(x, 2, (const int64_t[]){3, 4}, &o), o,
                         TSR_ERR_SHAPE_MISMATCH,
                         "the number of sizes provided (2) must be greater or equal to the number "
                         "of dimensions in the tensor (3)");
  EXPECT_FAILS_UNTOUCHED(tsr_expand(x, 3, (const int64_t[]){2, 5, 4}, &o), o,
                         TSR_ERR_SHAPE_MISMATCH,
                         "The expanded size of the tensor (5) must match the existing size (3) at "
                         "non-singleton dimension 1");
  EXPECT_FAILS_UNTOUCHED(tsr_expand(x, 4, (const int64_t[]){-1, 2, 3, 4}, &o), o,
                         TSR_ERR_SHAPE_MISMATCH,
                         "The expanded size of the tensor (-1) isn't allowed in a leading, "
                         "non-existing dimension 0");
}

/* x.flatten(2, 1): "flatten() has invalid args: start_dim cannot come after
 * end_dim" */
ETEST(errors_views, flatten_start_after_end) {
  tsr_tensor* o;
  EXPECT_FAILS_UNTOUCHED(tsr_flatten(x, 2, 1, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "start_dim cannot come after end_dim");
}

/* x.unflatten(2, (3, 2)): "unflatten: Provided sizes [3, 2] don't multiply up
 * to the size of dim 2 (4) in the input tensor" */
ETEST(errors_views, unflatten_sizes_do_not_fit) {
  tsr_tensor* o;
  EXPECT_FAILS_UNTOUCHED(tsr_unflatten(x, 2, 2, (const int64_t[]){3, 2}, &o), o,
                         TSR_ERR_SHAPE_MISMATCH,
                         "unflatten: Provided sizes [3, 2] don't multiply up to the size of dim 2 "
                         "(4) in the input tensor");
  EXPECT_FAILS_UNTOUCHED(tsr_unflatten(x, 2, 0, NULL, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "unflatten: sizes must be non-empty");
}

/* torch.movedim(x, (0, 0), (1, 2)): "movedim: repeated dim in `source`
 * ([0, 0])"; different lengths: "movedim: Invalid source or destination
 * dims" */
ETEST(errors_views, movedim_repeated_dims) {
  tsr_tensor* o;
  EXPECT_FAILS_UNTOUCHED(tsr_movedim(x, 2, (const int64_t[]){0, 0}, (const int64_t[]){1, 2}, &o),
                         o, TSR_ERR_INVALID_ARGUMENT, "movedim: repeated dim in `source` ([0, 0])");
  EXPECT_FAILS_UNTOUCHED(
      tsr_movedim(x, 2, (const int64_t[]){0, 1}, (const int64_t[]){2, -1}, &o), o,
      TSR_ERR_INVALID_ARGUMENT, "movedim: repeated dim in `destination` ([2, -1])");
}

/* x.as_strided((5, 5), (5, 1)): "setStorage: sizes [5, 5], strides [5, 1],
 * storage offset 0, and itemsize 4 requiring a storage size of 100 are out of
 * bounds for storage of size 96" */
ETEST(errors_views, as_strided_out_of_bounds_or_negative) {
  tsr_tensor* o;
  EXPECT_FAILS_UNTOUCHED(
      tsr_as_strided(x, 2, (const int64_t[]){5, 5}, (const int64_t[]){5, 1}, 0, &o), o,
      TSR_ERR_INVALID_ARGUMENT,
      "setStorage: sizes [5, 5], strides [5, 1], storage offset 0, and itemsize 4 requiring a "
      "storage size of 100 are out of bounds for storage of size 96");
  EXPECT_FAILS_UNTOUCHED(
      tsr_as_strided(x, 2, (const int64_t[]){2, 2}, (const int64_t[]){1, -1}, 2, &o), o,
      TSR_ERR_INVALID_ARGUMENT, "as_strided: Negative strides are not supported");
  EXPECT_FAILS_UNTOUCHED(
      tsr_as_strided(x, 1, (const int64_t[]){2}, (const int64_t[]){1}, -1, &o), o,
      TSR_ERR_INVALID_ARGUMENT, "invalid storage offset -1");
  EXPECT_FAILS_UNTOUCHED(tsr_as_strided(x, 1, (const int64_t[]){2}, NULL, 0, &o), o,
                         TSR_ERR_INVALID_ARGUMENT, "strides is NULL");
}

/* x.unfold(2, 5, 1): "maximum size for tensor at dimension 2 is 4 but size is
 * 5"; x.unfold(2, 2, 0): "step is 0 but must be > 0" */
ETEST(errors_views, unfold_size_or_step) {
  tsr_tensor* o;
  EXPECT_FAILS_UNTOUCHED(tsr_unfold(x, 2, 5, 1, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "maximum size for tensor at dimension 2 is 4 but size is 5");
  EXPECT_FAILS_UNTOUCHED(tsr_unfold(x, 2, 2, 0, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "step is 0 but must be > 0");
}

/* x.diagonal(0, 1, -2): "diagonal dimensions cannot be identical 1, -2";
 * torch.arange(24.).diagonal(): "Dimension out of range (expected to be in
 * range of [-1, 0], but got 1)" */
ETEST(errors_views, diagonal_same_dims_or_1d) {
  tsr_tensor *o, *v;
  EXPECT_FAILS_UNTOUCHED(tsr_diagonal(x, 0, 1, -2, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "diagonal dimensions cannot be identical 1, -2");
  TSR_ASSERT_OK(tsr_view(x, 1, (const int64_t[]){24}, &v));
  EXPECT_FAILS_UNTOUCHED(tsr_diagonal(v, 0, 0, 1, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  tsr_tensor_release(v);
}

/* x.split(-1): "split expects split_size be non-negative, but got
 * split_size=-1"; x.chunk(0): "chunk expects `chunks` to be greater than 0,
 * got: 0"; x.split(0): "split_size can only be 0 if dimension size is 0" */
ETEST(errors_views, split_and_chunk_bad_sizes) {
  tsr_tensor* outs[4] = {SENTINEL, SENTINEL, SENTINEL, SENTINEL};
  int64_t count = -5;
  TSR_ASSERT_FAILS(tsr_split(x, -1, 0, outs, 4, &count), TSR_ERR_INVALID_ARGUMENT,
                   "split expects split_size be non-negative, but got split_size=-1");
  TSR_ASSERT_FAILS(tsr_split(x, 0, 0, outs, 4, &count), TSR_ERR_INVALID_ARGUMENT,
                   "split_size can only be 0 if dimension size is 0, but got dimension size of 2");
  TSR_ASSERT_FAILS(tsr_chunk(x, 0, 0, outs, 4, &count), TSR_ERR_INVALID_ARGUMENT,
                   "chunk expects `chunks` to be greater than 0, got: 0");
  cr_assert_eq(count, -5);
  for (int i = 0; i < 4; ++i) cr_assert_eq(outs[i], SENTINEL);
}

ETEST(errors_views, split_capacity_too_small) {
  tsr_tensor* outs[2] = {SENTINEL, SENTINEL};
  int64_t count = -5;
  TSR_ASSERT_FAILS(tsr_split(x, 1, 2, outs, 2, &count), TSR_ERR_INVALID_ARGUMENT,
                   "capacity 2 is smaller than the 4 pieces");
  cr_assert_eq(count, 4, "the count is reported so the caller can retry");
  cr_assert_eq(outs[0], SENTINEL);
  cr_assert_eq(outs[1], SENTINEL);
  count = -5;
  TSR_ASSERT_FAILS(tsr_chunk(x, 2, 0, NULL, 2, &count), TSR_ERR_INVALID_ARGUMENT, "outs is NULL");
}

/* ---- layout -------------------------------------------------------------------------- */

ETEST(errors_layout, null_handle_or_out) {
  bool b = true;
  tsr_memory_format f = TSR_PRESERVE_FORMAT;
  tsr_tensor* o;
  TSR_ASSERT_FAILS(tsr_is_contiguous(NULL, TSR_CONTIGUOUS_FORMAT, &b), TSR_ERR_INVALID_ARGUMENT,
                   "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_is_contiguous(x, TSR_CONTIGUOUS_FORMAT, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  TSR_ASSERT_FAILS(tsr_is_non_overlapping_and_dense(NULL, &b), TSR_ERR_INVALID_ARGUMENT,
                   "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_is_non_overlapping_and_dense(x, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  TSR_ASSERT_FAILS(tsr_suggest_memory_format(NULL, &f), TSR_ERR_INVALID_ARGUMENT,
                   "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_suggest_memory_format(x, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  EXPECT_FAILS_UNTOUCHED(tsr_contiguous(NULL, TSR_CONTIGUOUS_FORMAT, &o), o,
                         TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_contiguous(x, TSR_CONTIGUOUS_FORMAT, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  EXPECT_FAILS_UNTOUCHED(tsr_clone(NULL, TSR_PRESERVE_FORMAT, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_clone(x, TSR_PRESERVE_FORMAT, NULL), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  EXPECT_FAILS_UNTOUCHED(tsr_to_dtype(NULL, TSR_FLOAT64, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "tensor is NULL");
  TSR_ASSERT_FAILS(tsr_to_dtype(x, TSR_FLOAT64, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  TSR_ASSERT_FAILS(tsr_copy_(NULL, x), TSR_ERR_INVALID_ARGUMENT, "dst is NULL");
  TSR_ASSERT_FAILS(tsr_copy_(x, NULL), TSR_ERR_INVALID_ARGUMENT, "src is NULL");
  TSR_ASSERT_FAILS(tsr_shares_storage(NULL, x, &b), TSR_ERR_INVALID_ARGUMENT, "a is NULL");
  TSR_ASSERT_FAILS(tsr_shares_storage(x, NULL, &b), TSR_ERR_INVALID_ARGUMENT, "b is NULL");
  TSR_ASSERT_FAILS(tsr_shares_storage(x, x, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  cr_assert_eq(b, true);
  cr_assert_eq(f, TSR_PRESERVE_FORMAT);
}

/* x.is_contiguous(memory_format=torch.preserve_format) raises in torch too. */
ETEST(errors_layout, memory_format_not_a_layout) {
  bool b = true;
  tsr_tensor* o;
  TSR_ASSERT_FAILS(tsr_is_contiguous(x, TSR_PRESERVE_FORMAT, &b), TSR_ERR_INVALID_ARGUMENT,
                   "preserve_format is not allowed here");
  TSR_ASSERT_FAILS(tsr_is_contiguous(x, (tsr_memory_format)9, &b), TSR_ERR_INVALID_ARGUMENT,
                   "invalid memory_format value 9");
  cr_assert_eq(b, true);
  /* x.contiguous(memory_format=torch.preserve_format): "preserve memory
   * format is unsupported by the contiguous operator" */
  EXPECT_FAILS_UNTOUCHED(tsr_contiguous(x, TSR_PRESERVE_FORMAT, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "preserve memory format is unsupported by the contiguous operator");
  EXPECT_FAILS_UNTOUCHED(tsr_contiguous(x, (tsr_memory_format)-1, &o), o,
                         TSR_ERR_INVALID_ARGUMENT, "invalid memory_format value -1");
  EXPECT_FAILS_UNTOUCHED(tsr_clone(x, (tsr_memory_format)4, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "invalid memory_format value 4");
}

/* x.contiguous(memory_format=torch.channels_last) on 3-D: "required rank 4
 * tensor to use channels_last format" */
ETEST(errors_layout, channels_last_needs_4d) {
  tsr_tensor* o;
  EXPECT_FAILS_UNTOUCHED(tsr_contiguous(x, TSR_CHANNELS_LAST, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "required rank 4 tensor to use channels_last format");
  EXPECT_FAILS_UNTOUCHED(tsr_contiguous(x, TSR_CHANNELS_LAST_3D, &o), o,
                         TSR_ERR_INVALID_ARGUMENT,
                         "required rank 5 tensor to use channels_last_3d format");
  EXPECT_FAILS_UNTOUCHED(tsr_clone(x, TSR_CHANNELS_LAST, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "required rank 4 tensor to use channels_last format");
  /* is_contiguous(channels_last) of a 3-D tensor is simply false, as torch */
  bool b = true;
  TSR_ASSERT_OK(tsr_is_contiguous(x, TSR_CHANNELS_LAST, &b));
  cr_assert(!b);
}

ETEST(errors_layout, to_unknown_dtype) {
  tsr_tensor* o;
  EXPECT_FAILS_UNTOUCHED(tsr_to_dtype(x, (tsr_dtype)13, &o), o, TSR_ERR_INVALID_ARGUMENT,
                         "invalid dtype value 13");
}

ETEST(errors_layout, copy_shape_mismatch) {
  tsr_tensor* s;
  TSR_ASSERT_OK(tsr_ones(1, (const int64_t[]){3}, TSR_FLOAT32, TSR_CPU, &s));
  TSR_ASSERT_FAILS(tsr_copy_(x, s), TSR_ERR_SHAPE_MISMATCH, "must match");
  tsr_tensor_release(s);
}

ETEST(errors_layout, copy_into_overlapping_destination) {
  tsr_tensor *e, *s;
  TSR_ASSERT_OK(tsr_slice(x, 2, 0, 1, 1, &s));                 /* [2, 3, 1] */
  TSR_ASSERT_OK(tsr_expand(s, 3, kX, &e));                       /* stride 0 on dim 2 */
  tsr_tensor* src;
  TSR_ASSERT_OK(tsr_zeros(3, kX, TSR_FLOAT32, TSR_CPU, &src));
  TSR_ASSERT_FAILS(tsr_copy_(e, src), TSR_ERR_INVALID_ARGUMENT,
                   "unsupported operation: more than one element of the written-to tensor refers "
                   "to a single memory location");
  tsr_tensor_release(src);
  tsr_tensor_release(e);
  tsr_tensor_release(s);
}

/* torch.zeros(2, requires_grad=True).copy_(torch.ones(2)): "a leaf Variable
 * that requires grad is being used in an in-place operation." */
Test(errors_layout, copy_into_leaf_requiring_grad) {
  tsr_tensor *w, *s;
  TSR_ASSERT_OK(tsr_zeros(1, (const int64_t[]){2}, TSR_FLOAT32, TSR_CPU, &w));
  TSR_ASSERT_OK(tsr_ones(1, (const int64_t[]){2}, TSR_FLOAT32, TSR_CPU, &s));
  TSR_ASSERT_OK(tsr_set_requires_grad(w, true));
  TSR_ASSERT_FAILS(tsr_copy_(w, s), TSR_ERR_AUTOGRAD,
                   "a leaf Variable that requires grad is being used in an in-place operation.");
  cr_assert_eq(tsr_version(w), 0);
  double v = 9;
  TSR_ASSERT_OK(tsr_get_double(w, 1, (const int64_t[]){0}, &v));
  cr_assert_eq(v, 0);
  tsr_tensor_release(s);
  tsr_tensor_release(w);
}

/* ---- the error record ---------------------------------------------------------------- */

Test(errors_state, success_does_not_clear_and_clear_resets) {
  tsr_tensor* t;
  TSR_ASSERT_FAILS(tsr_zeros(1, (const int64_t[]){-3}, TSR_FLOAT32, TSR_CPU, &t),
                   TSR_ERR_INVALID_ARGUMENT, "negative dimension -3");
  TSR_ASSERT_OK(tsr_zeros(1, (const int64_t[]){3}, TSR_FLOAT32, TSR_CPU, &t));
  cr_assert_eq(tsr_last_error_code(), TSR_ERR_INVALID_ARGUMENT);
  cr_assert(strstr(tsr_last_error_message(), "negative dimension -3"));
  tsr_clear_last_error();
  cr_assert_eq(tsr_last_error_code(), TSR_OK);
  cr_assert_str_eq(tsr_last_error_message(), "");
  tsr_tensor_release(t);
}

Test(errors_state, every_status_has_a_name) {
  const char* names[] = {"TSR_OK", "TSR_ERR_INVALID_ARGUMENT", "TSR_ERR_SHAPE_MISMATCH",
                         "TSR_ERR_DTYPE_MISMATCH", "TSR_ERR_DEVICE_MISMATCH",
                         "TSR_ERR_OUT_OF_MEMORY", "TSR_ERR_NOT_VIEWABLE", "TSR_ERR_AUTOGRAD",
                         "TSR_ERR_IO", "TSR_ERR_CORRUPT_FILE", "TSR_ERR_UNSUPPORTED",
                         "TSR_ERR_INTERNAL", "TSR_ERR_INDEX_OUT_OF_RANGE",
                         "TSR_ERR_CANCELLED", "TSR_ERR_DISTRIBUTED"};
  for (int s = 0; s <= 14; ++s) cr_assert_str_eq(tsr_status_name((tsr_status)s), names[s]);
  cr_assert_str_eq(tsr_status_name((tsr_status)-1), "TSR_UNKNOWN_STATUS");
  cr_assert_str_eq(tsr_status_name((tsr_status)15), "TSR_UNKNOWN_STATUS");
}

/* A failure on another thread leaves this thread's record alone, and that
 * thread sees its own failure, not ours. */
typedef struct {
  tsr_status code_before, code_after;
  char message[256];
} thread_report;

static void* fail_on_other_thread(void* arg) {
  thread_report* r = arg;
  r->code_before = tsr_last_error_code(); /* fresh thread: no failure yet */
  tsr_tensor* t = SENTINEL;
  tsr_view(NULL, 0, NULL, &t); /* INVALID_ARGUMENT on this thread */
  tsr_tensor* a;
  if (tsr_arange(0, 4, 1, TSR_FLOAT32, TSR_CPU, &a) == TSR_OK) {
    tsr_tensor* sel;
    tsr_select(a, 0, 9, &sel); /* INDEX_OUT_OF_RANGE, the last failure here */
    tsr_tensor_release(a);
  }
  r->code_after = tsr_last_error_code();
  snprintf(r->message, sizeof r->message, "%s", tsr_last_error_message());
  return NULL;
}

Test(errors_state, error_record_is_thread_local) {
  tsr_tensor* t = SENTINEL;
  TSR_ASSERT_FAILS(tsr_t(NULL, &t), TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  const char* mine = tsr_last_error_message();
  char saved[256];
  snprintf(saved, sizeof saved, "%s", mine);
  pthread_t th;
  thread_report r;
  memset(&r, 0, sizeof r);
  cr_assert_eq(pthread_create(&th, NULL, fail_on_other_thread, &r), 0);
  cr_assert_eq(pthread_join(th, NULL), 0);
  cr_assert_eq(r.code_before, TSR_OK, "a new thread starts with no error");
  cr_assert_eq(r.code_after, TSR_ERR_INDEX_OUT_OF_RANGE);
  cr_assert(strstr(r.message, "select(): index 9 out of range"), "%s", r.message);
  cr_assert_eq(tsr_last_error_code(), TSR_ERR_INVALID_ARGUMENT);
  cr_assert_str_eq(tsr_last_error_message(), saved);
  cr_assert_eq(tsr_last_error_message(), mine, "the borrowed message moved");
}
