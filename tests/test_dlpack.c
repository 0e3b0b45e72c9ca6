/* DLPack exchange (tessera/dlpack.h): export geometry and dtypes, round
 * trips, shared memory, lifetimes, the import deleter contract and every
 * refusal. Golden geometry comes from torch 1.13: for each case,
 *   u = torch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(t))
 * printed the DLTensor's shape/strides, u.stride(), u.storage_offset() and
 * u.storage().nbytes() quoted next to the case. The torch side of the
 * exchange itself is tests/tools/dlpack_torch.py. */
#include "helpers.h"

#include <stdint.h>
#include <stdlib.h>

#include <tessera/dlpack.h>

/* ---- export: geometry and round trip ------------------------------------------ */

/* arange(24.) as float32, the base of most cases. */
static tsr_tensor* arange24(void) {
  tsr_tensor* a;
  TSR_ASSERT_OK(tsr_arange(0, 24, 1, TSR_FLOAT32, TSR_CPU, &a));
  return a;
}
/* After a call made *view from base: checks it, drops base, returns *view
 * (a pointer, so *view is read after the call). */
static tsr_tensor* then_release(tsr_tensor* base, tsr_status st, tsr_tensor** view) {
  cr_assert_eq(st, TSR_OK, "%s", tsr_last_error_message());
  tsr_tensor_release(base);
  return *view;
}
static tsr_tensor* viewed(tsr_tensor* base, int64_t ndim, const int64_t* sizes) {
  tsr_tensor* v = NULL;
  return then_release(base, tsr_view(base, ndim, sizes, &v), &v);
}

static tsr_tensor* case_transposed(void) { /* a.view(2,3,4).transpose(0,2) */
  const int64_t s[] = {2, 3, 4};
  tsr_tensor* v = viewed(arange24(), 3, s), *t = NULL;
  return then_release(v, tsr_transpose(v, 0, 2, &t), &t);
}
static tsr_tensor* case_narrowed(void) { /* a.view(4,6).narrow(1,2,3) */
  const int64_t s[] = {4, 6};
  tsr_tensor* v = viewed(arange24(), 2, s), *n = NULL;
  return then_release(v, tsr_narrow(v, 1, 2, 3, &n), &n);
}
static tsr_tensor* case_narrowed_t(void) { /* a.view(4,6).narrow(1,2,3).t() */
  tsr_tensor* n = case_narrowed(), *t = NULL;
  return then_release(n, tsr_t(n, &t), &t);
}
static tsr_tensor* case_expanded(void) { /* arange(3.).view(3,1).expand(3,4) */
  tsr_tensor* a, *e = NULL;
  TSR_ASSERT_OK(tsr_arange(0, 3, 1, TSR_FLOAT32, TSR_CPU, &a));
  const int64_t s[] = {3, 1}, big[] = {3, 4};
  tsr_tensor* v = viewed(a, 2, s);
  return then_release(v, tsr_expand(v, 2, big, &e), &e);
}
static tsr_tensor* case_channels_last(void) { /* arange(120.).view(2,3,4,5) channels_last */
  tsr_tensor* a, *c = NULL;
  TSR_ASSERT_OK(tsr_arange(0, 120, 1, TSR_FLOAT32, TSR_CPU, &a));
  const int64_t s[] = {2, 3, 4, 5};
  tsr_tensor* v = viewed(a, 4, s);
  return then_release(v, tsr_contiguous(v, TSR_CHANNELS_LAST, &c), &c);
}
static tsr_tensor* case_zero_dim(void) { /* arange(5.).select(0,3) */
  tsr_tensor* a, *s = NULL;
  TSR_ASSERT_OK(tsr_arange(0, 5, 1, TSR_FLOAT32, TSR_CPU, &a));
  return then_release(a, tsr_select(a, 0, 3, &s), &s);
}
static tsr_tensor* case_empty(void) { /* zeros(0,3) */
  tsr_tensor* z;
  const int64_t s[] = {0, 3};
  TSR_ASSERT_OK(tsr_zeros(2, s, TSR_FLOAT32, TSR_CPU, &z));
  return z;
}
/* arange(6.).view(2,3).narrow(0,1,length) */
static tsr_tensor* second_row_narrowed(int64_t length) {
  tsr_tensor* a, *n = NULL;
  TSR_ASSERT_OK(tsr_arange(0, 6, 1, TSR_FLOAT32, TSR_CPU, &a));
  const int64_t s[] = {2, 3};
  tsr_tensor* v = viewed(a, 2, s);
  return then_release(v, tsr_narrow(v, 0, 1, length, &n), &n);
}
static tsr_tensor* case_empty_narrowed(void) { return second_row_narrowed(0); }
static tsr_tensor* case_size_one(void) { return second_row_narrowed(1); }

