/* bindings/tessera.i — the one SWIG interface behind the Python, Java, C# and
 * Go bindings.
 *
 * Layout of this file:
 *   1. the language's own file (bindings/<lang>/<lang>.i): its %exception
 *      block, array typemaps and naming rules, which must come before the
 *      declarations they apply to;
 *   2. the enums and plain structs, taken from the public headers themselves;
 *   3. the handle classes (Tensor, Storage, Generator, TensorMap, TensorList)
 *      as empty structs with %extend methods over the C API;
 *   4. module-level functions (grad, inference and anomaly modes, checkpoint
 *      regions, autograd_grad, the torch.nn.functional-style ops and those
 *      taking several tensors (linear, gelu, layer_norm, cat, stack, where,
 *      embedding), allocator, save, version).
 *
 * Conventions every language file implements:
 *   - Errors: each wrapped call is bracketed by tsr_bind_clear() before and
 *     tsr_bind_error(&msg) after (bind_support.h); a non-OK status becomes the
 *     language's exception / Go error carrying the status and the message.
 *     Methods below therefore just call the C API and return its out value.
 *   - Arrays in: (const tsr_i64* array, int64_t length) for int64 lists,
 *     (const double* darray, int64_t dlength) for doubles and
 *     (const void* bytes, size_t nbytes) for raw bytes. %apply maps the other
 *     parameter names used below onto these three.
 *   - Arrays out: tsr_i64_array, tsr_f64_array and tsr_bytes returned by value,
 *     copied into a native array (and freed when owned).
 *   - A released handle is NULL on the native side; passing it on makes the
 *     library record TSR_ERR_INVALID_ARGUMENT, which the check above raises.
 * Names are snake_case here; each language file renames to its convention.
 */
%module tessera

%include <stdint.i>

%{
#include <stdio.h>
#include <tessera/tessera.h>
#include "support/bind_support.h"

/* Most C API calls return a status and write their result through an out
 * parameter. TSR_RETURN_OUT declares `out` (of type, set to init), runs call,
 * which passes &out, and returns out: init when the call failed, whose
 * status the error bracket then raises. */
#define TSR_RETURN_OUT(type, init, call) \
  do {                                   \
    type out = init;                     \
    call;                                \
    return out;                          \
  } while (0)
#define TSR_RETURN_TENSOR(call) TSR_RETURN_OUT(tsr_tensor*, NULL, call)
%}

/* Default arguments turn into `...interface{}` overloads in Go; Go's
 * hand-written package supplies its own defaults instead. */
#ifdef SWIGGO
#define TSR_DEFAULT(value)
#else
#define TSR_DEFAULT(value) = value
#endif

#if defined(SWIGPYTHON)
%include "python/python.i"
#elif defined(SWIGJAVA)
%include "java/java.i"
#elif defined(SWIGCSHARP)
%include "csharp/csharp.i"
#elif defined(SWIGGO)
%include "go/go.i"
#endif

/* ---- 2. enums and plain structs, from the headers -------------------------- */
/* Only the declarations: every tsr_ function is wrapped by hand below. */
%rename("$ignore", %$isfunction, regextarget=1) "^tsr_";
%ignore tsr_deleter;
%ignore tsr_save_options;
%ignore tsr_load_options;
%ignore tsr_memory_stats_t::struct_size;
#define TSR_API
%rename(Status) tsr_status;
%rename(DType) tsr_dtype;
%rename(DeviceType) tsr_device_type;
%rename(MemoryFormat) tsr_memory_format;
%rename(Compression) tsr_compression;
%rename(MemoryStat) tsr_memory_stat_t;
%rename(MemoryStats) tsr_memory_stats_t;
%rename(GeluApproximate) tsr_gelu_approximate;
%rename("%(strip:[TSR_])s", regextarget=1, %$isenumitem) "^TSR_";
%include "tessera/types.h"
%include "tessera/io.h"
%include "tessera/allocator.h"
%include "tessera/ops.h" /* for tsr_gelu_approximate */

/* ---- 3. handle classes ---------------------------------------------------- */
/* tsr_i64 (int64_t behind a pointer) stays opaque to SWIG on purpose: stdint.i
 * makes int64_t `long long`, which is not `long` on LP64 (bindings.md). */

typedef struct { const int64_t* data; int64_t length; int owned; } tsr_i64_array;
typedef struct { double* data; int64_t length; } tsr_f64_array;
typedef struct { char* data; int64_t length; } tsr_bytes;

%apply (const tsr_i64* array, int64_t length) {
  (const tsr_i64* sizes, int64_t ndim),
  (const tsr_i64* strides, int64_t nstrides),
  (const tsr_i64* dims, int64_t ndims),
  (const tsr_i64* index, int64_t nindex),
  (const tsr_i64* source, int64_t nsource),
  (const tsr_i64* destination, int64_t ndestination),
  (const tsr_i64* values, int64_t nvalues),
  (const tsr_i64* normalized_shape, int64_t n_normalized),
  (const tsr_i64* kernel_size, int64_t nkernel_size),
  (const tsr_i64* stride, int64_t nstride),
  (const tsr_i64* padding, int64_t npadding),
  (const tsr_i64* dilation, int64_t ndilation),
  (const tsr_i64* output_size, int64_t noutput_size)
};

%rename(Tensor) TsrTensor;
%rename(Storage) TsrStorage;
%rename(Generator) TsrGenerator;
%rename(TensorMap) TsrTensorMap;
%rename(TensorList) TsrTensorList;
%rename(Saver) TsrSaver;
/* java.io.File and System.IO.File are imported everywhere: TensorFile there. */
#if defined(SWIGJAVA) || defined(SWIGCSHARP)
%rename(TensorFile) TsrFile;
#else
%rename(File) TsrFile;
#endif

%nodefaultctor TsrTensor;
%nodefaultctor TsrStorage;
%nodefaultctor TsrTensorMap;
typedef struct {} TsrTensor;
typedef struct {} TsrStorage;
typedef struct {} TsrGenerator;
typedef struct {} TsrTensorMap;
typedef struct {} TsrTensorList;
%nodefaultctor TsrSaver;
%nodefaultctor TsrFile;
typedef struct {} TsrSaver;
typedef struct {} TsrFile;

/* Every method returning a handle returns a new reference the proxy owns. */
%newobject TsrTensor::empty;
%newobject TsrTensor::empty_strided;
%newobject TsrTensor::zeros;
%newobject TsrTensor::ones;
%newobject TsrTensor::full;
%newobject TsrTensor::arange;
%newobject TsrTensor::from_bytes;
%newobject TsrTensor::from_float64;
%newobject TsrTensor::from_int64;
%newobject TsrTensor::rand;
%newobject TsrTensor::randn;
%newobject TsrTensor::randperm;
%newobject TsrTensor::storage;
%newobject TsrTensor::abs;
%newobject TsrTensor::ge;
%newobject TsrTensor::gt;
%newobject TsrTensor::le;
%newobject TsrTensor::lt;
%newobject TsrTensor::ne;
%newobject TsrTensor::eq;
%newobject TsrTensor::to_string;
/* Strings the library allocates go back to it (c-api.md: never free across
 * the boundary with the other side's allocator). */
%typemap(newfree) char* "tsr_free_string($1);";
%newobject TsrTensor::view;
%newobject TsrTensor::reshape;
%newobject TsrTensor::transpose;
%newobject TsrTensor::t;
%newobject TsrTensor::permute;
%newobject TsrTensor::narrow;
%newobject TsrTensor::slice;
%newobject TsrTensor::select;
%newobject TsrTensor::expand;
%newobject TsrTensor::squeeze;
%newobject TsrTensor::squeeze_dim;
%newobject TsrTensor::unsqueeze;
%newobject TsrTensor::flatten;
%newobject TsrTensor::unflatten;
%newobject TsrTensor::movedim;
%newobject TsrTensor::as_strided;
%newobject TsrTensor::unfold;
%newobject TsrTensor::diagonal;
%newobject TsrTensor::split;
%newobject TsrTensor::chunk;
%newobject TsrTensor::contiguous;
%newobject TsrTensor::clone;
%newobject TsrTensor::to;
%newobject TsrTensor::add;
%newobject TsrTensor::sub;
%newobject TsrTensor::mul;
%newobject TsrTensor::div;
%newobject TsrTensor::mul_scalar;
%newobject TsrTensor::add_scalar;
%newobject TsrTensor::relu;
%newobject TsrTensor::exp;
%newobject TsrTensor::log;
%newobject TsrTensor::neg;
%newobject TsrTensor::matmul;
%newobject TsrTensor::sum;
%newobject TsrTensor::mean;
%newobject TsrTensor::max_dim;
%newobject TsrTensor::max;
%newobject TsrTensor::argmax;
%newobject TsrTensor::log_softmax;
%newobject TsrTensor::softmax;
%newobject TsrTensor::tanh;
%newobject TsrTensor::sigmoid;
%newobject TsrTensor::sqrt;
%newobject TsrTensor::pow_scalar;
%newobject TsrTensor::pow;
%newobject TsrTensor::clamp;
%newobject TsrTensor::index_select;
%newobject TsrTensor::gather;
%newobject TsrTensor::cross_entropy;
%newobject TsrTensor::grad;
%newobject TsrTensor::detach;
%newobject TsrTensor::dropout;
%newobject TsrTensorMap::load;
%newobject TsrTensorMap::get;
%newobject TsrTensorMap::get_by_name;
%newobject TsrTensorMap::to_list;
%newobject TsrTensorList::get;
%newobject TsrTensorMap::load_with;
%newobject TsrSaver::open;
%newobject TsrFile::open;
%newobject TsrFile::get;
%newobject TsrFile::get_by_name;
%newobject TsrFile::get_slice;

