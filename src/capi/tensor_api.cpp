// C API: handle lifetime, queries, factories, element access (tensor.h).
#include <cmath>
#include <cstring>

#include <tessera/tensor.h>

#include "capi/barrier.h"
#include "capi/handles.h"
#include "core/factory.h"
#include "core/layout.h"
#include "device/any_device.h"
#include "device/transfer.h"
#include "cpu/kernels/copy.h"
#include "ops/inplace.h"

using namespace tsr;
using namespace tsr::capi;

TSR_EXTERN void tsr_tensor_retain(tsr_tensor* t) { retain(t); }
TSR_EXTERN void tsr_tensor_release(tsr_tensor* t) { release(t); }
TSR_EXTERN void tsr_storage_retain(tsr_storage* s) { retain(s); }
TSR_EXTERN void tsr_storage_release(tsr_storage* s) { release(s); }

// ---- queries ---------------------------------------------------------------

namespace {
template <typename R, typename Fn>
R query(const tsr_tensor* t, R fallback, Fn&& fn) {
  return guarded_value<R>(fallback, [&]() -> R { return fn(tensor_of(t)); });
}
// A non-NULL pointer for the sizes/strides of 0-dim tensors.
const int64_t kNoDims[1] = {0};
const int64_t* shape_ptr(const Shape& s) { return s.empty() ? kNoDims : s.data(); }
}  // namespace

TSR_EXTERN int64_t tsr_tensor_ndim(const tsr_tensor* t) {
  return query<int64_t>(t, -1, [](const Tensor& x) { return x.ndim(); });
}
TSR_EXTERN const int64_t* tsr_tensor_sizes(const tsr_tensor* t) {
  return query<const int64_t*>(t, nullptr, [](const Tensor& x) { return shape_ptr(x.sizes()); });
}
TSR_EXTERN const int64_t* tsr_tensor_strides(const tsr_tensor* t) {
  return query<const int64_t*>(t, nullptr, [](const Tensor& x) { return shape_ptr(x.strides()); });
}
TSR_EXTERN tsr_status tsr_tensor_size(const tsr_tensor* t, int64_t dim, int64_t* out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    TSR_CHECK(x.ndim() > 0, TSR_ERR_INVALID_ARGUMENT, "size(): a 0-dim tensor has no dims");
    *out = x.size(dim);
  });
}
TSR_EXTERN tsr_status tsr_tensor_stride(const tsr_tensor* t, int64_t dim, int64_t* out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    TSR_CHECK(x.ndim() > 0, TSR_ERR_INVALID_ARGUMENT, "stride(): a 0-dim tensor has no dims");
    *out = x.stride(dim);
  });
}
TSR_EXTERN int64_t tsr_tensor_storage_offset(const tsr_tensor* t) {
  return query<int64_t>(t, -1, [](const Tensor& x) { return x.storage_offset(); });
}
TSR_EXTERN int64_t tsr_tensor_numel(const tsr_tensor* t) {
  return query<int64_t>(t, -1, [](const Tensor& x) { return x.numel(); });
}
TSR_EXTERN int64_t tsr_tensor_element_size(const tsr_tensor* t) {
  return query<int64_t>(t, -1, [](const Tensor& x) { return x.element_size(); });
}
TSR_EXTERN int64_t tsr_tensor_nbytes(const tsr_tensor* t) {
  return query<int64_t>(t, -1, [](const Tensor& x) { return x.nbytes(); });
}
TSR_EXTERN tsr_dtype tsr_tensor_dtype(const tsr_tensor* t) {
  // The -1 sentinels lie outside the enums: they are made from an int in the
  // return expression and never held in an enum-typed object (see enum_arg).
  return static_cast<tsr_dtype>(query<int>(t, -1, [](const Tensor& x) { return int(x.dtype()); }));
}
TSR_EXTERN tsr_device_type tsr_tensor_device_type(const tsr_tensor* t) {
  return static_cast<tsr_device_type>(
      query<int>(t, -1, [](const Tensor& x) { return int(x.device().type); }));
}
TSR_EXTERN int32_t tsr_tensor_device_index(const tsr_tensor* t) {
  return query<int32_t>(t, -1, [](const Tensor& x) { return x.device().index; });
}
TSR_EXTERN void* tsr_tensor_data_ptr(const tsr_tensor* t) {
  return query<void*>(t, nullptr, [](const Tensor& x) { return x.data_ptr(); });
}