typedef struct {
  const char* name;
  tsr_tensor* (*make)(void);
  int64_t ndim;
  int64_t sizes[4];
  int64_t strides[4];         /* tessera's (= torch's) strides of the case   */
  int64_t storage_offset;     /* ... and its storage_offset                   */
  int64_t dl_strides[4];      /* DLTensor.strides from torch's to_dlpack      */
  int64_t storage_nbytes;     /* u.storage().nbytes() after the round trip    */
} geometry_case;

static const geometry_case kCases[] = {
    {"transposed", case_transposed, 3, {4, 3, 2}, {1, 4, 12}, 0, {1, 4, 12}, 96},
    {"narrowed", case_narrowed, 2, {4, 3}, {6, 1}, 2, {6, 1}, 84},
    {"narrowed_t", case_narrowed_t, 2, {3, 4}, {1, 6}, 2, {1, 6}, 84},
    {"expanded", case_expanded, 2, {3, 4}, {1, 0}, 0, {1, 0}, 12},
    {"channels_last", case_channels_last, 4, {2, 3, 4, 5}, {60, 1, 15, 3}, 0, {60, 1, 15, 3}, 480},
    {"zero_dim", case_zero_dim, 0, {0}, {0}, 3, {0}, 4},
    {"empty", case_empty, 2, {0, 3}, {3, 1}, 0, {1, 1}, 0},
    {"empty_narrowed", case_empty_narrowed, 2, {0, 3}, {3, 1}, 3, {1, 1}, 0},
    {"size_one", case_size_one, 2, {1, 3}, {3, 1}, 3, {1, 1}, 12},
};
#define NCASES (sizeof kCases / sizeof kCases[0])

Test(dlpack, export_describes_the_view_as_torch_does) {
  for (size_t i = 0; i < NCASES; ++i) {
    const geometry_case* c = &kCases[i];
    tsr_tensor* t = c->make();
    tsr_assert_geometry(t, c->ndim, c->sizes, c->strides);
    cr_assert_eq(tsr_tensor_storage_offset(t), c->storage_offset, "%s", c->name);

    DLManagedTensor* m = NULL;
    TSR_ASSERT_OK(tsr_to_dlpack(t, &m));
    const DLTensor* dl = &m->dl_tensor;
    cr_expect_eq(dl->data, tsr_tensor_data_ptr(t), "%s: data is element [0,...,0]", c->name);
    cr_expect_eq(dl->byte_offset, 0, "%s", c->name);
    cr_expect_eq(dl->device.device_type, kDLCPU, "%s", c->name);
    cr_expect_eq(dl->device.device_id, 0, "%s", c->name);
    cr_expect_eq(dl->ndim, c->ndim, "%s", c->name);
    cr_expect_eq(dl->dtype.code, kDLFloat, "%s", c->name);
    cr_expect_eq(dl->dtype.bits, 32, "%s", c->name);
    cr_expect_eq(dl->dtype.lanes, 1, "%s", c->name);
    cr_assert(dl->shape != NULL && dl->strides != NULL, "%s: shape/strides NULL", c->name);
    for (int64_t d = 0; d < c->ndim; ++d) {
      cr_expect_eq(dl->shape[d], c->sizes[d], "%s: shape[%lld]", c->name, (long long)d);
      cr_expect_eq(dl->strides[d], c->dl_strides[d], "%s: strides[%lld] = %lld", c->name,
                   (long long)d, (long long)dl->strides[d]);
    }
    cr_expect_eq(m->deleter != NULL, true);
    m->deleter(m);
    tsr_tensor_release(t);
  }
}

