#include "cpu/kernels/minmax.h"

#include <type_traits>

#include "core/dtype.h"
#include "core/error.h"
#include "core/shape.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/reduce.h"

namespace tsr::kernels {

Tensor order_reversed(const Tensor& t) {
  Tensor r = contiguous_copy(t, t.dtype());
  dispatch_all(t.dtype(), [&]<typename T>() {
    T* p = r.data<T>();
    const int64_t n = r.numel();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, bool>) p[i] = !p[i];
      else if constexpr (std::is_integral_v<T>) p[i] = T(~p[i]);
      else if constexpr (std::is_floating_point_v<T>) p[i] = -p[i];
      else p[i] = T(-static_cast<float>(p[i]));  // float16/bfloat16: exact
    }
  });
  return r;
}

void check_min_dim(const Tensor& t, int64_t* dim, const char* op) {
  const int64_t n = t.ndim();
  *dim = wrap_dim(*dim, n);
  TSR_CHECK(n == 0 || t.sizes()[*dim] > 0, TSR_ERR_SHAPE_MISMATCH, op, "(): Expected reduction dim ", *dim,
            " to have non-zero size.");
}

std::pair<Tensor, Tensor> min_dim(const Tensor& t, int64_t dim, bool keepdim) {
  check_min_dim(t, &dim, "min");
  auto [values, indices] = max_dim(order_reversed(t), dim, keepdim);
  return {order_reversed(values), indices};
}

Tensor min_all(const Tensor& t) {
  TSR_CHECK(t.numel() > 0, TSR_ERR_SHAPE_MISMATCH,
            "min(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
            "with the 'dim' argument.");
  Tensor r = order_reversed(t);  // contiguous: one flat row in C order
  Tensor flat = make_view(r, {t.numel()}, {1}, r.storage_offset());
  return order_reversed(max_dim(flat, 0, false).first);
}

}  // namespace tsr::kernels