TSR_EXTERN tsr_status tsr_tensor_storage(const tsr_tensor* t, tsr_storage** out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    *out = new tsr_storage(x.storage());
  });
}
TSR_EXTERN int64_t tsr_storage_nbytes(const tsr_storage* s) {
  return guarded_value<int64_t>(-1, [&] { return require(s, "storage")->storage->nbytes(); });
}
TSR_EXTERN void* tsr_storage_data_ptr(const tsr_storage* s) {
  return guarded_value<void*>(nullptr, [&] { return require(s, "storage")->storage->data(); });
}
TSR_EXTERN tsr_device_type tsr_storage_device_type(const tsr_storage* s) {
  return static_cast<tsr_device_type>(
      guarded_value<int>(-1, [&] { return int(require(s, "storage")->storage->device().type); }));
}
TSR_EXTERN int64_t tsr_storage_use_count(const tsr_storage* s) {
  return guarded_value<int64_t>(-1, [&] { return require(s, "storage")->storage->use_count(); });
}

// ---- factories -------------------------------------------------------------

TSR_EXTERN tsr_status tsr_empty(int64_t ndim, const int64_t* sizes, tsr_dtype dtype,
                                tsr_memory_format fmt, tsr_device_type device_type,
                                int32_t device_index, tsr_tensor** out) {
  return guarded([&] {
    Shape s = sizes_arg(ndim, sizes);
    require(out, "out");
    check_dtype(enum_arg(dtype));
    check_memory_format(enum_arg(fmt));
    const Device device = checked_device(enum_arg(device_type), device_index);
    emit(out, empty(s, dtype, fmt, device));
  });
}

TSR_EXTERN tsr_status tsr_empty_strided(int64_t ndim, const int64_t* sizes, const int64_t* strides,
                                        tsr_dtype dtype, tsr_device_type device_type,
                                        int32_t device_index, tsr_tensor** out) {
  return guarded([&] {
    Shape s = sizes_arg(ndim, sizes);
    Shape st = strides ? shape_from(ndim, strides, "strides", false) : contiguous_strides(s);
    require(out, "out");
    check_dtype(enum_arg(dtype));
    const Device device = checked_device(enum_arg(device_type), device_index);
    emit(out, empty_strided(s, st, dtype, device));
  });
}

namespace {
// dtype and device_type by reference: they are validated before being read
// as enums (enum_arg).
tsr_status filled(int64_t ndim, const int64_t* sizes, double value, const tsr_dtype& dtype,
                  const tsr_device_type& device_type, int32_t device_index, tsr_tensor** out) {
  return guarded([&] {
    Shape s = sizes_arg(ndim, sizes);
    require(out, "out");
    check_dtype(enum_arg(dtype));
    const Device device = checked_device(enum_arg(device_type), device_index);
    check_scalar_fits(value, dtype);  // torch.full raises on overflow (checked_convert)
    Tensor t = empty(s, dtype, TSR_CONTIGUOUS_FORMAT, device);
    device::fill_any(t, value);
    emit(out, t);
  });
}
}  // namespace

TSR_EXTERN tsr_status tsr_zeros(int64_t ndim, const int64_t* sizes, tsr_dtype dtype,
                                tsr_device_type dt, int32_t di, tsr_tensor** out) {
  return filled(ndim, sizes, 0.0, dtype, dt, di, out);
}
TSR_EXTERN tsr_status tsr_ones(int64_t ndim, const int64_t* sizes, tsr_dtype dtype,
                               tsr_device_type dt, int32_t di, tsr_tensor** out) {
  return filled(ndim, sizes, 1.0, dtype, dt, di, out);
}
TSR_EXTERN tsr_status tsr_full(int64_t ndim, const int64_t* sizes, double value, tsr_dtype dtype,
                               tsr_device_type dt, int32_t di, tsr_tensor** out) {
  return filled(ndim, sizes, value, dtype, dt, di, out);
}