Test(dlpack, round_trip_keeps_sizes_strides_and_address) {
  for (size_t i = 0; i < NCASES; ++i) {
    const geometry_case* c = &kCases[i];
    tsr_tensor* t = c->make();
    DLManagedTensor* m = NULL;
    TSR_ASSERT_OK(tsr_to_dlpack(t, &m));
    tsr_tensor* back = SENTINEL;
    TSR_ASSERT_OK(tsr_from_dlpack(m, &back));
    /* torch's round trip: the exported strides, storage_offset 0, the same
     * element address, a storage spanning exactly what the view reaches. */
    tsr_assert_geometry(back, c->ndim, c->sizes, c->dl_strides);
    cr_expect_eq(tsr_tensor_storage_offset(back), 0, "%s", c->name);
    cr_expect_eq(tsr_tensor_data_ptr(back), tsr_tensor_data_ptr(t), "%s", c->name);
    cr_expect_eq(tsr_tensor_dtype(back), TSR_FLOAT32);
    tsr_storage* s;
    TSR_ASSERT_OK(tsr_tensor_storage(back, &s));
    cr_expect_eq(tsr_storage_nbytes(s), c->storage_nbytes, "%s: storage %lld bytes", c->name,
                 (long long)tsr_storage_nbytes(s));
    tsr_storage_release(s);
    bool same = true;
    TSR_ASSERT_OK(tsr_shares_storage(t, back, &same));
    cr_expect(!same, "%s: the import has its own storage object over the same memory", c->name);
    /* Same values element by element, through the strides of each side. */
    int64_t n = tsr_tensor_numel(t);
    size_t nbytes = (size_t)tsr_tensor_nbytes(t);
    float* a = malloc(nbytes + 4), *b = malloc(nbytes + 4);
    TSR_ASSERT_OK(tsr_copy_to_buffer(t, a, nbytes, NULL));
    TSR_ASSERT_OK(tsr_copy_to_buffer(back, b, nbytes, NULL));
    for (int64_t k = 0; k < n; ++k) cr_expect_eq(a[k], b[k], "%s: element %lld", c->name, (long long)k);
    free(a);
    free(b);
    tsr_tensor_release(t);
    tsr_tensor_release(back); /* runs the export's deleter */
  }
}

Test(dlpack, writes_through_one_side_are_seen_through_the_other) {
  tsr_tensor* t = case_narrowed_t(); /* sizes [3,4], strides [1,6], offset 2 */
  DLManagedTensor* m;
  TSR_ASSERT_OK(tsr_to_dlpack(t, &m));
  /* Through the raw DLTensor: element [2,1] sits at data + 2*1 + 1*6. */
  float* p = m->dl_tensor.data;
  p[2 * m->dl_tensor.strides[0] + 1 * m->dl_tensor.strides[1]] = -5.0f;
  const int64_t i21[] = {2, 1}, i03[] = {0, 3};
  double v;
  TSR_ASSERT_OK(tsr_get_double(t, 2, i21, &v));
  cr_expect_eq(v, -5.0);

  tsr_tensor* back;
  TSR_ASSERT_OK(tsr_from_dlpack(m, &back));
  TSR_ASSERT_OK(tsr_set_double(back, 2, i03, 42.0));
  TSR_ASSERT_OK(tsr_get_double(t, 2, i03, &v));
  cr_expect_eq(v, 42.0, "tessera import -> original");
  TSR_ASSERT_OK(tsr_set_double(t, 2, i21, 7.0));
  TSR_ASSERT_OK(tsr_get_double(back, 2, i21, &v));
  cr_expect_eq(v, 7.0, "original -> tessera import");
  tsr_tensor_release(back);
  tsr_tensor_release(t);
}

Test(dlpack, export_keeps_memory_alive_after_release) {
  tsr_tensor* t = case_narrowed(); /* a.view(4,6).narrow(1,2,3): [[2,3,4],[8,9,10],...] */
  tsr_storage* s;
  TSR_ASSERT_OK(tsr_tensor_storage(t, &s));
  cr_expect_eq(tsr_storage_use_count(s), 1);
  DLManagedTensor* m;
  TSR_ASSERT_OK(tsr_to_dlpack(t, &m));
  cr_expect_eq(tsr_storage_use_count(s), 2, "the export holds a tensor over the storage");
  tsr_storage_release(s);
  tsr_tensor_release(t);
  /* Only the DLManagedTensor keeps the storage now (ASan: no use after free). */
  const float* p = m->dl_tensor.data;
  const int64_t* st = m->dl_tensor.strides;
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 3; ++c)
      cr_expect_eq(p[r * st[0] + c * st[1]], (float)(r * 6 + 2 + c));
  m->deleter(m); /* LeakSanitizer checks that this freed everything */
}