/* ---- Tensor: torch.Tensor over tsr_tensor --------------------------------- */
%extend TsrTensor {
  ~TsrTensor() { tsr_tensor_release($self); }

  /* Factories (torch.empty, zeros, ...): CPU device 0 unless told. */
  static TsrTensor* empty(const tsr_i64* sizes, int64_t ndim, tsr_dtype dtype TSR_DEFAULT(TSR_FLOAT32),
                          tsr_memory_format memory_format TSR_DEFAULT(TSR_CONTIGUOUS_FORMAT),
                          tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU),
                          int32_t device_index TSR_DEFAULT(0)) {
    TSR_RETURN_TENSOR(tsr_empty(ndim, sizes, dtype, memory_format, device_type, device_index, &out));
  }
  static TsrTensor* empty_strided(const tsr_i64* sizes, int64_t ndim, const tsr_i64* strides,
                                  int64_t nstrides, tsr_dtype dtype TSR_DEFAULT(TSR_FLOAT32),
                                  tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU),
                                  int32_t device_index TSR_DEFAULT(0)) {
    if (nstrides != ndim) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "empty_strided: sizes and strides differ in length");
      return NULL;
    }
    TSR_RETURN_TENSOR(tsr_empty_strided(ndim, sizes, strides, dtype, device_type, device_index, &out));
  }
  static TsrTensor* zeros(const tsr_i64* sizes, int64_t ndim, tsr_dtype dtype TSR_DEFAULT(TSR_FLOAT32),
                          tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU),
                          int32_t device_index TSR_DEFAULT(0)) {
    TSR_RETURN_TENSOR(tsr_zeros(ndim, sizes, dtype, device_type, device_index, &out));
  }
  static TsrTensor* ones(const tsr_i64* sizes, int64_t ndim, tsr_dtype dtype TSR_DEFAULT(TSR_FLOAT32),
                         tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU),
                         int32_t device_index TSR_DEFAULT(0)) {
    TSR_RETURN_TENSOR(tsr_ones(ndim, sizes, dtype, device_type, device_index, &out));
  }
  static TsrTensor* full(const tsr_i64* sizes, int64_t ndim, double value,
                         tsr_dtype dtype TSR_DEFAULT(TSR_FLOAT32),
                         tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU),
                         int32_t device_index TSR_DEFAULT(0)) {
    TSR_RETURN_TENSOR(tsr_full(ndim, sizes, value, dtype, device_type, device_index, &out));
  }
  static TsrTensor* arange(double start, double end, double step TSR_DEFAULT(1.0),
                           tsr_dtype dtype TSR_DEFAULT(TSR_INT64),
                           tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU),
                           int32_t device_index TSR_DEFAULT(0)) {
    TSR_RETURN_TENSOR(tsr_arange(start, end, step, dtype, device_type, device_index, &out));
  }
  /* A copy of C-order native-endian elements of dtype (tsr_from_data). */
  static TsrTensor* from_bytes(const void* bytes, size_t nbytes, const tsr_i64* sizes, int64_t ndim,
                               tsr_dtype dtype) {
    TSR_RETURN_TENSOR(tsr_from_data(bytes, nbytes, ndim, sizes, dtype, &out));
  }
  /* A tensor of sizes and dtype holding darray's values (C order) converted
   * to dtype as tsr_copy_ converts. */
  static TsrTensor* from_float64(const double* darray, int64_t dlength, const tsr_i64* sizes,
                                 int64_t ndim, tsr_dtype dtype TSR_DEFAULT(TSR_FLOAT32)) {
    return tsr_bind_from_data_as(darray, (size_t)dlength * sizeof(double), ndim, sizes,
                                 TSR_FLOAT64, dtype);
  }
  static TsrTensor* from_int64(const tsr_i64* values, int64_t nvalues, const tsr_i64* sizes,
                               int64_t ndim, tsr_dtype dtype TSR_DEFAULT(TSR_INT64)) {
    return tsr_bind_from_data_as(values, (size_t)nvalues * sizeof(int64_t), ndim, sizes,
                                 TSR_INT64, dtype);
  }
  /* torch.rand / randn / randperm with generator=g. */
  static TsrTensor* rand(const tsr_i64* sizes, int64_t ndim, TsrGenerator* generator,
                         tsr_dtype dtype TSR_DEFAULT(TSR_FLOAT32)) {
    TSR_RETURN_TENSOR(tsr_rand(ndim, sizes, dtype, generator, &out));
  }
  static TsrTensor* randn(const tsr_i64* sizes, int64_t ndim, TsrGenerator* generator,
                          tsr_dtype dtype TSR_DEFAULT(TSR_FLOAT32)) {
    TSR_RETURN_TENSOR(tsr_randn(ndim, sizes, dtype, generator, &out));
  }
  static TsrTensor* randperm(int64_t n, TsrGenerator* generator) {
    TSR_RETURN_TENSOR(tsr_randperm(n, generator, &out));
  }

  /* Queries. */
  int64_t ndim() { return tsr_tensor_ndim($self); }
  tsr_i64_array sizes() {
    tsr_i64_array a = {tsr_tensor_sizes($self), tsr_tensor_ndim($self), 0};
    return a;
  }
  tsr_i64_array strides() {
    tsr_i64_array a = {tsr_tensor_strides($self), tsr_tensor_ndim($self), 0};
    return a;
  }
  int64_t size(int64_t dim) { TSR_RETURN_OUT(int64_t, 0, tsr_tensor_size($self, dim, &out)); }
  int64_t stride(int64_t dim) { TSR_RETURN_OUT(int64_t, 0, tsr_tensor_stride($self, dim, &out)); }
  int64_t storage_offset() { return tsr_tensor_storage_offset($self); }
  int64_t numel() { return tsr_tensor_numel($self); }
  int64_t element_size() { return tsr_tensor_element_size($self); }
  int64_t nbytes() { return tsr_tensor_nbytes($self); }
  tsr_dtype dtype() { return tsr_tensor_dtype($self); }
  tsr_device_type device_type() { return tsr_tensor_device_type($self); }
  int32_t device_index() { return tsr_tensor_device_index($self); }
  /* Address of element [0,...,0] as an integer (for ctypes, NumPy, ...). */
  uint64_t data_ptr() { return (uint64_t)(uintptr_t)tsr_tensor_data_ptr($self); }
  TsrStorage* storage() { TSR_RETURN_OUT(tsr_storage*, NULL, tsr_tensor_storage($self, &out)); }

  /* Elements. */
  double item_double() { TSR_RETURN_OUT(double, 0, tsr_item_double($self, &out)); }
  int64_t item_int64() { TSR_RETURN_OUT(int64_t, 0, tsr_item_int64($self, &out)); }
  double get_double(const tsr_i64* index, int64_t nindex) {
    TSR_RETURN_OUT(double, 0, tsr_get_double($self, nindex, index, &out));
  }
  int64_t get_int64(const tsr_i64* index, int64_t nindex) {
    TSR_RETURN_OUT(int64_t, 0, tsr_get_int64($self, nindex, index, &out));
  }
  void set_double(const tsr_i64* index, int64_t nindex, double value) {
    tsr_set_double($self, nindex, index, value);
  }
  void set_int64(const tsr_i64* index, int64_t nindex, int64_t value) {
    tsr_set_int64($self, nindex, index, value);
  }
  /* repr(tensor) as PyTorch 1.13 prints it (tsr_tensor_to_string with
   * torch's default print options): each language's str/toString. The
   * wrapper copies the text into the language's string, then frees the
   * library's with tsr_free_string (%newobject + the newfree typemap). */
  char* to_string() {
    char* text = NULL;
    tsr_tensor_to_string($self, NULL, &text);
    return text;
  }
  /* All elements in C order, as raw bytes of the tensor's dtype
   * (tsr_copy_to_buffer), as doubles, or as int64s. */
  tsr_bytes to_bytes() {
    tsr_bytes b = {NULL, -1};
    b.data = (char*)tsr_bind_copy_elements($self, &b.length);
    return b;
  }
  tsr_f64_array to_float64() {
    tsr_f64_array a = {NULL, -1};
    a.data = (double*)tsr_bind_copy_elements_as($self, TSR_FLOAT64, &a.length);
    return a;
  }
  tsr_i64_array to_int64() {
    tsr_i64_array a = {NULL, -1, 1};
    a.data = (const int64_t*)tsr_bind_copy_elements_as($self, TSR_INT64, &a.length);
    return a;
  }

  /* Views (torch.Tensor.view, reshape, ...). */
  TsrTensor* view(const tsr_i64* sizes, int64_t ndim) {
    TSR_RETURN_TENSOR(tsr_view($self, ndim, sizes, &out));
  }
  TsrTensor* reshape(const tsr_i64* sizes, int64_t ndim) {
    TSR_RETURN_TENSOR(tsr_reshape($self, ndim, sizes, &out));
  }
  TsrTensor* transpose(int64_t dim0, int64_t dim1) {
    TSR_RETURN_TENSOR(tsr_transpose($self, dim0, dim1, &out));
  }
  TsrTensor* t() { TSR_RETURN_TENSOR(tsr_t($self, &out)); }
  TsrTensor* permute(const tsr_i64* dims, int64_t ndims) {
    TSR_RETURN_TENSOR(tsr_permute($self, ndims, dims, &out));
  }
  TsrTensor* narrow(int64_t dim, int64_t start, int64_t length) {
    TSR_RETURN_TENSOR(tsr_narrow($self, dim, start, length, &out));
  }
  TsrTensor* slice(int64_t dim, int64_t start, int64_t end, int64_t step TSR_DEFAULT(1)) {
    TSR_RETURN_TENSOR(tsr_slice($self, dim, start, end, step, &out));
  }
  TsrTensor* select(int64_t dim, int64_t index) {
    TSR_RETURN_TENSOR(tsr_select($self, dim, index, &out));
  }
  TsrTensor* expand(const tsr_i64* sizes, int64_t ndim) {
    TSR_RETURN_TENSOR(tsr_expand($self, ndim, sizes, &out));
  }
  TsrTensor* squeeze() { TSR_RETURN_TENSOR(tsr_squeeze($self, &out)); }
  TsrTensor* squeeze_dim(int64_t dim) { TSR_RETURN_TENSOR(tsr_squeeze_dim($self, dim, &out)); }
  TsrTensor* unsqueeze(int64_t dim) { TSR_RETURN_TENSOR(tsr_unsqueeze($self, dim, &out)); }
  TsrTensor* flatten(int64_t start_dim TSR_DEFAULT(0), int64_t end_dim TSR_DEFAULT(-1)) {
    TSR_RETURN_TENSOR(tsr_flatten($self, start_dim, end_dim, &out));
  }
  TsrTensor* unflatten(int64_t dim, const tsr_i64* sizes, int64_t ndim) {
    TSR_RETURN_TENSOR(tsr_unflatten($self, dim, ndim, sizes, &out));
  }
  TsrTensor* movedim(const tsr_i64* source, int64_t nsource, const tsr_i64* destination,
                     int64_t ndestination) {
    if (nsource != ndestination) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT,
                    "movedim: Invalid source or destination dims: source and destination differ in length");
      return NULL;
    }
    TSR_RETURN_TENSOR(tsr_movedim($self, nsource, source, destination, &out));
  }
  TsrTensor* as_strided(const tsr_i64* sizes, int64_t ndim, const tsr_i64* strides, int64_t nstrides,
                        int64_t storage_offset TSR_DEFAULT(0)) {
    if (nstrides != ndim) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "as_strided: sizes and strides differ in length");
      return NULL;
    }
    TSR_RETURN_TENSOR(tsr_as_strided($self, ndim, sizes, strides, storage_offset, &out));
  }
  TsrTensor* unfold(int64_t dim, int64_t size, int64_t step) {
    TSR_RETURN_TENSOR(tsr_unfold($self, dim, size, step, &out));
  }
  TsrTensor* diagonal(int64_t offset TSR_DEFAULT(0), int64_t dim1 TSR_DEFAULT(0),
                      int64_t dim2 TSR_DEFAULT(1)) {
    TSR_RETURN_TENSOR(tsr_diagonal($self, offset, dim1, dim2, &out));
  }
  TsrTensorList* split(int64_t split_size, int64_t dim TSR_DEFAULT(0)) {
    return tsr_bind_pieces(tsr_split, $self, split_size, dim);
  }
  TsrTensorList* chunk(int64_t chunks, int64_t dim TSR_DEFAULT(0)) {
    return tsr_bind_pieces(tsr_chunk, $self, chunks, dim);
  }

  /* Layout. */
  bool is_contiguous(tsr_memory_format memory_format TSR_DEFAULT(TSR_CONTIGUOUS_FORMAT)) {
    TSR_RETURN_OUT(bool, false, tsr_is_contiguous($self, memory_format, &out));
  }
  bool is_non_overlapping_and_dense() {
    TSR_RETURN_OUT(bool, false, tsr_is_non_overlapping_and_dense($self, &out));
  }
  tsr_memory_format suggest_memory_format() {
    TSR_RETURN_OUT(tsr_memory_format, TSR_CONTIGUOUS_FORMAT, tsr_suggest_memory_format($self, &out));
  }
  TsrTensor* contiguous(tsr_memory_format memory_format TSR_DEFAULT(TSR_CONTIGUOUS_FORMAT)) {
    TSR_RETURN_TENSOR(tsr_contiguous($self, memory_format, &out));
  }
  TsrTensor* clone(tsr_memory_format memory_format TSR_DEFAULT(TSR_PRESERVE_FORMAT)) {
    TSR_RETURN_TENSOR(tsr_clone($self, memory_format, &out));
  }
  TsrTensor* to(tsr_dtype dtype) { TSR_RETURN_TENSOR(tsr_to_dtype($self, dtype, &out)); }
  void copy_(TsrTensor* src) { tsr_copy_($self, src); }
  bool shares_storage(TsrTensor* other) {
    TSR_RETURN_OUT(bool, false, tsr_shares_storage($self, other, &out));
  }

  /* Arithmetic and functions (torch.add, ...). */
  TsrTensor* add(TsrTensor* other) { TSR_RETURN_TENSOR(tsr_add($self, other, &out)); }
  TsrTensor* sub(TsrTensor* other) { TSR_RETURN_TENSOR(tsr_sub($self, other, &out)); }
  TsrTensor* mul(TsrTensor* other) { TSR_RETURN_TENSOR(tsr_mul($self, other, &out)); }
  TsrTensor* div(TsrTensor* other) { TSR_RETURN_TENSOR(tsr_div($self, other, &out)); }
  TsrTensor* mul_scalar(double scalar) { TSR_RETURN_TENSOR(tsr_mul_scalar($self, scalar, &out)); }
  TsrTensor* add_scalar(double scalar) { TSR_RETURN_TENSOR(tsr_add_scalar($self, scalar, &out)); }
  void add_(TsrTensor* other, double alpha TSR_DEFAULT(1.0)) { tsr_add_($self, other, alpha); }
  void mul_scalar_(double scalar) { tsr_mul_scalar_($self, scalar); }
  void fill_(double value) { tsr_fill_($self, value); }
  void zero_() { tsr_zero_($self); }
  TsrTensor* relu() { TSR_RETURN_TENSOR(tsr_relu($self, &out)); }
  TsrTensor* exp() { TSR_RETURN_TENSOR(tsr_exp($self, &out)); }
  TsrTensor* log() { TSR_RETURN_TENSOR(tsr_log($self, &out)); }
  TsrTensor* neg() { TSR_RETURN_TENSOR(tsr_neg($self, &out)); }
  TsrTensor* matmul(TsrTensor* other) { TSR_RETURN_TENSOR(tsr_matmul($self, other, &out)); }
  /* Comparisons (torch.eq, ...): bool tensors, broadcasting. */
  TsrTensor* eq(TsrTensor* other) { TSR_RETURN_TENSOR(tsr_eq($self, other, &out)); }
  TsrTensor* ne(TsrTensor* other) { TSR_RETURN_TENSOR(tsr_ne($self, other, &out)); }
  TsrTensor* lt(TsrTensor* other) { TSR_RETURN_TENSOR(tsr_lt($self, other, &out)); }
  TsrTensor* le(TsrTensor* other) { TSR_RETURN_TENSOR(tsr_le($self, other, &out)); }
  TsrTensor* gt(TsrTensor* other) { TSR_RETURN_TENSOR(tsr_gt($self, other, &out)); }
  TsrTensor* ge(TsrTensor* other) { TSR_RETURN_TENSOR(tsr_ge($self, other, &out)); }
  /* torch.allclose(self, other, rtol, atol, equal_nan). */
  bool allclose(TsrTensor* other, double rtol TSR_DEFAULT(1e-05), double atol TSR_DEFAULT(1e-08),
                bool equal_nan TSR_DEFAULT(false)) {
    TSR_RETURN_OUT(bool, false, tsr_allclose($self, other, rtol, atol, equal_nan, &out));
  }
  TsrTensor* abs() { TSR_RETURN_TENSOR(tsr_abs($self, &out)); }
  /* torch.Tensor.relu_: max(self, 0) in place. */
  void relu_() { tsr_relu_($self); }
  /* torch.tanh, sigmoid, sqrt: floating self keeps its dtype, integer and
   * bool give float32; float16: TSR_ERR_DTYPE_MISMATCH. */
  TsrTensor* tanh() { TSR_RETURN_TENSOR(tsr_tanh($self, &out)); }
  TsrTensor* sigmoid() { TSR_RETURN_TENSOR(tsr_sigmoid($self, &out)); }
  TsrTensor* sqrt() { TSR_RETURN_TENSOR(tsr_sqrt($self, &out)); }
  /* torch.pow(self, exponent) with a float exponent: floating self keeps its
   * dtype, integer and bool give float32 (tsr_pow_scalar). */
  TsrTensor* pow_scalar(double exponent) {
    TSR_RETURN_TENSOR(tsr_pow_scalar($self, exponent, &out));
  }
  /* torch.pow(self, exponent) elementwise, broadcasting, dtype
   * torch.result_type(self, exponent) (tsr_pow). */
  TsrTensor* pow(TsrTensor* exponent) { TSR_RETURN_TENSOR(tsr_pow($self, exponent, &out)); }
  /* torch.clamp(self, min, max): has_min false is min=None, has_max false is
   * max=None (both false: TSR_ERR_INVALID_ARGUMENT, as torch). */
  TsrTensor* clamp(bool has_min, double min, bool has_max, double max) {
    TSR_RETURN_TENSOR(tsr_clamp($self, has_min ? &min : NULL, has_max ? &max : NULL, &out));
  }
  /* Reductions: an empty dims list reduces over every dim. */
  TsrTensor* sum(const tsr_i64* dims, int64_t ndims, bool keepdim TSR_DEFAULT(false)) {
    TSR_RETURN_TENSOR(tsr_sum($self, ndims, dims, keepdim, &out));
  }
  TsrTensor* mean(const tsr_i64* dims, int64_t ndims, bool keepdim TSR_DEFAULT(false)) {
    TSR_RETURN_TENSOR(tsr_mean($self, ndims, dims, keepdim, &out));
  }
  /* torch.max(dim, keepdim): a two-tensor list [values, indices]. */
  TsrTensorList* max_dim(int64_t dim, bool keepdim TSR_DEFAULT(false)) {
    tsr_tensor *values = NULL, *indices = NULL;
    if (tsr_max_dim($self, dim, keepdim, &values, &indices) != TSR_OK) return NULL;
    TsrTensorList* l = tsr_bind_list_new();
    if (!l) {
      tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory listing max results");
      tsr_tensor_release(values);
      tsr_tensor_release(indices);
      return NULL;
    }
    if (tsr_bind_list_push(l, values, "values") != 0) {
      tsr_tensor_release(indices);
      tsr_bind_list_free(l);
      return NULL;
    }
    if (tsr_bind_list_push(l, indices, "indices") != 0) {
      tsr_bind_list_free(l);
      return NULL;
    }
    return l;
  }
  TsrTensor* max() { TSR_RETURN_TENSOR(tsr_max($self, &out)); }
  TsrTensor* argmax(int64_t dim, bool keepdim TSR_DEFAULT(false)) {
    TSR_RETURN_TENSOR(tsr_argmax($self, dim, keepdim, &out));
  }
  TsrTensor* log_softmax(int64_t dim) { TSR_RETURN_TENSOR(tsr_log_softmax($self, dim, &out)); }
  TsrTensor* softmax(int64_t dim) { TSR_RETURN_TENSOR(tsr_softmax($self, dim, &out)); }
  /* torch.index_select(self, dim, index): index 0-D or 1-D, int32 or int64. */
  TsrTensor* index_select(int64_t dim, TsrTensor* index) {
    TSR_RETURN_TENSOR(tsr_index_select($self, dim, index, &out));
  }
  /* torch.gather(self, dim, index): index int64 with self's ndim. */
  TsrTensor* gather(int64_t dim, TsrTensor* index) {
    TSR_RETURN_TENSOR(tsr_gather($self, dim, index, &out));
  }
  /* self: logits [N, C]; target: [N] int64. */
  TsrTensor* cross_entropy(TsrTensor* target) {
    TSR_RETURN_TENSOR(tsr_cross_entropy($self, target, &out));
  }

  /* Autograd. */
  void set_requires_grad(bool requires_grad) { tsr_set_requires_grad($self, requires_grad); }
  bool requires_grad() {
    /* false for a live tensor is not an error; NULL records one. */
    return tsr_requires_grad($self);
  }
  bool is_leaf() { return tsr_is_leaf($self); }
  /* NULL (None/null/nil) for leaves. */
  const char* grad_fn_name() { return tsr_grad_fn_name($self); }
  int64_t version() { return tsr_version($self); }
  /* NULL (None/null/nil) when there is no gradient. */
  TsrTensor* grad() { TSR_RETURN_TENSOR(tsr_grad($self, &out)); }
  void set_grad(TsrTensor* grad) { tsr_set_grad($self, grad); }
  void zero_grad() { tsr_zero_grad($self); }
  void backward(TsrTensor* gradient TSR_DEFAULT(NULL), bool retain_graph TSR_DEFAULT(false)) {
    tsr_backward($self, gradient, retain_graph);
  }
  TsrTensor* detach() { TSR_RETURN_TENSOR(tsr_detach($self, &out)); }
  /* torch.Tensor.is_inference(): made under inference mode (or a view of
   * such a tensor). */
  bool is_inference() { return tsr_is_inference($self); }

  /* torch.dropout(self, p, train) with generator=g (tsr_dropout): each
   * element kept with probability 1 - p and scaled by 1 / (1 - p), or zeroed;
   * g advances by numel words. Not train, or p == 0: self itself (a new
   * reference). p outside [0, 1]: TSR_ERR_INVALID_ARGUMENT; a non-floating
   * self: TSR_ERR_DTYPE_MISMATCH. */
  TsrTensor* dropout(double p, bool train, TsrGenerator* generator) {
    TSR_RETURN_TENSOR(tsr_dropout($self, p, train, generator, &out));
  }
}