namespace {
// torch.arange's CPU rules (ATen RangeFactories.cpp, 1.13). start, end and
// step are first converted to the dtype's accumulation type with c10's
// overflow check: int64 for every integer dtype (so 0.5 becomes 0 and a step
// of 0.5 becomes 0: "step must be nonzero"), float for float16/bfloat16,
// double for float32/float64. The checks then run on the converted values.
// The length is ceil((end - start) / step) from the original doubles, except
// for int64, where it is computed exactly from the converted integers.
// Element i is start + step * i in the accumulation type.
template <typename Acc>
Acc arange_bound(double v, tsr_dtype dtype) {
  if constexpr (std::is_same_v<Acc, int64_t>) {
    check_scalar_fits(v, TSR_INT64);
    return convert<int64_t>(v);
  } else if constexpr (std::is_same_v<Acc, float>) {
    check_scalar_fits(v, TSR_FLOAT32);
    return float(v);
  } else {
    return v;
  }
}

template <typename T>
Tensor arange_typed(double start, double end, double step, tsr_dtype dtype, Device device) {
  using Acc = std::conditional_t<std::is_integral_v<T>, int64_t,
                                 std::conditional_t<std::is_same_v<T, double> ||
                                                        std::is_same_v<T, float>,
                                                    double, float>>;
  Acc xstart = arange_bound<Acc>(start, dtype), xend = arange_bound<Acc>(end, dtype),
      xstep = arange_bound<Acc>(step, dtype);
  TSR_CHECK(xstep > 0 || xstep < 0, TSR_ERR_INVALID_ARGUMENT, "step must be nonzero");
  TSR_CHECK(std::isfinite(double(xstart)) && std::isfinite(double(xend)),
            TSR_ERR_INVALID_ARGUMENT, "unsupported range: ", xstart, " -> ", xend);
  TSR_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart),
            TSR_ERR_INVALID_ARGUMENT, "upper bound and larger bound inconsistent with step sign");
  int64_t len;
  if constexpr (std::is_same_v<T, int64_t>) {
    int64_t sgn = xstep > 0 ? 1 : -1, num;
    bool overflow = __builtin_sub_overflow(xend, xstart, &num) ||
                    __builtin_add_overflow(num, xstep - sgn, &num);
    TSR_CHECK(!overflow, TSR_ERR_INVALID_ARGUMENT, "invalid size, possible overflow?");
    len = num / xstep;
  } else {
    double size_d = std::ceil((end - start) / step);
    TSR_CHECK(size_d >= 0 && size_d <= 9.2233720368547748e18, TSR_ERR_INVALID_ARGUMENT,
              "invalid size, possible overflow?");
    len = int64_t(size_d);
  }
  Tensor t = empty({len}, dtype, TSR_CONTIGUOUS_FORMAT, device);
  T* p = t.data<T>();
  for (int64_t i = 0; i < len; ++i) {
    if constexpr (std::is_integral_v<T>)  // int64 arithmetic wraps like ATen's
      p[i] = T(uint64_t(xstart) + uint64_t(xstep) * uint64_t(i));
    else
      p[i] = convert<T>(xstart + xstep * Acc(i));
  }
  return t;
}
}  // namespace

TSR_EXTERN tsr_status tsr_arange(double start, double end, double step, tsr_dtype dtype,
                                 tsr_device_type dt, int32_t di, tsr_tensor** out) {
  return guarded([&] {
    require(out, "out");
    check_dtype(enum_arg(dtype));
    const Device device = checked_device(enum_arg(dt), di);
    TSR_CHECK(dtype != TSR_BOOL, TSR_ERR_DTYPE_MISMATCH,
              "\"arange_cpu\" not implemented for 'Bool'");
    emit(out, dispatch_all(dtype, [&]<typename T>() -> Tensor {
      if constexpr (std::is_same_v<T, bool>) fail(TSR_ERR_DTYPE_MISMATCH, "arange: bool");
      // Computed by the host, then copied to a device (one transfer).
      else return device::to_device(arange_typed<T>(start, end, step, dtype, kCpu), device, false);
    }));
  });
}