Test(dlpack, to_dlpack_rejects_null_arguments) {
  DLManagedTensor* m = (DLManagedTensor*)(uintptr_t)0x5e5e;
  TSR_ASSERT_FAILS(tsr_to_dlpack(NULL, &m), TSR_ERR_INVALID_ARGUMENT, "tensor is NULL");
  cr_expect_eq(m, (DLManagedTensor*)(uintptr_t)0x5e5e);
  tsr_tensor* t = arange24();
  TSR_ASSERT_FAILS(tsr_to_dlpack(t, NULL), TSR_ERR_INVALID_ARGUMENT, "out is NULL");
  tsr_tensor_release(t);
}

/* ---- dtypes ---------------------------------------------------------------- */

/* torch 1.13's to_dlpack for every dtype it exports (bfloat16 {4,16,1});
 * torch 1.13 refuses bool ("Bool type is not supported by dlpack"), so bool
 * is DLPack 0.8's kDLBool {6,8,1}, which torch >= 2.0 uses. */
static const struct {
  tsr_dtype dtype;
  uint8_t code, bits;
} kDtypes[] = {
    {TSR_UINT8, 1, 8},    {TSR_INT8, 0, 8},      {TSR_INT16, 0, 16},   {TSR_INT32, 0, 32},
    {TSR_INT64, 0, 64},   {TSR_FLOAT16, 2, 16},  {TSR_FLOAT32, 2, 32}, {TSR_FLOAT64, 2, 64},
    {TSR_BOOL, 6, 8},     {TSR_BFLOAT16, 4, 16},
    /* torch >= 2.3's uint16/32/64; DLPack 1.1's kDLFloat8_e4m3fn (10) and
     * kDLFloat8_e5m2 (12), as torch 2.x exports its float8 types */
    {TSR_UINT16, 1, 16},  {TSR_UINT32, 1, 32},   {TSR_UINT64, 1, 64},
    {TSR_FLOAT8_E4M3FN, 10, 8}, {TSR_FLOAT8_E5M2, 12, 8},
};

Test(dlpack, dtype_table_for_all_fifteen_dtypes_both_ways) {
  cr_assert_eq(sizeof kDtypes / sizeof kDtypes[0], 15);
  const int64_t s[] = {2, 3};
  for (size_t i = 0; i < 15; ++i) {
    const char* name = tsr_dtype_name(kDtypes[i].dtype);
    tsr_tensor* t;
    TSR_ASSERT_OK(tsr_ones(2, s, kDtypes[i].dtype, TSR_CPU, &t));
    DLManagedTensor* m;
    TSR_ASSERT_OK(tsr_to_dlpack(t, &m));
    cr_expect_eq(m->dl_tensor.dtype.code, kDtypes[i].code, "%s: code %d", name,
                 m->dl_tensor.dtype.code);
    cr_expect_eq(m->dl_tensor.dtype.bits, kDtypes[i].bits, "%s: bits %d", name,
                 m->dl_tensor.dtype.bits);
    cr_expect_eq(m->dl_tensor.dtype.lanes, 1, "%s", name);
    tsr_tensor* back;
    TSR_ASSERT_OK(tsr_from_dlpack(m, &back));
    cr_expect_eq(tsr_tensor_dtype(back), kDtypes[i].dtype, "%s came back as %s", name,
                 tsr_dtype_name(tsr_tensor_dtype(back)));
    double v;
    const int64_t idx[] = {1, 2};
    TSR_ASSERT_OK(tsr_get_double(back, 2, idx, &v));
    cr_expect_eq(v, 1.0, "%s", name);
    tsr_tensor_release(back);
    tsr_tensor_release(t);
  }
}

/* ---- import from a foreign producer ---------------------------------------------- */

/* A producer that owns its DLManagedTensor on the heap and counts deleter
 * calls: a second call would be a double free (ASan), none a leak (LSan). */
static int g_deleted;

typedef struct {
  DLManagedTensor managed;
  int64_t shape[8];
  int64_t strides[8];
  double storage[32]; /* float32 view: 0, 1, 2, ... (8-byte aligned) */
} producer;

static void producer_deleter(DLManagedTensor* self) {
  ++g_deleted;
  free(self->manager_ctx);
}

