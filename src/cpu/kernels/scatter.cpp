#include "cpu/kernels/scatter.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "core/views.h"
#include "cpu/kernels/elementwise.h"
#include "cpu/kernels/index_walk.h"
#include "cpu/kernels/map.h"

namespace tsr::kernels {

// ---- checks ------------------------------------------------------------------

void check_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src, const char* op) {
  TSR_CHECK(index.dtype() == TSR_INT64, TSR_ERR_DTYPE_MISMATCH, op, "(): Expected dtype int64 for index");
  if (src)
    TSR_CHECK(src->dtype() == self.dtype(), TSR_ERR_DTYPE_MISMATCH, op,
              "(): Expected self.dtype to be equal to src.dtype");
  dim = wrap_dim(dim, self.ndim());
  if (index.numel() == 0) return;
  const int64_t nd = std::max<int64_t>(self.ndim(), 1);
  TSR_CHECK(std::max<int64_t>(index.ndim(), 1) == nd, TSR_ERR_SHAPE_MISMATCH,
            "Index tensor must have the same number of dimensions as self tensor");
  if (src)
    TSR_CHECK(std::max<int64_t>(src->ndim(), 1) == nd, TSR_ERR_SHAPE_MISMATCH,
              "Index tensor must have the same number of dimensions as src tensor");
  auto size = [](const Tensor& t, int64_t d) { return t.ndim() ? t.sizes()[size_t(d)] : 1; };
  bool smaller_than_self = true, smaller_than_src = true;
  for (int64_t d = 0; d < nd; ++d) {
    if (d != dim && size(index, d) > size(self, d)) smaller_than_self = false;
    if (src && size(index, d) > size(*src, d)) smaller_than_src = false;
  }
  if (src)
    TSR_CHECK(smaller_than_self && smaller_than_src, TSR_ERR_SHAPE_MISMATCH, "Expected index ", index.sizes(),
              " to be smaller than self ", self.sizes(), " apart from dimension ", dim,
              " and to be smaller size than src ", src->sizes());
  else
    TSR_CHECK(smaller_than_self, TSR_ERR_SHAPE_MISMATCH, "Expected index ", index.sizes(),
              " to be smaller than self ", self.sizes(), " apart from dimension ", dim);
}

// ---- scatter -------------------------------------------------------------------

namespace {

// The reductions in T's own arithmetic: integers wrap (through unsigned,
// as torch's two's-complement results), bool is logical, the 16-bit
// floats compute in float; amax/amin propagate NaN.
template <typename T>
struct Reduce {
  using C = compute_t<T>;
  static T sum(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else if constexpr (std::is_integral_v<T>) return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
    else return T(C(a) + C(b));
  }
  static T prod(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else if constexpr (std::is_integral_v<T>) return T(std::make_unsigned_t<T>(a) * std::make_unsigned_t<T>(b));
    else return T(C(a) * C(b));
  }
  static bool is_nan(T a) {
    if constexpr (std::is_integral_v<T>) return false;
    else return std::isnan(C(a));
  }
  static T max(T a, T b) { return is_nan(b) || (!is_nan(a) && C(b) > C(a)) ? b : a; }
  static T min(T a, T b) { return is_nan(b) || (!is_nan(a) && C(b) < C(a)) ? b : a; }
  // What a position scattered to starts from when self is left out.
  static T identity(ScatterReduce r) {
    switch (r) {
      case ScatterReduce::Prod: return T(1);
      case ScatterReduce::Amax:
        if constexpr (std::is_integral_v<T>) return std::numeric_limits<T>::lowest();
        else return T(-std::numeric_limits<float>::infinity());
      case ScatterReduce::Amin:
        if constexpr (std::is_integral_v<T>) return std::numeric_limits<T>::max();
        else return T(std::numeric_limits<float>::infinity());
      default: return T(0);
    }
  }
  static T apply(ScatterReduce r, T a, T b) {
    switch (r) {
      case ScatterReduce::Assign: return b;
      case ScatterReduce::Sum:
      case ScatterReduce::Mean: return sum(a, b);
      case ScatterReduce::Prod: return prod(a, b);
      case ScatterReduce::Amax: return max(a, b);
      case ScatterReduce::Amin: return min(a, b);
    }
    return b;
  }
  // mean's division: floor for integers (torch's div_(count, "floor")).
  static T divide(T a, int64_t n) {
    if constexpr (std::is_same_v<T, bool>) return a;
    else if constexpr (std::is_integral_v<T>) {
      const int64_t q = int64_t(a) / n, r = int64_t(a) % n;
      return T((r != 0 && ((r < 0) != (n < 0))) ? q - 1 : q);
    } else {
      return T(C(a) / C(n));
    }
  }
};

}  // namespace