/* ---- Storage --------------------------------------------------------------- */
%extend TsrStorage {
  ~TsrStorage() { tsr_storage_release($self); }
  int64_t nbytes() { return tsr_storage_nbytes($self); }
  uint64_t data_ptr() { return (uint64_t)(uintptr_t)tsr_storage_data_ptr($self); }
  tsr_device_type device_type() { return tsr_storage_device_type($self); }
  int64_t use_count() { return tsr_storage_use_count($self); }
}

/* ---- Generator: torch.Generator ------------------------------------------- */
%extend TsrGenerator {
  TsrGenerator(uint64_t seed) {
    TSR_RETURN_OUT(tsr_generator*, NULL, tsr_generator_create(seed, &out));
  }
  ~TsrGenerator() { tsr_generator_release($self); }
  void manual_seed(uint64_t seed) { tsr_generator_manual_seed($self, seed); }
  /* (seed, offset): the Philox seed and the count of 32-bit words drawn so
   * far, as two int64s carrying the uint64 bits (each language reads them
   * back unsigned where it has the type). */
  tsr_i64_array get_state() {
    tsr_i64_array a = {NULL, -1, 1};
    uint64_t seed = 0, offset = 0;
    if (tsr_generator_get_state($self, &seed, &offset) != TSR_OK) return a;
    int64_t* pair = (int64_t*)malloc(2 * sizeof(int64_t));
    if (!pair) {
      tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory reading a generator's state");
      return a;
    }
    pair[0] = (int64_t)seed;
    pair[1] = (int64_t)offset;
    a.data = pair;
    a.length = 2;
    return a;
  }
  /* Moves the generator to (seed, offset): the next op draws what an op at
   * that position drew before. */
  void set_state(uint64_t seed, uint64_t offset) { tsr_generator_set_state($self, seed, offset); }
}