/* float32 {ndim, shape, strides (NULL: none)} over 0, 1, 2, ..., 63. */
static DLManagedTensor* produce(int32_t ndim, const int64_t* shape, const int64_t* strides) {
  producer* p = calloc(1, sizeof *p);
  cr_assert(p != NULL);
  float* f = (float*)p->storage;
  for (int k = 0; k < 64; ++k) f[k] = (float)k;
  for (int32_t d = 0; d < ndim && d < 8; ++d) {
    p->shape[d] = shape[d];
    if (strides) p->strides[d] = strides[d];
  }
  DLTensor* dl = &p->managed.dl_tensor;
  dl->data = p->storage;
  dl->device.device_type = kDLCPU;
  dl->device.device_id = 0;
  dl->ndim = ndim;
  dl->dtype.code = kDLFloat;
  dl->dtype.bits = 32;
  dl->dtype.lanes = 1;
  dl->shape = p->shape;
  dl->strides = strides ? p->strides : NULL;
  dl->byte_offset = 0;
  p->managed.manager_ctx = p;
  p->managed.deleter = producer_deleter;
  return &p->managed;
}

Test(dlpack, import_deleter_runs_once_after_the_last_user) {
  g_deleted = 0;
  const int64_t shape[] = {3, 4}, strides[] = {4, 1};
  DLManagedTensor* m = produce(2, shape, strides);
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_dlpack(m, &t));
  cr_expect_eq(tsr_tensor_data_ptr(t), m->dl_tensor.data, "zero-copy");
  tsr_tensor* tr;
  TSR_ASSERT_OK(tsr_transpose(t, 0, 1, &tr));
  tsr_storage* s;
  TSR_ASSERT_OK(tsr_tensor_storage(tr, &s));
  cr_expect_eq(tsr_storage_nbytes(s), 48);
  tsr_tensor_release(t);
  cr_expect_eq(g_deleted, 0, "a view still uses the storage");
  tsr_tensor_release(tr);
  cr_expect_eq(g_deleted, 0, "a storage handle still holds it");
  tsr_storage_release(s);
  cr_expect_eq(g_deleted, 1, "deleter ran %d times", g_deleted);
}

Test(dlpack, import_writes_reach_producer_memory) {
  g_deleted = 0;
  const int64_t shape[] = {2, 3}, strides[] = {1, 2}; /* column-major 2x3 */
  DLManagedTensor* m = produce(2, shape, strides);
  float* mem = m->dl_tensor.data;
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_dlpack(m, &t));
  const int64_t i12[] = {1, 2};
  double v;
  TSR_ASSERT_OK(tsr_get_double(t, 2, i12, &v));
  cr_expect_eq(v, 5.0, "element [1,2] is at 1*1 + 2*2");
  TSR_ASSERT_OK(tsr_set_double(t, 2, i12, -1.0));
  cr_expect_eq(mem[5], -1.0f);
  mem[0] = 9.0f;
  const int64_t i00[] = {0, 0};
  TSR_ASSERT_OK(tsr_get_double(t, 2, i00, &v));
  cr_expect_eq(v, 9.0);
  tsr_tensor_release(t);
  cr_expect_eq(g_deleted, 1);
}

Test(dlpack, import_null_strides_mean_row_major) {
  g_deleted = 0;
  const int64_t shape[] = {3, 4};
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_dlpack(produce(2, shape, NULL), &t));
  const int64_t strides[] = {4, 1};
  tsr_assert_geometry(t, 2, shape, strides);
  bool contiguous = false;
  TSR_ASSERT_OK(tsr_is_contiguous(t, TSR_CONTIGUOUS_FORMAT, &contiguous));
  cr_expect(contiguous);
  tsr_tensor_release(t);
  cr_expect_eq(g_deleted, 1);
}

Test(dlpack, import_honours_byte_offset) {
  g_deleted = 0;
  const int64_t shape[] = {3};
  DLManagedTensor* m = produce(1, shape, NULL);
  m->dl_tensor.byte_offset = 12; /* three floats in */
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_dlpack(m, &t));
  cr_expect_eq(tsr_tensor_data_ptr(t), (char*)m->dl_tensor.data + 12);
  cr_expect_eq(tsr_tensor_storage_offset(t), 0);
  for (int64_t k = 0; k < 3; ++k) {
    double v;
    TSR_ASSERT_OK(tsr_get_double(t, 1, &k, &v));
    cr_expect_eq(v, 3.0 + (double)k);
  }
  tsr_tensor_release(t);
  cr_expect_eq(g_deleted, 1);
}

