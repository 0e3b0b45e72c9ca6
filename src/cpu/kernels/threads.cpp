#include "cpu/kernels/threads.h"

#include <cblas.h>

#include "core/error.h"

namespace tsr::kernels {

void set_num_threads(int64_t n) {
  TSR_CHECK(n >= 1, TSR_ERR_INVALID_ARGUMENT, "set_num_threads expects a positive integer, got ", n);
  TSR_CHECK(n <= 1024, TSR_ERR_INVALID_ARGUMENT, "set_num_threads: ", n, " threads is more than 1024");
  openblas_set_num_threads(int(n));
}

int64_t num_threads() { return openblas_get_num_threads(); }

}  // namespace tsr::kernels