/* ---- TensorList: split/chunk results, max_dim results, save input ---------- */
%extend TsrTensorList {
  TsrTensorList() {
    TsrTensorList* l = tsr_bind_list_new();
    if (!l) tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory creating a TensorList");
    return l;
  }
  ~TsrTensorList() { tsr_bind_list_free($self); }
  int64_t size() {
    if (!$self) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "TensorList is closed");
      return -1;
    }
    return $self->size;
  }
  /* Appends a new reference to tensor, with an optional name (save needs names). */
  void append(TsrTensor* tensor, const char* name TSR_DEFAULT(NULL)) {
    if (!$self || !tensor) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "TensorList.append: closed list or tensor");
      return;
    }
    tsr_tensor_retain(tensor);
    tsr_bind_list_push($self, tensor, name);
  }
  /* Appends an empty slot (NULL): a grad_output left to its default in
   * autograd_grad. get(i) of it returns NULL (None/null/nil). */
  void append_none() {
    if (!$self) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "TensorList.append_none: closed list");
      return;
    }
    tsr_bind_list_push($self, NULL, NULL);
  }
  TsrTensor* get(int64_t i) {
    if (tsr_bind_list_check($self, i) != 0) return NULL;
    tsr_tensor_retain($self->items[i]);
    return $self->items[i];
  }
  /* NULL when tensor i has no name. */
  const char* name(int64_t i) {
    if (tsr_bind_list_check($self, i) != 0) return NULL;
    return $self->names[i];
  }
  /* A "__metadata__" pair for save. */
  void set_metadata(const char* key, const char* value) {
    if (!$self || !key || !value) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "TensorList.set_metadata: closed list, key or value");
      return;
    }
    int64_t n = $self->meta_size;
    char** keys = (char**)realloc($self->meta_keys, (size_t)(n + 1) * sizeof(char*));
    if (keys) $self->meta_keys = keys;
    char** values = keys ? (char**)realloc($self->meta_values, (size_t)(n + 1) * sizeof(char*)) : NULL;
    if (values) $self->meta_values = values;
    char* k = values ? tsr_bind_strdup(key) : NULL;
    char* v = k ? tsr_bind_strdup(value) : NULL;
    if (!v) {
      free(k);
      tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory adding metadata");
      return;
    }
    keys[n] = k;
    values[n] = v;
    $self->meta_size = n + 1;
  }
}