TSR_EXTERN tsr_status tsr_from_data(const void* data, size_t nbytes, int64_t ndim,
                                    const int64_t* sizes, tsr_dtype dtype, tsr_tensor** out) {
  return guarded([&] {
    Shape s = sizes_arg(ndim, sizes);
    require(out, "out");
    check_dtype(enum_arg(dtype));
    int64_t need = checked_mul(checked_numel(s), element_size(dtype), "bytes");
    TSR_CHECK(uint64_t(need) == nbytes, TSR_ERR_SHAPE_MISMATCH, "from_data: sizes ", s, " of ",
              dtype_name(dtype), " need ", need, " bytes, got ", nbytes);
    TSR_CHECK(data || nbytes == 0, TSR_ERR_INVALID_ARGUMENT, "data is NULL");
    Tensor t = empty(s, dtype, TSR_CONTIGUOUS_FORMAT, kCpu);
    if (nbytes) std::memcpy(t.data_ptr(), data, nbytes);
    emit(out, t);
  });
}

TSR_EXTERN tsr_status tsr_from_blob(void* data, int64_t ndim, const int64_t* sizes,
                                    const int64_t* strides, tsr_dtype dtype,
                                    tsr_device_type device_type, tsr_deleter deleter, void* ctx,
                                    tsr_tensor** out) {
  // The deleter runs exactly once on every path: before the hand-over this
  // function runs it on failure; after it, the Storage owns the memory and its
  // destructor runs it (also when from_blob or emit throws).
  bool handed_over = false;
  tsr_status st = guarded([&] {
    Shape s = sizes_arg(ndim, sizes);
    Shape st_shape;
    if (strides) st_shape = shape_from(ndim, strides, "strides", false);
    require(out, "out");
    check_dtype(enum_arg(dtype));
    const Device device = checked_device(enum_arg(device_type), 0);
    handed_over = true;
    emit(out, from_blob(data, s, strides ? &st_shape : nullptr, dtype, device, deleter, ctx));
  });
  if (!handed_over && deleter) deleter(data, ctx);
  return st;
}

// ---- element access --------------------------------------------------------

namespace {
void float_to_int_check(double v) {
  TSR_CHECK(std::isfinite(v), TSR_ERR_INVALID_ARGUMENT, "cannot convert ", v, " to int64");
}

// Offset in elements from t's first element to t[index...], after bounds
// checks. A tensor with no elements fails on its size-0 dim, with torch's
// message ("index 0 is out of bounds for dimension 0 with size 0").
int64_t element_offset(const Tensor& t, int64_t n, const int64_t* index) {
  TSR_CHECK(n == t.ndim(), TSR_ERR_INVALID_ARGUMENT, "expected ", t.ndim(), " indices, got ", n);
  TSR_CHECK(n == 0 || index, TSR_ERR_INVALID_ARGUMENT, "index is NULL");
  int64_t off = 0;
  for (int64_t d = 0; d < n; ++d) {
    int64_t i = index[d], size = t.sizes()[d];
    TSR_CHECK(i >= -size && i < size, TSR_ERR_INDEX_OUT_OF_RANGE, "index ", i,
              " is out of bounds for dimension ", d, " with size ", size);
    off += (i < 0 ? i + size : i) * t.strides()[d];
  }
  return off;
}

// t[index] as a 0-dim view (read through device::readable_on_host, so a
// device tensor's element is copied to the host, never dereferenced).
Tensor element(const Tensor& t, int64_t n, const int64_t* index) {
  return make_view(t, {}, {}, t.storage_offset() + element_offset(t, n, index));
}

// Checks that t[index] = v may be written and returns the element as a
// 0-dim view. One element never overlaps itself, so torch allows the write
// through an expanded tensor (b.expand(2, 3)[0, 0] = 1 writes b[0]); only
// the autograd rule of ops::check_unrecorded_write applies (such writes
// record no history). It is checked on a one-element view that carries t's
// autograd state, so the messages are the ops layer's.
Tensor writable_element(const Tensor& t, int64_t n, const int64_t* index, const char* op) {
  Tensor elem = element(t, n, index);
  elem.impl()->autograd = t.impl()->autograd;
  ops::check_unrecorded_write(elem, op);
  return elem;
}

template <typename V>
V read_as(const Tensor& t, const char* p) {
  return dispatch_storage(t.dtype(), [&]<typename T>() -> V {
    T v;
    std::memcpy(&v, p, sizeof(T));
    if constexpr (std::is_same_v<V, int64_t> && !std::is_integral_v<T>) {
      float_to_int_check(double(compute_t<T>(v)));
    }
    return convert<V>(v);
  });
}

template <typename V>
void write_as(const Tensor& t, char* p, V value) {
  dispatch_storage(t.dtype(), [&]<typename T>() {
    T v = convert<T>(value);
    std::memcpy(p, &v, sizeof(T));
  });
}

// t[index] = value (torch's __setitem__ with a scalar): converted on the
// host with write_as; on a device the converted element is copied over
// (one element, synchronously), never written through a device address.
template <typename V>
void set_element(const Tensor& t, int64_t n, const int64_t* index, V value, const char* op) {
  const Tensor elem = writable_element(t, n, index, op);
  check_scalar_fits(value, t.dtype());  // t[i] = v raises on overflow, as in torch
  if (device::is_host(t.device())) {
    write_as<V>(t, static_cast<char*>(elem.data_ptr()), value);
  } else {
    const Tensor h = empty({}, t.dtype(), TSR_CONTIGUOUS_FORMAT, kCpu);
    write_as<V>(t, static_cast<char*>(h.data_ptr()), value);
    device::copy_between(elem, h, false);
  }
  t.bump_version();
}

void check_one_element(const Tensor& t) {
  TSR_CHECK(t.numel() == 1, TSR_ERR_SHAPE_MISMATCH, "a Tensor with ", t.numel(),
            " elements cannot be converted to Scalar");
}
}  // namespace