Test(dlpack, import_zero_elements_and_zero_dims) {
  g_deleted = 0;
  const int64_t empty[] = {0, 5};
  DLManagedTensor* m = produce(2, empty, NULL);
  m->dl_tensor.data = NULL; /* allowed (and recommended) for no elements */
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_dlpack(m, &t));
  const int64_t strides[] = {5, 1};
  tsr_assert_geometry(t, 2, empty, strides);
  cr_expect_eq(tsr_tensor_numel(t), 0);
  tsr_tensor_release(t);
  cr_expect_eq(g_deleted, 1);

  m = produce(0, NULL, NULL);
  m->dl_tensor.shape = NULL; /* nothing to point at for ndim 0 */
  m->dl_tensor.byte_offset = 8;
  TSR_ASSERT_OK(tsr_from_dlpack(m, &t));
  cr_expect_eq(tsr_tensor_ndim(t), 0);
  double v;
  TSR_ASSERT_OK(tsr_item_double(t, &v));
  cr_expect_eq(v, 2.0);
  tsr_storage* s;
  TSR_ASSERT_OK(tsr_tensor_storage(t, &s));
  cr_expect_eq(tsr_storage_nbytes(s), 4);
  tsr_storage_release(s);
  tsr_tensor_release(t);
  cr_expect_eq(g_deleted, 2);
}

/* ---- import refusals: status, message, deleter exactly once, out untouched ------- */

typedef void (*corruption)(DLManagedTensor* m);
static void lanes_4(DLManagedTensor* m) { m->dl_tensor.dtype.lanes = 4; }
static void complex64(DLManagedTensor* m) { m->dl_tensor.dtype = (DLDataType){kDLComplex, 64, 1}; }
static void float8(DLManagedTensor* m) { m->dl_tensor.dtype = (DLDataType){kDLFloat, 8, 1}; }
static void float8_e3m4(DLManagedTensor* m) { m->dl_tensor.dtype = (DLDataType){7, 8, 1}; }
static void uint128(DLManagedTensor* m) { m->dl_tensor.dtype = (DLDataType){kDLUInt, 128, 1}; }
static void float8_e4m3fnuz(DLManagedTensor* m) { m->dl_tensor.dtype = (DLDataType){11, 8, 1}; }
static void float8_e4m3fn_16(DLManagedTensor* m) { m->dl_tensor.dtype = (DLDataType){10, 16, 1}; }
static void bool16(DLManagedTensor* m) { m->dl_tensor.dtype = (DLDataType){6, 16, 1}; }
/* A CUDA device no machine has: refused here (no driver) and on a GPU alike. */
static void cuda(DLManagedTensor* m) {
  m->dl_tensor.device.device_type = kDLCUDA;
  m->dl_tensor.device.device_id = 99;
}
static void opencl(DLManagedTensor* m) { m->dl_tensor.device.device_type = kDLOpenCL; }
static void cpu_1(DLManagedTensor* m) { m->dl_tensor.device.device_id = 1; }
static void negative_stride(DLManagedTensor* m) {
  m->dl_tensor.strides[1] = -1;
  m->dl_tensor.byte_offset = 12;
}
static void ndim_negative(DLManagedTensor* m) { m->dl_tensor.ndim = -1; }
static void ndim_65(DLManagedTensor* m) { m->dl_tensor.ndim = 65; }
static void shape_null(DLManagedTensor* m) { m->dl_tensor.shape = NULL; }
static void size_negative(DLManagedTensor* m) { m->dl_tensor.shape[0] = -2; }
static void numel_overflow(DLManagedTensor* m) {
  m->dl_tensor.shape[0] = INT64_C(1) << 32;
  m->dl_tensor.shape[1] = INT64_C(1) << 32;
}
static void extent_overflow(DLManagedTensor* m) { m->dl_tensor.strides[0] = INT64_MAX / 2; }
static void bytes_overflow(DLManagedTensor* m) { m->dl_tensor.strides[0] = INT64_MAX / 8; }
static void data_null(DLManagedTensor* m) { m->dl_tensor.data = NULL; }
static void misaligned(DLManagedTensor* m) { m->dl_tensor.byte_offset = 2; }
static void wraps(DLManagedTensor* m) { m->dl_tensor.byte_offset = UINT64_MAX - 3; }