/* ---- TensorMap: what load returns ------------------------------------------ */
%extend TsrTensorMap {
  ~TsrTensorMap() { tsr_tensor_map_release($self); }
  /* tsr_load. max_bytes: cap on the tensor bytes a load may allocate, 0 = the
   * default cap (64 x the file's size + 64 MiB), INT64_MAX = none. */
  static TsrTensorMap* load(const char* path, int64_t max_bytes TSR_DEFAULT(0)) {
    tsr_load_options opts = TSR_LOAD_OPTIONS_INIT;
    opts.max_bytes = max_bytes;
    TSR_RETURN_OUT(tsr_tensor_map*, NULL, tsr_load(path, &opts, &out));
  }
  int64_t size() { return tsr_tensor_map_count($self); }
  const char* name(int64_t i) { return tsr_tensor_map_name($self, i); }
  /* -1 when absent. */
  int64_t find(const char* name) { return tsr_tensor_map_find($self, name); }
  TsrTensor* get(int64_t i) { TSR_RETURN_TENSOR(tsr_tensor_map_get($self, i, &out)); }
  TsrTensor* get_by_name(const char* name) {
    TSR_RETURN_TENSOR(tsr_tensor_map_get_by_name($self, name, &out));
  }
  int64_t metadata_size() { return tsr_tensor_map_metadata_count($self); }
  const char* metadata_key(int64_t i) { return tsr_tensor_map_metadata_key($self, i); }
  const char* metadata_value(int64_t i) { return tsr_tensor_map_metadata_value($self, i); }
  /* NULL when absent. */
  const char* metadata_get(const char* key) { return tsr_tensor_map_metadata_get($self, key); }
}

/* ---- Progress callbacks, streaming saves, lazily read files --------------- */
/* A progress callback crosses as the pair (tsr_progress_fn progress,
 * void* progress_user_data): each language file maps one host object (a
 * Python callable, a Java ProgressListener, a C# delegate, a Go handle id)
 * onto the pair with a multi-argument typemap, and defines
 *   void* tsr_bind_progress_keep(void* user_data)  a reference that outlives
 *                                                  the call (for a saver);
 *   void  tsr_bind_progress_drop(void* kept)       drops it.
 * A NULL host object gives (NULL, NULL): no callback. The language's
 * trampoline returns TSR_ERR_CANCELLED when the host callback says stop or
 * throws; the host side keeps the exception and attaches it to the
 * CANCELLED error the call then raises. */

/* TensorMap.load_with: tsr_load with every option. */
%extend TsrTensorMap {
  /* tsr_load: max_bytes as load's; skip_checksums: do not verify the file's
   * checksums; progress: see above. path may be a sharded checkpoint's
   * "model.safetensors.index.json". */
  static TsrTensorMap* load_with(const char* path, int64_t max_bytes, bool skip_checksums,
                                 tsr_progress_fn progress, void* progress_user_data) {
    tsr_load_options opts = TSR_LOAD_OPTIONS_INIT;
    opts.max_bytes = max_bytes;
    opts.skip_checksums = skip_checksums ? 1 : 0;
    opts.progress = progress;
    opts.progress_user_data = progress ? progress_user_data : NULL;
    TSR_RETURN_OUT(tsr_tensor_map*, NULL, tsr_load(path, &opts, &out));
  }
}

/* ---- Saver: tsr_saver_open / add / commit / release ------------------------ */
%extend TsrSaver {
  /* tsr_saver_open: metadata (the list's metadata pairs; its tensors are
   * ignored) may be NULL; a nonzero max_shard_size is the library's
   * TSR_ERR_UNSUPPORTED. */
  static TsrSaver* open(const char* path, TsrTensorList* metadata, tsr_compression compression,
                        int32_t level, bool skip_checksums, int64_t max_shard_size,
                        tsr_progress_fn progress, void* progress_user_data) {
    TsrSaver* box = (TsrSaver*)calloc(1, sizeof *box);
    if (!box) {
      tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory creating a Saver");
      return NULL;
    }
    /* C# and Go pass no user_data (the delegate / handle id is its own). */
    void* kept = NULL;
    if (progress && progress_user_data && !(kept = tsr_bind_progress_keep(progress_user_data))) {
      free(box);
      tsr_bind_fail(TSR_ERR_INTERNAL, "Saver.open: cannot keep the progress callback");
      return NULL;
    }
    tsr_save_options opts;
    bind_fill_save_options(&opts, metadata, compression, level, skip_checksums, max_shard_size,
                           false, progress, kept);
    if (tsr_saver_open(path, &opts, &box->saver) != TSR_OK) {
      if (kept) tsr_bind_progress_drop(kept);
      free(box);
      return NULL;
    }
    box->progress_user_data = kept;
    return box;
  }
  ~TsrSaver() { bind_saver_free($self); }
  /* tsr_saver_add: writes tensor's contents now, under name. */
  void add(const char* name, TsrTensor* tensor) {
    tsr_saver* s = bind_saver_get($self, "Saver.add: the saver is closed");
    if (s) tsr_saver_add(s, name, tensor);
  }
  /* tsr_saver_commit: the file appears at path. */
  void commit() {
    tsr_saver* s = bind_saver_get($self, "Saver.commit: the saver is closed");
    if (s) tsr_saver_commit(s);
  }
}