void scatter_into(const Tensor& self, int64_t dim0, const Tensor& index, const Tensor& src, ScatterReduce r,
                  bool include_self) {
  const int64_t dim = wrap_dim(dim0, self.ndim());
  check_gather_indices(index, dim, size_or_one(self, dim));
  if (index.numel() == 0) return;
  const size_t nd = size_t(std::max<int64_t>(index.ndim(), 1));
  const Shape isizes = index.ndim() ? index.sizes() : Shape{1};
  const int64_t sdim = self.ndim() ? self.strides()[size_t(dim)] : 0;
  // mean counts the values each position receives, in a contiguous
  // buffer of self's shape.
  const Shape ssizes = self.ndim() ? self.sizes() : Shape{1};
  std::vector<int64_t> count;
  Shape cstrides = contiguous_strides(ssizes);
  const int64_t cdim = cstrides[size_t(dim)];
  cstrides[size_t(dim)] = 0;
  if (r == ScatterReduce::Mean) count.assign(size_t(self.numel()), include_self ? 1 : 0);
  const Tensor idx = contiguous_as(index, TSR_INT64);
  const int64_t* ip = idx.data<int64_t>();
  const std::array<Shape, 4> strides{strides_for(self, nd, dim), contiguous_strides(isizes), strides_for(src, nd),
                                     cstrides};
  dispatch_all(self.dtype(), [&]<typename T>() {
    using R = Reduce<T>;
    T* sp = self.data<T>();
    const T* vp = src.data<T>();
    // One dim (a histogram's scatter_add_): a plain loop, no walk.
    if (nd == 1 && ((r == ScatterReduce::Sum && include_self) || r == ScatterReduce::Assign)) {
      const int64_t vs = src.ndim() ? src.strides()[0] : 0, count = isizes[0];
      if (r == ScatterReduce::Sum)
        for (int64_t i = 0; i < count; ++i) {
          T& dst = sp[ip[i] * sdim];
          dst = R::sum(dst, vp[i * vs]);
        }
      else
        for (int64_t i = 0; i < count; ++i) sp[ip[i] * sdim] = vp[i * vs];
      return;
    }
    if (!include_self && r != ScatterReduce::Assign)
      walk<4>(isizes, strides, [&](const std::array<int64_t, 4>& o) {
        sp[o[0] + ip[o[1]] * sdim] = R::identity(r);
      });
    walk<4>(isizes, strides, [&](const std::array<int64_t, 4>& o) {
      T& dst = sp[o[0] + ip[o[1]] * sdim];
      dst = R::apply(r, dst, vp[o[2]]);
      if (r == ScatterReduce::Mean) ++count[size_t(o[3] + ip[o[1]] * cdim)];
    });
    if (r == ScatterReduce::Mean)
      walk<2>(ssizes, {strides_for(self, nd), contiguous_strides(ssizes)}, [&](const std::array<int64_t, 2>& o) {
        const int64_t n = count[size_t(o[1])];
        if (n > 1) sp[o[0]] = R::divide(sp[o[0]], n);
      });
  });
}

// ---- index_add_ / index_copy_ / index_fill_ -----------------------------------

int64_t check_index_update(const Tensor& self, int64_t dim0, const Tensor& index, const Tensor& source,
                           const char* op) {
  const int64_t dim = wrap_dim(dim0, self.ndim());
  TSR_CHECK(index.ndim() <= 1, TSR_ERR_INDEX_OUT_OF_RANGE, op, "(): Index is supposed to be a vector, but got dim: ",
            index.ndim(), " with type: ", scalar_type_name(index.dtype()), " and size: ", index.sizes());
  const int64_t n = index.numel();
  const int64_t along = source.ndim() ? source.sizes()[size_t(dim)] : 1;
  TSR_CHECK(self.ndim() == 0 || source.ndim() == 0 || self.ndim() == source.ndim(), TSR_ERR_SHAPE_MISMATCH, op,
            "(): When source and destination are not scalars, their dimensionality must match. Source "
            "dimensionality (", source.ndim(), "), destination dimensionality (", self.ndim(), ")");
  TSR_CHECK(n == along, TSR_ERR_INDEX_OUT_OF_RANGE, op, "(): Number of indices (", n,
            ") should be equal to source.size(dim) (", along, ")");
  for (int64_t d = 0; d < std::min(self.ndim(), source.ndim()); ++d)
    if (d != dim)
      TSR_CHECK(self.sizes()[size_t(d)] == source.sizes()[size_t(d)], TSR_ERR_SHAPE_MISMATCH, "The size of tensor a (",
                self.sizes()[size_t(d)], ") must match the size of tensor b (", source.sizes()[size_t(d)],
                ") at non-singleton dimension ", d);
  // A 0-dim self or source stands for one element per index: the other's
  // slices must hold one element too.
  auto slice_numel = [&](const Tensor& t) { return t.ndim() ? t.numel() / std::max<int64_t>(t.sizes()[size_t(dim)], 1) : 1; };
  if (n > 0 && (self.ndim() == 0 || source.ndim() == 0))
    TSR_CHECK(slice_numel(self) == 1 && slice_numel(source) == 1, TSR_ERR_SHAPE_MISMATCH, op,
              "(): a 0-dim self or source needs one element per index (self ", self.sizes(), ", source ",
              source.sizes(), ")");
  return dim;
}