TSR_EXTERN tsr_status tsr_item_double(const tsr_tensor* t, double* out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    check_one_element(x);
    const Tensor h = device::readable_on_host(x);
    *out = read_as<double>(h, static_cast<const char*>(h.data_ptr()));
  });
}
TSR_EXTERN tsr_status tsr_item_int64(const tsr_tensor* t, int64_t* out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    check_one_element(x);
    const Tensor h = device::readable_on_host(x);
    *out = read_as<int64_t>(h, static_cast<const char*>(h.data_ptr()));
  });
}
TSR_EXTERN tsr_status tsr_get_double(const tsr_tensor* t, int64_t n, const int64_t* index,
                                     double* out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    const Tensor h = device::readable_on_host(element(x, n, index));
    *out = read_as<double>(h, static_cast<const char*>(h.data_ptr()));
  });
}
TSR_EXTERN tsr_status tsr_get_int64(const tsr_tensor* t, int64_t n, const int64_t* index,
                                    int64_t* out) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(out, "out");
    const Tensor h = device::readable_on_host(element(x, n, index));
    *out = read_as<int64_t>(h, static_cast<const char*>(h.data_ptr()));
  });
}
TSR_EXTERN tsr_status tsr_set_double(tsr_tensor* t, int64_t n, const int64_t* index, double v) {
  return guarded([&] { set_element(tensor_of(t), n, index, v, "set_double"); });
}
TSR_EXTERN tsr_status tsr_set_int64(tsr_tensor* t, int64_t n, const int64_t* index, int64_t v) {
  return guarded([&] { set_element(tensor_of(t), n, index, v, "set_int64"); });
}

TSR_EXTERN tsr_status tsr_copy_to_buffer(const tsr_tensor* t, void* dst, size_t capacity,
                                         size_t* needed) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    size_t need = size_t(x.nbytes());
    if (needed) *needed = need;
    TSR_CHECK(capacity >= need, TSR_ERR_INVALID_ARGUMENT, "copy_to_buffer: buffer holds ", capacity,
              " bytes, the tensor needs ", need);
    if (need == 0) return;
    require(dst, "dst");
    Tensor view = from_blob(dst, x.sizes(), nullptr, x.dtype(), kCpu, nullptr, nullptr);
    device::copy_between(view, x, false);  // a device tensor: copied through its backend
  });
}