/* ---- File: tsr_open_file, names and shapes without reading, tensors lazily - */
%extend TsrFile {
  /* tsr_open_file: max_bytes and skip_checksums as for load_with. */
  static TsrFile* open(const char* path, int64_t max_bytes, bool skip_checksums) {
    tsr_load_options opts = TSR_LOAD_OPTIONS_INIT;
    opts.max_bytes = max_bytes;
    opts.skip_checksums = skip_checksums ? 1 : 0;
    TSR_RETURN_OUT(tsr_file*, NULL, tsr_open_file(path, &opts, &out));
  }
  ~TsrFile() { tsr_file_release($self); }
  int64_t size() { return tsr_file_count($self); }
  const char* name(int64_t i) { return tsr_file_name($self, i); }
  /* -1 when absent. */
  int64_t find(const char* name) { return tsr_file_find($self, name); }
  /* Tensor i's dtype, without reading it. */
  tsr_dtype dtype(int64_t i) {
    tsr_dtype d = TSR_FLOAT32;
    tsr_file_tensor_info($self, i, &d, NULL, NULL);
    return d;
  }
  /* Tensor i's sizes, without reading it. */
  tsr_i64_array shape(int64_t i) {
    int64_t ndim = -1;
    const int64_t* sizes = NULL;
    tsr_i64_array a = {NULL, -1, 0};
    if (tsr_file_tensor_info($self, i, NULL, &ndim, &sizes) == TSR_OK) {
      a.data = sizes;
      a.length = ndim;
    }
    return a;
  }
  /* Tensor i: a read-only view of the mapping (plain file) or a new tensor
   * decoded from its chunks (compressed file). */
  TsrTensor* get(int64_t i) { TSR_RETURN_TENSOR(tsr_file_get($self, i, &out)); }
  TsrTensor* get_by_name(const char* name) {
    TSR_RETURN_TENSOR(tsr_file_get_by_name($self, name, &out));
  }
  /* tsr_file_get_slice: rows [start, stop) of dim 0 of tensor i, reading only
   * the chunks that hold them (compressed file); a view of the mapping
   * (plain file). 0 <= start <= stop <= sizes[0], no negative positions. */
  TsrTensor* get_slice(int64_t i, int64_t start, int64_t stop) {
    TSR_RETURN_TENSOR(tsr_file_get_slice($self, i, start, stop, &out));
  }
  int64_t metadata_size() { return tsr_file_metadata_count($self); }
  const char* metadata_key(int64_t i) { return tsr_file_metadata_key($self, i); }
  const char* metadata_value(int64_t i) { return tsr_file_metadata_value($self, i); }
  /* NULL when absent. */
  const char* metadata_get(const char* key) { return tsr_file_metadata_get($self, key); }
}

/* ---- 4. module functions --------------------------------------------------- */
%{

/* torch.is_grad_enabled / set_grad_enabled (per thread); set returns the
 * previous setting, which a no_grad scope restores. */
static bool bind_is_grad_enabled(void) { return tsr_is_grad_enabled(); }
static bool bind_set_grad_enabled(bool enabled) { return tsr_set_grad_enabled(enabled); }

/* torch.inference_mode (per thread) and torch.autograd.set_detect_anomaly
 * (process-wide); each set returns the previous setting, which the
 * languages' scopes restore. */
static bool bind_is_inference_mode_enabled(void) { return tsr_is_inference_mode_enabled(); }
static bool bind_set_inference_mode(bool enabled) { return tsr_set_inference_mode(enabled); }
static bool bind_is_anomaly_enabled(void) { return tsr_is_anomaly_enabled(); }
static bool bind_set_detect_anomaly(bool enabled) { return tsr_set_detect_anomaly(enabled); }

/* torch.nn.functional.linear(input, weight, bias); bias NULL for none. */
static TsrTensor* bind_linear(TsrTensor* input, TsrTensor* weight, TsrTensor* bias) {
  TSR_RETURN_TENSOR(tsr_linear(input, weight, bias, &out));
}
/* torch.nn.functional.gelu(input, approximate). */
static TsrTensor* bind_gelu(TsrTensor* input, tsr_gelu_approximate approximate) {
  TSR_RETURN_TENSOR(tsr_gelu(input, approximate, &out));
}
/* torch.nn.functional.layer_norm(input, normalized_shape, weight, bias,
 * eps); weight and bias NULL for none. */
static TsrTensor* bind_layer_norm(TsrTensor* input, const tsr_i64* normalized_shape,
                                  int64_t n_normalized, TsrTensor* weight, TsrTensor* bias,
                                  double eps) {
  TSR_RETURN_TENSOR(
      tsr_layer_norm(input, n_normalized, normalized_shape, weight, bias, eps, &out));
}
/* The convolutional layers of cnn.h. Pair arguments ({H, W}) come as
 * arrays of two; an empty stride means kernel_size (torch's stride=None). */
static bool bind_pair(const char* fn, const char* what, int64_t n, bool may_be_empty) {
  if (n == 2 || (may_be_empty && n == 0)) return true;
  /* tsr_bind_fail keeps the pointer: a per-thread buffer, rewritten only by
   * the next failure of this check on this thread. */
  static __thread char msg[200];
  snprintf(msg, sizeof msg, "%s: %s must have 2 elements (H, W)%s, got %lld", fn, what,
           may_be_empty ? " or none" : "", (long long)n);
  tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, msg);
  return false;
}
/* torch.nn.functional.conv2d(input, weight, bias, stride, padding,
 * dilation, groups); bias NULL for none. */
static TsrTensor* bind_conv2d(TsrTensor* input, TsrTensor* weight, TsrTensor* bias, const tsr_i64* stride,
                              int64_t nstride, const tsr_i64* padding, int64_t npadding, const tsr_i64* dilation,
                              int64_t ndilation, int64_t groups) {
  if (!bind_pair("conv2d", "stride", nstride, false) || !bind_pair("conv2d", "padding", npadding, false) ||
      !bind_pair("conv2d", "dilation", ndilation, false))
    return NULL;
  TSR_RETURN_TENSOR(tsr_conv2d(input, weight, bias, stride, padding, dilation, groups, &out));
}
static bool bind_pool_pairs(const char* fn, int64_t nkernel_size, int64_t nstride, int64_t npadding) {
  return bind_pair(fn, "kernel_size", nkernel_size, false) && bind_pair(fn, "stride", nstride, true) &&
         bind_pair(fn, "padding", npadding, false);
}
/* F.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode): the values. */
static TsrTensor* bind_max_pool2d(TsrTensor* input, const tsr_i64* kernel_size, int64_t nkernel_size,
                                  const tsr_i64* stride, int64_t nstride, const tsr_i64* padding, int64_t npadding,
                                  const tsr_i64* dilation, int64_t ndilation, bool ceil_mode) {
  if (!bind_pool_pairs("max_pool2d", nkernel_size, nstride, npadding) ||
      !bind_pair("max_pool2d", "dilation", ndilation, false))
    return NULL;
  TSR_RETURN_TENSOR(tsr_max_pool2d(input, kernel_size, nstride ? stride : NULL, padding, dilation, ceil_mode,
                                   &out, NULL));
}
/* The same with return_indices=True: a two-tensor list [values, indices]. */
static TsrTensorList* bind_max_pool2d_with_indices(TsrTensor* input, const tsr_i64* kernel_size,
                                                   int64_t nkernel_size, const tsr_i64* stride, int64_t nstride,
                                                   const tsr_i64* padding, int64_t npadding,
                                                   const tsr_i64* dilation, int64_t ndilation, bool ceil_mode) {
  if (!bind_pool_pairs("max_pool2d", nkernel_size, nstride, npadding) ||
      !bind_pair("max_pool2d", "dilation", ndilation, false))
    return NULL;
  tsr_tensor *values = NULL, *indices = NULL;
  if (tsr_max_pool2d(input, kernel_size, nstride ? stride : NULL, padding, dilation, ceil_mode, &values,
                     &indices) != TSR_OK)
    return NULL;
  TsrTensorList* l = tsr_bind_list_new();
  if (!l) {
    tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory listing max_pool2d results");
    tsr_tensor_release(values);
    tsr_tensor_release(indices);
    return NULL;
  }
  if (tsr_bind_list_push(l, values, "values") != 0) {
    tsr_tensor_release(indices);
    tsr_bind_list_free(l);
    return NULL;
  }
  if (tsr_bind_list_push(l, indices, "indices") != 0) {
    tsr_bind_list_free(l);
    return NULL;
  }
  return l;
}
/* F.avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad). */
static TsrTensor* bind_avg_pool2d(TsrTensor* input, const tsr_i64* kernel_size, int64_t nkernel_size,
                                  const tsr_i64* stride, int64_t nstride, const tsr_i64* padding, int64_t npadding,
                                  bool ceil_mode, bool count_include_pad) {
  if (!bind_pool_pairs("avg_pool2d", nkernel_size, nstride, npadding)) return NULL;
  TSR_RETURN_TENSOR(tsr_avg_pool2d(input, kernel_size, nstride ? stride : NULL, padding, ceil_mode,
                                   count_include_pad, &out));
}
/* F.adaptive_avg_pool2d(input, output_size). */
static TsrTensor* bind_adaptive_avg_pool2d(TsrTensor* input, const tsr_i64* output_size, int64_t noutput_size) {
  if (!bind_pair("adaptive_avg_pool2d", "output_size", noutput_size, false)) return NULL;
  TSR_RETURN_TENSOR(tsr_adaptive_avg_pool2d(input, output_size, &out));
}
/* F.batch_norm(input, running_mean, running_var, weight, bias, training,
 * momentum, eps); any of the four may be NULL (running stats: training only). */