static const struct {
  const char* name;
  corruption corrupt;
  tsr_status status;
  const char* needle;
} kRefusals[] = {
    {"lanes", lanes_4, TSR_ERR_UNSUPPORTED, "lanes 4"},
    {"complex64", complex64, TSR_ERR_UNSUPPORTED, "{code 5 (complex), bits 64}"},
    {"float bits 8", float8, TSR_ERR_UNSUPPORTED, "{code 2 (float), bits 8}"},
    {"float8_e3m4", float8_e3m4, TSR_ERR_UNSUPPORTED, "{code 7 ("},
    {"uint128", uint128, TSR_ERR_UNSUPPORTED, "{code 1 (uint), bits 128}"},
    {"float8_e4m3fnuz", float8_e4m3fnuz, TSR_ERR_UNSUPPORTED, "{code 11 ("},
    {"float8_e4m3fn bits 16", float8_e4m3fn_16, TSR_ERR_UNSUPPORTED,
     "{code 10 (float8_e4m3fn), bits 16}"},
    {"bool bits 16", bool16, TSR_ERR_UNSUPPORTED, "{code 6 (bool), bits 16}"},
    {"cuda", cuda, TSR_ERR_UNSUPPORTED, "DLPack device type 2 (CUDA) index 99: "},
    {"opencl", opencl, TSR_ERR_UNSUPPORTED, "device type 4 is not supported"},
    {"cpu device 1", cpu_1, TSR_ERR_UNSUPPORTED, "device id must be 0, got 1"},
    {"negative stride", negative_stride, TSR_ERR_UNSUPPORTED, "negative strides [4, -1]"},
    {"ndim -1", ndim_negative, TSR_ERR_INVALID_ARGUMENT, "ndim must be in [0, 64], got -1"},
    {"ndim 65", ndim_65, TSR_ERR_INVALID_ARGUMENT, "ndim must be in [0, 64], got 65"},
    {"shape NULL", shape_null, TSR_ERR_INVALID_ARGUMENT, "shape is NULL with ndim 2"},
    {"negative size", size_negative, TSR_ERR_INVALID_ARGUMENT, "negative dimension -2"},
    {"numel overflow", numel_overflow, TSR_ERR_INVALID_ARGUMENT, "number of elements overflows"},
    {"extent overflow", extent_overflow, TSR_ERR_INVALID_ARGUMENT, "storage extent overflows"},
    {"bytes overflow", bytes_overflow, TSR_ERR_INVALID_ARGUMENT, "storage bytes overflows"},
    {"data NULL", data_null, TSR_ERR_INVALID_ARGUMENT, "data is NULL for 12 elements"},
    {"misaligned", misaligned, TSR_ERR_INVALID_ARGUMENT, "not aligned to the element size 4"},
    {"wraps", wraps, TSR_ERR_INVALID_ARGUMENT, "wraps around"},
};

Test(dlpack, import_refusals_run_the_deleter_once) {
  const int64_t shape[] = {3, 4}, strides[] = {4, 1};
  for (size_t i = 0; i < sizeof kRefusals / sizeof kRefusals[0]; ++i) {
    g_deleted = 0;
    DLManagedTensor* m = produce(2, shape, strides);
    kRefusals[i].corrupt(m);
    tsr_tensor* t = SENTINEL;
    tsr_clear_last_error();
    tsr_status st = tsr_from_dlpack(m, &t);
    cr_expect_eq(st, kRefusals[i].status, "%s: got %s (%s)", kRefusals[i].name,
                 tsr_status_name(st), tsr_last_error_message());
    cr_expect_eq(tsr_last_error_code(), kRefusals[i].status, "%s", kRefusals[i].name);
    cr_expect(strstr(tsr_last_error_message(), kRefusals[i].needle) != NULL,
              "%s: message \"%s\" lacks \"%s\"", kRefusals[i].name, tsr_last_error_message(),
              kRefusals[i].needle);
    cr_expect(strstr(tsr_last_error_message(), "from_dlpack") != NULL, "%s: %s",
              kRefusals[i].name, tsr_last_error_message());
    cr_expect_eq(t, SENTINEL, "%s: out written", kRefusals[i].name);
    cr_expect_eq(g_deleted, 1, "%s: deleter ran %d times", kRefusals[i].name, g_deleted);
  }
}

Test(dlpack, import_null_out_runs_the_deleter_once) {
  g_deleted = 0;
  const int64_t shape[] = {2};
  TSR_ASSERT_FAILS(tsr_from_dlpack(produce(1, shape, NULL), NULL), TSR_ERR_INVALID_ARGUMENT,
                   "out is NULL");
  cr_expect_eq(g_deleted, 1);
}

Test(dlpack, import_null_src_calls_nothing) {
  g_deleted = 0;
  tsr_tensor* t = SENTINEL;
  TSR_ASSERT_FAILS(tsr_from_dlpack(NULL, &t), TSR_ERR_INVALID_ARGUMENT, "src is NULL");
  cr_expect_eq(t, SENTINEL);
  cr_expect_eq(g_deleted, 0);
}

