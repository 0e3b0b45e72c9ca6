// Reads t as statistics.h's [rows, n] rows; each row stops at its first
// deciding element.
#include "cpu/kernels/any_all.h"

#include <cstdint>

#include "cpu/kernels/empty_cpu.h"
#include "cpu/kernels/parallel_for.h"
#include "cpu/kernels/reduce.h"
#include "cpu/kernels/statistics.h"

namespace tsr::kernels {

Tensor any_all(const Tensor& t, const std::vector<bool>& mask, bool keepdim, bool is_all) {
  const tsr_dtype result = t.dtype() == TSR_UINT8 ? TSR_UINT8 : TSR_BOOL;
  const Rows r = rows_of(t, mask);
  Tensor out = empty_cpu(reduced_sizes(t.sizes(), mask, keepdim), result);
  const double* x = r.dense.data<const double>();
  auto* o = static_cast<uint8_t*>(out.data_ptr());  // bool and uint8 are both one byte 0/1
  const int64_t n = r.n;
  parallel_for(r.rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const double* row = x + i * n;
      bool v = is_all;
      for (int64_t k = 0; k < n; ++k)
        if ((row[k] != 0) != is_all) {
          v = !is_all;
          break;
        }
      o[i] = v ? 1 : 0;
    }
  });
  return out;
}

}  // namespace tsr::kernels