static TsrTensor* bind_batch_norm(TsrTensor* input, TsrTensor* running_mean, TsrTensor* running_var,
                                  TsrTensor* weight, TsrTensor* bias, bool training, double momentum, double eps) {
  TSR_RETURN_TENSOR(
      tsr_batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps, &out));
}
/* torch.cat / torch.stack of a TensorList's tensors (an empty slot is the
 * library's TSR_ERR_INVALID_ARGUMENT). */
static TsrTensor* bind_cat(TsrTensorList* tensors, int64_t dim) {
  if (!tensors) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "cat: the TensorList is NULL or closed");
    return NULL;
  }
  TSR_RETURN_TENSOR(
      tsr_cat(tensors->size, (const tsr_tensor* const*)tensors->items, dim, &out));
}
static TsrTensor* bind_stack(TsrTensorList* tensors, int64_t dim) {
  if (!tensors) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "stack: the TensorList is NULL or closed");
    return NULL;
  }
  TSR_RETURN_TENSOR(
      tsr_stack(tensors->size, (const tsr_tensor* const*)tensors->items, dim, &out));
}
/* torch.where(condition, input, other). */
static TsrTensor* bind_where(TsrTensor* condition, TsrTensor* input, TsrTensor* other) {
  TSR_RETURN_TENSOR(tsr_where(condition, input, other, &out));
}
/* torch.nn.functional.embedding(input, weight): torch's argument order
 * (tsr_embedding takes weight first). */
static TsrTensor* bind_embedding(TsrTensor* input, TsrTensor* weight) {
  TSR_RETURN_TENSOR(tsr_embedding(weight, input, &out));
}

/* tsr_save of every tensor in list, under its name, with list's metadata.
 * level 0 means zstd's default. */
static void bind_save(const char* path, TsrTensorList* list,
                 tsr_compression compression,
                 int32_t level) {
  if (!list) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "save: the TensorList is NULL or closed");
    return;
  }
  for (int64_t i = 0; i < list->size; ++i) {
    if (!list->names[i]) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "save: every tensor needs a name");
      return;
    }
  }
  tsr_save_options opts;
  memset(&opts, 0, sizeof opts);
  opts.struct_size = sizeof opts;
  opts.compression = compression;
  opts.level = level;
  opts.n_metadata = list->meta_size;
  opts.metadata_keys = (const char* const*)list->meta_keys;
  opts.metadata_values = (const char* const*)list->meta_values;
  tsr_save(path, list->size, (const char* const*)list->names, list->items, &opts);
}

/* tsr_save with every option (tsr_save_options): max_shard_size > 0 writes a
 * sharded checkpoint (path ending in ".safetensors"), flatten_views saves
 * views of one storage as separate tensors; progress as above. */
static void bind_save_with(const char* path, TsrTensorList* list, tsr_compression compression,
                           int32_t level, bool skip_checksums, int64_t max_shard_size,
                           bool flatten_views, tsr_progress_fn progress,
                           void* progress_user_data) {
  if (!list) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "save: the TensorList is NULL or closed");
    return;
  }
  for (int64_t i = 0; i < list->size; ++i) {
    if (!list->names[i]) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "save: every tensor needs a name");
      return;
    }
  }
  tsr_save_options opts;
  bind_fill_save_options(&opts, list, compression, level, skip_checksums, max_shard_size,
                         flatten_views, progress, progress_user_data);
  tsr_save(path, list->size, (const char* const*)list->names, list->items, &opts);
}

/* Allocator (torch.cuda.memory_* names), per device. */
static tsr_memory_stats_t bind_memory_stats(tsr_device_type device_type,
                                       int32_t device_index) {
  tsr_memory_stats_t s;
  memset(&s, 0, sizeof s);
  s.struct_size = sizeof s;
  tsr_memory_stats(device_type, device_index, &s);
  return s;
}
static int64_t bind_memory_allocated(tsr_device_type device_type,
                                int32_t device_index) {
  TSR_RETURN_OUT(int64_t, 0, tsr_memory_allocated(device_type, device_index, &out));
}
static int64_t bind_max_memory_allocated(tsr_device_type device_type,
                                    int32_t device_index) {
  TSR_RETURN_OUT(int64_t, 0, tsr_max_memory_allocated(device_type, device_index, &out));
}
static int64_t bind_memory_reserved(tsr_device_type device_type,
                               int32_t device_index) {
  TSR_RETURN_OUT(int64_t, 0, tsr_memory_reserved(device_type, device_index, &out));
}
static int64_t bind_max_memory_reserved(tsr_device_type device_type,
                                   int32_t device_index) {
  TSR_RETURN_OUT(int64_t, 0, tsr_max_memory_reserved(device_type, device_index, &out));
}
static void bind_reset_peak_memory_stats(tsr_device_type device_type,
                                    int32_t device_index) {
  tsr_reset_peak_memory_stats(device_type, device_index);
}
static void bind_reset_accumulated_memory_stats(tsr_device_type device_type,
                                           int32_t device_index) {
  tsr_reset_accumulated_memory_stats(device_type, device_index);
}
static void bind_empty_cache(tsr_device_type device_type,
                        int32_t device_index) {
  tsr_empty_cache(device_type, device_index);
}
/* 0 removes the cap. */
static void bind_set_memory_limit(int64_t bytes, tsr_device_type device_type,
                             int32_t device_index) {
  tsr_set_memory_limit(device_type, device_index, bytes);
}

/* The cap set by set_memory_limit, in bytes; 0 when there is none. */
static int64_t bind_memory_limit(tsr_device_type device_type, int32_t device_index) {
  TSR_RETURN_OUT(int64_t, 0, tsr_memory_limit(device_type, device_index, &out));
}

/* Checkpoint regions (checkpoint.h), per thread: begin opens one on the
 * calling thread with the options (keep_ops: comma-separated op names, NULL
 * or "" for none; TSR_ERR_INVALID_ARGUMENT naming an unknown one), end closes
 * the innermost (TSR_ERR_AUTOGRAD when none is open), depth counts the open
 * ones. Each language wraps begin/end in its scope idiom. */
static void bind_checkpoint_begin(bool preserve_rng_state, bool determinism_check,
                                  bool early_stop, const char* keep_ops) {
  tsr_bind_checkpoint_begin(preserve_rng_state, determinism_check, early_stop, keep_ops);
}
static void bind_checkpoint_end(void) { tsr_checkpoint_end(); }
static int64_t bind_checkpoint_depth(void) { return tsr_checkpoint_depth(); }

/* torch.autograd.grad over TensorLists (tsr_bind_autograd_grad): one
 * gradient per input, NULL for unused inputs under allow_unused. */
static TsrTensorList* bind_autograd_grad(TsrTensorList* outputs, TsrTensorList* inputs,
                                         TsrTensorList* grad_outputs, bool retain_graph,
                                         bool create_graph, bool allow_unused) {
  return tsr_bind_autograd_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                                allow_unused);
}