Test(dlpack, import_without_deleter_is_allowed) {
  /* DLPack allows deleter == NULL: the producer keeps the memory itself. */
  float mem[4] = {1, 2, 3, 4};
  int64_t shape[] = {4};
  DLManagedTensor m = {{mem, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0}, NULL, NULL};
  tsr_tensor* t;
  TSR_ASSERT_OK(tsr_from_dlpack(&m, &t));
  const int64_t i3[] = {3};
  double v;
  TSR_ASSERT_OK(tsr_get_double(t, 1, i3, &v));
  cr_expect_eq(v, 4.0);
  tsr_tensor_release(t);
  m.dl_tensor.dtype.lanes = 2;
  TSR_ASSERT_FAILS(tsr_from_dlpack(&m, &t), TSR_ERR_UNSUPPORTED, "lanes 2");
}

/* ---- DLManagedTensorVersioned (DLPack >= 1.0 headers only) -------------------- */
#if TSR_HAS_DLPACK_VERSIONED

static void versioned_deleter(DLManagedTensorVersioned* self) {
  ++g_deleted;
  free(self);
}
static DLManagedTensorVersioned* produce_versioned(float* mem, int64_t* shape) {
  DLManagedTensorVersioned* m = calloc(1, sizeof *m);
  m->version.major = DLPACK_MAJOR_VERSION;
  m->version.minor = DLPACK_MINOR_VERSION;
  m->deleter = versioned_deleter;
  m->dl_tensor = (DLTensor){mem, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  return m;
}

Test(dlpack, versioned_round_trip) {
  tsr_tensor* t = case_narrowed_t();
  DLManagedTensorVersioned* m;
  TSR_ASSERT_OK(tsr_to_dlpack_versioned(t, &m));
  cr_expect_eq(m->version.major, DLPACK_MAJOR_VERSION);
  cr_expect_eq(m->version.minor, DLPACK_MINOR_VERSION);
  cr_expect_eq(m->flags, 0);
  cr_expect_eq(m->dl_tensor.data, tsr_tensor_data_ptr(t));
  cr_expect_eq(m->dl_tensor.strides[1], 6);
  tsr_tensor* back;
  TSR_ASSERT_OK(tsr_from_dlpack_versioned(m, &back));
  tsr_assert_geometry(back, 2, kCases[2].sizes, kCases[2].dl_strides);
  cr_expect_eq(tsr_tensor_data_ptr(back), tsr_tensor_data_ptr(t));
  tsr_tensor_release(t);
  tsr_tensor_release(back);
}

Test(dlpack, versioned_refusals_run_the_deleter_once) {
  float mem[4] = {0};
  int64_t shape[] = {4};
  g_deleted = 0;
  tsr_tensor* t = SENTINEL;
  DLManagedTensorVersioned* m = produce_versioned(mem, shape);
  m->version.major = DLPACK_MAJOR_VERSION + 1;
  TSR_ASSERT_FAILS(tsr_from_dlpack_versioned(m, &t), TSR_ERR_UNSUPPORTED, "major version");
  cr_expect_eq(g_deleted, 1);
  m = produce_versioned(mem, shape);
  m->flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  TSR_ASSERT_FAILS(tsr_from_dlpack_versioned(m, &t), TSR_ERR_UNSUPPORTED, "read-only");
  cr_expect_eq(g_deleted, 2);
  m = produce_versioned(mem, shape);
  m->dl_tensor.device.device_type = kDLCUDA;
  m->dl_tensor.device.device_id = 99;
  TSR_ASSERT_FAILS(tsr_from_dlpack_versioned(m, &t), TSR_ERR_UNSUPPORTED, "(CUDA) index 99");
  cr_expect_eq(g_deleted, 3);
  cr_expect_eq(t, SENTINEL);
  TSR_ASSERT_OK(tsr_from_dlpack_versioned(produce_versioned(mem, shape), &t));
  tsr_tensor_release(t);
  cr_expect_eq(g_deleted, 4);
}

#else

Test(dlpack, versioned_api_absent_with_dlpack_0_x_headers) {
  /* <dlpack/dlpack.h> older than 1.0 has no DLManagedTensorVersioned. */
  cr_expect(!TSR_HAS_DLPACK_VERSIONED);
}

#endif