std::vector<int64_t> checked_indices(const Tensor& index, int64_t dim, int64_t size, const char* op, bool bare) {
  std::vector<int64_t> idx = index_values(index);
  for (int64_t i : idx) {
    if (bare)  // index_add_'s message, torch's, names nothing
      TSR_CHECK(i >= 0 && i < size, TSR_ERR_INDEX_OUT_OF_RANGE, "index out of range in self: ", op, "(): index ", i,
                " is out of bounds for dimension ", dim, " with size ", size);
    else
      TSR_CHECK(i >= 0 && i < size, TSR_ERR_INDEX_OUT_OF_RANGE, op, "(): index ", i,
                " is out of bounds for dimension ", dim, " with size ", size);
  }
  return idx;
}

void check_index_add_args(const Tensor& self, const Tensor& index, const Tensor& source) {
  TSR_CHECK(index.dtype() == TSR_INT64 || index.dtype() == TSR_INT32, TSR_ERR_DTYPE_MISMATCH,
            "index_add_(): Expected dtype int32/int64 for index but got: ", scalar_type_name(index.dtype()));
  TSR_CHECK(self.dtype() == source.dtype(), TSR_ERR_DTYPE_MISMATCH, "index_add_(): self (",
            scalar_type_name(self.dtype()), ") and source (", scalar_type_name(source.dtype()),
            ") must have the same scalar type");
}

void check_index_copy_args(const Tensor& self, const Tensor& index, const Tensor& source) {
  TSR_CHECK(index.dtype() == TSR_INT64, TSR_ERR_DTYPE_MISMATCH,
            "index_copy_(): Expected a long tensor for index, but got ", scalar_type_name(index.dtype()));
  TSR_CHECK(self.dtype() == source.dtype(), TSR_ERR_DTYPE_MISMATCH,
            "index_copy_(): self and source expected to have the same dtype, but got (self) ",
            scalar_type_name(self.dtype()), " and (source) ", scalar_type_name(source.dtype()));
}

int64_t check_index_fill_args(const Tensor& self, int64_t dim0, const Tensor& index) {
  const int64_t dim = wrap_dim(dim0, self.ndim());
  TSR_CHECK(index.dtype() == TSR_INT64, TSR_ERR_DTYPE_MISMATCH,
            "index_fill_(): Expected dtype int64 for index.");
  TSR_CHECK(index.ndim() <= 1, TSR_ERR_INDEX_OUT_OF_RANGE, "index_fill_(): Index is supposed to be a vector");
  return dim;
}

void check_index_fill_value(int64_t i, int64_t dim, int64_t size) {
  TSR_CHECK(i >= -size && i < size, TSR_ERR_INDEX_OUT_OF_RANGE, "index ", i, " is out of bounds for dimension ",
            dim, " with size ", size);
}

namespace {

Tensor slice_at(const Tensor& t, int64_t dim, int64_t i) { return t.ndim() ? views::select(t, dim, i) : t; }

}  // namespace

void index_add_into(const Tensor& self, int64_t dim0, const Tensor& index, const Tensor& source, double alpha) {
  check_index_add_args(self, index, source);
  const int64_t dim = check_index_update(self, dim0, index, source, "index_add_");
  const std::vector<int64_t> idx = checked_indices(index, dim, size_or_one(self, dim), "index_add_", true);
  for (size_t i = 0; i < idx.size(); ++i)
    add_into(slice_at(self, dim, idx[i]), slice_at(source, dim, int64_t(i)), alpha);
}

void index_copy_into(const Tensor& self, int64_t dim0, const Tensor& index, const Tensor& source) {
  check_index_copy_args(self, index, source);
  const int64_t dim = check_index_update(self, dim0, index, source, "index_copy_");
  const std::vector<int64_t> idx = checked_indices(index, dim, size_or_one(self, dim), "index_copy_", false);
  for (size_t i = 0; i < idx.size(); ++i) copy_strided(slice_at(self, dim, idx[i]), slice_at(source, dim, int64_t(i)));
}

void index_fill_into(const Tensor& self, int64_t dim0, const Tensor& index, double value) {
  const int64_t dim = check_index_fill_args(self, dim0, index);
  const int64_t size = size_or_one(self, dim);
  std::vector<int64_t> idx = index_values(index);
  for (int64_t& i : idx) {
    check_index_fill_value(i, dim, size);
    if (i < 0) i += size;
  }
  for (int64_t i : idx) fill(slice_at(self, dim, i), value);
}

}  // namespace tsr::kernels