/* The loaded library's version (TSR_VERSION_NUMBER = major*10000+minor*100+patch). */
static int32_t bind_version_number(void) { return tsr_version_number(); }
/* torch.set_num_threads / get_num_threads: the kernels' thread count. */
static void bind_set_num_threads(int64_t n) { tsr_set_num_threads(n); }
static int64_t bind_get_num_threads(void) { return tsr_get_num_threads(); }
static const char* bind_version_string(void) { return tsr_version_string(); }
/* TSR_ERR_... name of a status (for messages). */
static const char* bind_status_name(tsr_status status) { return tsr_status_name(status); }
static const char* bind_dtype_name(tsr_dtype dtype) { return tsr_dtype_name(dtype); }
%}

/* What SWIG wraps (with the defaults the implementations above cannot carry). */
%rename(is_grad_enabled) bind_is_grad_enabled;
bool bind_is_grad_enabled(void);
%rename(set_grad_enabled) bind_set_grad_enabled;
bool bind_set_grad_enabled(bool enabled);
%rename(is_inference_mode_enabled) bind_is_inference_mode_enabled;
bool bind_is_inference_mode_enabled(void);
%rename(set_inference_mode) bind_set_inference_mode;
bool bind_set_inference_mode(bool enabled);
%rename(is_anomaly_enabled) bind_is_anomaly_enabled;
bool bind_is_anomaly_enabled(void);
%rename(set_detect_anomaly) bind_set_detect_anomaly;
bool bind_set_detect_anomaly(bool enabled);
%newobject bind_linear;
%rename(linear) bind_linear;
TsrTensor* bind_linear(TsrTensor* input, TsrTensor* weight, TsrTensor* bias);
%newobject bind_gelu;
%rename(gelu) bind_gelu;
TsrTensor* bind_gelu(TsrTensor* input, tsr_gelu_approximate approximate);
%newobject bind_layer_norm;
%rename(layer_norm) bind_layer_norm;
TsrTensor* bind_layer_norm(TsrTensor* input, const tsr_i64* normalized_shape, int64_t n_normalized, TsrTensor* weight, TsrTensor* bias, double eps);
%newobject bind_conv2d;
%rename(conv2d) bind_conv2d;
TsrTensor* bind_conv2d(TsrTensor* input, TsrTensor* weight, TsrTensor* bias, const tsr_i64* stride, int64_t nstride, const tsr_i64* padding, int64_t npadding, const tsr_i64* dilation, int64_t ndilation, int64_t groups);
%newobject bind_max_pool2d;
%rename(max_pool2d) bind_max_pool2d;
TsrTensor* bind_max_pool2d(TsrTensor* input, const tsr_i64* kernel_size, int64_t nkernel_size, const tsr_i64* stride, int64_t nstride, const tsr_i64* padding, int64_t npadding, const tsr_i64* dilation, int64_t ndilation, bool ceil_mode);
%newobject bind_max_pool2d_with_indices;
%rename(max_pool2d_with_indices) bind_max_pool2d_with_indices;
TsrTensorList* bind_max_pool2d_with_indices(TsrTensor* input, const tsr_i64* kernel_size, int64_t nkernel_size, const tsr_i64* stride, int64_t nstride, const tsr_i64* padding, int64_t npadding, const tsr_i64* dilation, int64_t ndilation, bool ceil_mode);
%newobject bind_avg_pool2d;
%rename(avg_pool2d) bind_avg_pool2d;
TsrTensor* bind_avg_pool2d(TsrTensor* input, const tsr_i64* kernel_size, int64_t nkernel_size, const tsr_i64* stride, int64_t nstride, const tsr_i64* padding, int64_t npadding, bool ceil_mode, bool count_include_pad);
%newobject bind_adaptive_avg_pool2d;
%rename(adaptive_avg_pool2d) bind_adaptive_avg_pool2d;
TsrTensor* bind_adaptive_avg_pool2d(TsrTensor* input, const tsr_i64* output_size, int64_t noutput_size);
%newobject bind_batch_norm;
%rename(batch_norm) bind_batch_norm;
TsrTensor* bind_batch_norm(TsrTensor* input, TsrTensor* running_mean, TsrTensor* running_var, TsrTensor* weight, TsrTensor* bias, bool training, double momentum, double eps);
%newobject bind_cat;
%rename(cat) bind_cat;
TsrTensor* bind_cat(TsrTensorList* tensors, int64_t dim);
%newobject bind_stack;
%rename(stack) bind_stack;
TsrTensor* bind_stack(TsrTensorList* tensors, int64_t dim);
%newobject bind_where;
%rename(where) bind_where;
TsrTensor* bind_where(TsrTensor* condition, TsrTensor* input, TsrTensor* other);
%newobject bind_embedding;
%rename(embedding) bind_embedding;
TsrTensor* bind_embedding(TsrTensor* input, TsrTensor* weight);
%rename(save) bind_save;
void bind_save(const char* path, TsrTensorList* list, tsr_compression compression TSR_DEFAULT(TSR_COMPRESSION_NONE), int32_t level TSR_DEFAULT(0));
%rename(save_with) bind_save_with;
void bind_save_with(const char* path, TsrTensorList* list, tsr_compression compression, int32_t level, bool skip_checksums, int64_t max_shard_size, bool flatten_views, tsr_progress_fn progress, void* progress_user_data);
%rename(memory_stats) bind_memory_stats;
tsr_memory_stats_t bind_memory_stats(tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU), int32_t device_index TSR_DEFAULT(0));
%rename(memory_allocated) bind_memory_allocated;
int64_t bind_memory_allocated(tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU), int32_t device_index TSR_DEFAULT(0));
%rename(max_memory_allocated) bind_max_memory_allocated;
int64_t bind_max_memory_allocated(tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU), int32_t device_index TSR_DEFAULT(0));
%rename(memory_reserved) bind_memory_reserved;
int64_t bind_memory_reserved(tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU), int32_t device_index TSR_DEFAULT(0));
%rename(max_memory_reserved) bind_max_memory_reserved;
int64_t bind_max_memory_reserved(tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU), int32_t device_index TSR_DEFAULT(0));
%rename(reset_peak_memory_stats) bind_reset_peak_memory_stats;
void bind_reset_peak_memory_stats(tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU), int32_t device_index TSR_DEFAULT(0));
%rename(reset_accumulated_memory_stats) bind_reset_accumulated_memory_stats;
void bind_reset_accumulated_memory_stats(tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU), int32_t device_index TSR_DEFAULT(0));
%rename(empty_cache) bind_empty_cache;
void bind_empty_cache(tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU), int32_t device_index TSR_DEFAULT(0));
%rename(set_memory_limit) bind_set_memory_limit;
void bind_set_memory_limit(int64_t bytes, tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU), int32_t device_index TSR_DEFAULT(0));
%rename(memory_limit) bind_memory_limit;
int64_t bind_memory_limit(tsr_device_type device_type TSR_DEFAULT(TSR_DEVICE_CPU), int32_t device_index TSR_DEFAULT(0));
%rename(version_number) bind_version_number;
int32_t bind_version_number(void);
%rename(set_num_threads) bind_set_num_threads;
void bind_set_num_threads(int64_t n);
%rename(get_num_threads) bind_get_num_threads;
int64_t bind_get_num_threads(void);
%rename(version_string) bind_version_string;
const char* bind_version_string(void);
%rename(status_name) bind_status_name;
const char* bind_status_name(tsr_status status);
%rename(dtype_name) bind_dtype_name;
const char* bind_dtype_name(tsr_dtype dtype);
%rename(checkpoint_begin) bind_checkpoint_begin;
void bind_checkpoint_begin(bool preserve_rng_state, bool determinism_check, bool early_stop, const char* keep_ops);
%rename(checkpoint_end) bind_checkpoint_end;
void bind_checkpoint_end(void);
%rename(checkpoint_depth) bind_checkpoint_depth;
int64_t bind_checkpoint_depth(void);
%newobject bind_autograd_grad;
%rename(autograd_grad) bind_autograd_grad;
TsrTensorList* bind_autograd_grad(TsrTensorList* outputs, TsrTensorList* inputs, TsrTensorList* grad_outputs, bool retain_graph, bool create_graph, bool allow_unused);

/* ---- 5. optimizers, initializers, profiler (bindings/optim.i) ------------- */
%include "optim.i"

/* ---- 6. the ops a ported training script needs, one file per area -------- */
%include "pointwise.i"
%include "linalg.i"
%include "reductions.i"
%include "sorting.i"
%include "shape_ops.i"
%include "indexing.i"
%include "loss.i"
%include "attention.i"
%include "clip_grad.i"
%include "lr_scheduler.i"
%include "grad_scaler.i"
%include "device.i"
%include "function.i"
%include "autocast.i"
%include "distributed.i"
%include "ddp.i"
%include "autograd_graph.i"
