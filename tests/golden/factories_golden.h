/* GENERATED FILE - do not edit.
 * Produced by tests/golden/gen_factories.py with PyTorch 1.13.0a0
 * (/usr/bin/python3). Factories, scalar conversion rules, element sizes.
 * Regenerate: /usr/bin/python3 tests/golden/gen_factories.py */

#ifndef TSR_TESTS_GOLDEN_FACTORIES_GOLDEN_H
#define TSR_TESTS_GOLDEN_FACTORIES_GOLDEN_H

#include <math.h>
#include <stdint.h>

#include <tessera/types.h>

/* torch.arange(start, end, step, dtype=dtype) */
typedef struct {
  double start, end, step;
  tsr_dtype dtype;
  int error;
  int64_t length;
  double values[64];
} tsr_gf_arange;
static const tsr_gf_arange tsr_gf_aranges[] = {
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {0.0, 10.0, 1.0, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {0.0, 10.0, 3.0, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {10.0, 0.0, -3.0, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {-5.0, 5.0, 2.0, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {0.0, 1.0, 0.1, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {1.0, 0.0, -0.1, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {0.5, 5.0, 1.5, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {-2.5, 2.5, 0.5, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {5.0, 5.0, 1.0, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {0.0, 0.0, -1.0, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {2.7, -3.2, -1.3, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {0.0, 5.0, 0.5, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {0.0, 10.0, 0.0, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {5.0, 0.0, 1.0, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {0.0, INFINITY, 1.0, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {0.0, 1e+30, 1e+29, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {-1e+300, 0.0, 1e+299, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {0.0, NAN, 1.0, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {1.0, 2.0, 0.3, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {0.0, 3.0, 0.3333333333333333, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {-3.0, 3.0, 0.25, TSR_BOOL, 1, 0, {0}},
  /* torch: "arange_cpu" not implemented for 'Bool' */
  {100.0, 0.0, -7.5, TSR_BOOL, 1, 0, {0}},
  {0.0, 10.0, 1.0, TSR_UINT8, 0, 10, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0}},
  {0.0, 10.0, 3.0, TSR_UINT8, 0, 4, {0.0, 3.0, 6.0, 9.0}},
  {10.0, 0.0, -3.0, TSR_UINT8, 0, 4, {10.0, 7.0, 4.0, 1.0}},
  {-5.0, 5.0, 2.0, TSR_UINT8, 0, 5, {251.0, 253.0, 255.0, 1.0, 3.0}},
  /* torch: step must be nonzero */
  {0.0, 1.0, 0.1, TSR_UINT8, 1, 0, {0}},
  /* torch: step must be nonzero */
  {1.0, 0.0, -0.1, TSR_UINT8, 1, 0, {0}},
  {0.5, 5.0, 1.5, TSR_UINT8, 0, 3, {0.0, 1.0, 2.0}},
  /* torch: step must be nonzero */
  {-2.5, 2.5, 0.5, TSR_UINT8, 1, 0, {0}},
  {5.0, 5.0, 1.0, TSR_UINT8, 0, 0, {0}},
  {0.0, 0.0, -1.0, TSR_UINT8, 0, 0, {0}},
  {2.7, -3.2, -1.3, TSR_UINT8, 0, 5, {2.0, 1.0, 0.0, 255.0, 254.0}},
  /* torch: step must be nonzero */
  {0.0, 5.0, 0.5, TSR_UINT8, 1, 0, {0}},
  /* torch: step must be nonzero */
  {0.0, 10.0, 0.0, TSR_UINT8, 1, 0, {0}},
  /* torch: upper bound and larger bound inconsistent with step sign */
  {5.0, 0.0, 1.0, TSR_UINT8, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {0.0, INFINITY, 1.0, TSR_UINT8, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {0.0, 1e+30, 1e+29, TSR_UINT8, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {-1e+300, 0.0, 1e+299, TSR_UINT8, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {0.0, NAN, 1.0, TSR_UINT8, 1, 0, {0}},
  /* torch: step must be nonzero */
  {1.0, 2.0, 0.3, TSR_UINT8, 1, 0, {0}},
  /* torch: step must be nonzero */
  {0.0, 3.0, 0.3333333333333333, TSR_UINT8, 1, 0, {0}},
  /* torch: step must be nonzero */
  {-3.0, 3.0, 0.25, TSR_UINT8, 1, 0, {0}},
  {100.0, 0.0, -7.5, TSR_UINT8, 0, 14, {100.0, 93.0, 86.0, 79.0, 72.0, 65.0, 58.0, 51.0, 44.0, 37.0, 30.0, 23.0, 16.0, 9.0}},
  {0.0, 10.0, 1.0, TSR_INT8, 0, 10, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0}},
  {0.0, 10.0, 3.0, TSR_INT8, 0, 4, {0.0, 3.0, 6.0, 9.0}},
  {10.0, 0.0, -3.0, TSR_INT8, 0, 4, {10.0, 7.0, 4.0, 1.0}},
  {-5.0, 5.0, 2.0, TSR_INT8, 0, 5, {-5.0, -3.0, -1.0, 1.0, 3.0}},
  /* torch: step must be nonzero */
  {0.0, 1.0, 0.1, TSR_INT8, 1, 0, {0}},
  /* torch: step must be nonzero */
  {1.0, 0.0, -0.1, TSR_INT8, 1, 0, {0}},
  {0.5, 5.0, 1.5, TSR_INT8, 0, 3, {0.0, 1.0, 2.0}},
  /* torch: step must be nonzero */
  {-2.5, 2.5, 0.5, TSR_INT8, 1, 0, {0}},
  {5.0, 5.0, 1.0, TSR_INT8, 0, 0, {0}},
  {0.0, 0.0, -1.0, TSR_INT8, 0, 0, {0}},
  {2.7, -3.2, -1.3, TSR_INT8, 0, 5, {2.0, 1.0, 0.0, -1.0, -2.0}},
  /* torch: step must be nonzero */
  {0.0, 5.0, 0.5, TSR_INT8, 1, 0, {0}},
  /* torch: step must be nonzero */
  {0.0, 10.0, 0.0, TSR_INT8, 1, 0, {0}},
  /* torch: upper bound and larger bound inconsistent with step sign */
  {5.0, 0.0, 1.0, TSR_INT8, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {0.0, INFINITY, 1.0, TSR_INT8, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {0.0, 1e+30, 1e+29, TSR_INT8, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {-1e+300, 0.0, 1e+299, TSR_INT8, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {0.0, NAN, 1.0, TSR_INT8, 1, 0, {0}},
  /* torch: step must be nonzero */
  {1.0, 2.0, 0.3, TSR_INT8, 1, 0, {0}},
  /* torch: step must be nonzero */
  {0.0, 3.0, 0.3333333333333333, TSR_INT8, 1, 0, {0}},
  /* torch: step must be nonzero */
  {-3.0, 3.0, 0.25, TSR_INT8, 1, 0, {0}},
  {100.0, 0.0, -7.5, TSR_INT8, 0, 14, {100.0, 93.0, 86.0, 79.0, 72.0, 65.0, 58.0, 51.0, 44.0, 37.0, 30.0, 23.0, 16.0, 9.0}},
  {0.0, 10.0, 1.0, TSR_INT16, 0, 10, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0}},
  {0.0, 10.0, 3.0, TSR_INT16, 0, 4, {0.0, 3.0, 6.0, 9.0}},
  {10.0, 0.0, -3.0, TSR_INT16, 0, 4, {10.0, 7.0, 4.0, 1.0}},
  {-5.0, 5.0, 2.0, TSR_INT16, 0, 5, {-5.0, -3.0, -1.0, 1.0, 3.0}},
  /* torch: step must be nonzero */
  {0.0, 1.0, 0.1, TSR_INT16, 1, 0, {0}},
  /* torch: step must be nonzero */
  {1.0, 0.0, -0.1, TSR_INT16, 1, 0, {0}},
  {0.5, 5.0, 1.5, TSR_INT16, 0, 3, {0.0, 1.0, 2.0}},
  /* torch: step must be nonzero */
  {-2.5, 2.5, 0.5, TSR_INT16, 1, 0, {0}},
  {5.0, 5.0, 1.0, TSR_INT16, 0, 0, {0}},
  {0.0, 0.0, -1.0, TSR_INT16, 0, 0, {0}},
  {2.7, -3.2, -1.3, TSR_INT16, 0, 5, {2.0, 1.0, 0.0, -1.0, -2.0}},
  /* torch: step must be nonzero */
  {0.0, 5.0, 0.5, TSR_INT16, 1, 0, {0}},
  /* torch: step must be nonzero */
  {0.0, 10.0, 0.0, TSR_INT16, 1, 0, {0}},
  /* torch: upper bound and larger bound inconsistent with step sign */
  {5.0, 0.0, 1.0, TSR_INT16, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {0.0, INFINITY, 1.0, TSR_INT16, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {0.0, 1e+30, 1e+29, TSR_INT16, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {-1e+300, 0.0, 1e+299, TSR_INT16, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {0.0, NAN, 1.0, TSR_INT16, 1, 0, {0}},
  /* torch: step must be nonzero */
  {1.0, 2.0, 0.3, TSR_INT16, 1, 0, {0}},
  /* torch: step must be nonzero */
  {0.0, 3.0, 0.3333333333333333, TSR_INT16, 1, 0, {0}},
  /* torch: step must be nonzero */
  {-3.0, 3.0, 0.25, TSR_INT16, 1, 0, {0}},
  {100.0, 0.0, -7.5, TSR_INT16, 0, 14, {100.0, 93.0, 86.0, 79.0, 72.0, 65.0, 58.0, 51.0, 44.0, 37.0, 30.0, 23.0, 16.0, 9.0}},
  {0.0, 10.0, 1.0, TSR_INT32, 0, 10, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0}},
  {0.0, 10.0, 3.0, TSR_INT32, 0, 4, {0.0, 3.0, 6.0, 9.0}},
  {10.0, 0.0, -3.0, TSR_INT32, 0, 4, {10.0, 7.0, 4.0, 1.0}},
  {-5.0, 5.0, 2.0, TSR_INT32, 0, 5, {-5.0, -3.0, -1.0, 1.0, 3.0}},
  /* torch: step must be nonzero */
  {0.0, 1.0, 0.1, TSR_INT32, 1, 0, {0}},
  /* torch: step must be nonzero */
  {1.0, 0.0, -0.1, TSR_INT32, 1, 0, {0}},
  {0.5, 5.0, 1.5, TSR_INT32, 0, 3, {0.0, 1.0, 2.0}},
  /* torch: step must be nonzero */
  {-2.5, 2.5, 0.5, TSR_INT32, 1, 0, {0}},
  {5.0, 5.0, 1.0, TSR_INT32, 0, 0, {0}},
  {0.0, 0.0, -1.0, TSR_INT32, 0, 0, {0}},
  {2.7, -3.2, -1.3, TSR_INT32, 0, 5, {2.0, 1.0, 0.0, -1.0, -2.0}},
  /* torch: step must be nonzero */
  {0.0, 5.0, 0.5, TSR_INT32, 1, 0, {0}},
  /* torch: step must be nonzero */
  {0.0, 10.0, 0.0, TSR_INT32, 1, 0, {0}},
  /* torch: upper bound and larger bound inconsistent with step sign */
  {5.0, 0.0, 1.0, TSR_INT32, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {0.0, INFINITY, 1.0, TSR_INT32, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {0.0, 1e+30, 1e+29, TSR_INT32, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {-1e+300, 0.0, 1e+299, TSR_INT32, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {0.0, NAN, 1.0, TSR_INT32, 1, 0, {0}},
  /* torch: step must be nonzero */
  {1.0, 2.0, 0.3, TSR_INT32, 1, 0, {0}},
  /* torch: step must be nonzero */
  {0.0, 3.0, 0.3333333333333333, TSR_INT32, 1, 0, {0}},
  /* torch: step must be nonzero */
  {-3.0, 3.0, 0.25, TSR_INT32, 1, 0, {0}},
  {100.0, 0.0, -7.5, TSR_INT32, 0, 14, {100.0, 93.0, 86.0, 79.0, 72.0, 65.0, 58.0, 51.0, 44.0, 37.0, 30.0, 23.0, 16.0, 9.0}},
  {0.0, 10.0, 1.0, TSR_INT64, 0, 10, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0}},
  {0.0, 10.0, 3.0, TSR_INT64, 0, 4, {0.0, 3.0, 6.0, 9.0}},
  {10.0, 0.0, -3.0, TSR_INT64, 0, 4, {10.0, 7.0, 4.0, 1.0}},
  {-5.0, 5.0, 2.0, TSR_INT64, 0, 5, {-5.0, -3.0, -1.0, 1.0, 3.0}},
  /* torch: step must be nonzero */
  {0.0, 1.0, 0.1, TSR_INT64, 1, 0, {0}},
  /* torch: step must be nonzero */
  {1.0, 0.0, -0.1, TSR_INT64, 1, 0, {0}},
  {0.5, 5.0, 1.5, TSR_INT64, 0, 5, {0.0, 1.0, 2.0, 3.0, 4.0}},
  /* torch: step must be nonzero */
  {-2.5, 2.5, 0.5, TSR_INT64, 1, 0, {0}},
  {5.0, 5.0, 1.0, TSR_INT64, 0, 0, {0}},
  {0.0, 0.0, -1.0, TSR_INT64, 0, 0, {0}},
  {2.7, -3.2, -1.3, TSR_INT64, 0, 5, {2.0, 1.0, 0.0, -1.0, -2.0}},
  /* torch: step must be nonzero */
  {0.0, 5.0, 0.5, TSR_INT64, 1, 0, {0}},
  /* torch: step must be nonzero */
  {0.0, 10.0, 0.0, TSR_INT64, 1, 0, {0}},
  /* torch: upper bound and larger bound inconsistent with step sign */
  {5.0, 0.0, 1.0, TSR_INT64, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {0.0, INFINITY, 1.0, TSR_INT64, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {0.0, 1e+30, 1e+29, TSR_INT64, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {-1e+300, 0.0, 1e+299, TSR_INT64, 1, 0, {0}},
  /* torch: value cannot be converted to type int64_t without overflow */
  {0.0, NAN, 1.0, TSR_INT64, 1, 0, {0}},
  /* torch: step must be nonzero */
  {1.0, 2.0, 0.3, TSR_INT64, 1, 0, {0}},
  /* torch: step must be nonzero */
  {0.0, 3.0, 0.3333333333333333, TSR_INT64, 1, 0, {0}},
  /* torch: step must be nonzero */
  {-3.0, 3.0, 0.25, TSR_INT64, 1, 0, {0}},
  {100.0, 0.0, -7.5, TSR_INT64, 0, 15, {100.0, 93.0, 86.0, 79.0, 72.0, 65.0, 58.0, 51.0, 44.0, 37.0, 30.0, 23.0, 16.0, 9.0, 2.0}},
  {0.0, 10.0, 1.0, TSR_FLOAT16, 0, 10, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0}},
  {0.0, 10.0, 3.0, TSR_FLOAT16, 0, 4, {0.0, 3.0, 6.0, 9.0}},
  {10.0, 0.0, -3.0, TSR_FLOAT16, 0, 4, {10.0, 7.0, 4.0, 1.0}},
  {-5.0, 5.0, 2.0, TSR_FLOAT16, 0, 5, {-5.0, -3.0, -1.0, 1.0, 3.0}},
  {0.0, 1.0, 0.1, TSR_FLOAT16, 0, 10, {0.0, 0.0999755859375, 0.199951171875, 0.300048828125, 0.39990234375, 0.5, 0.60009765625, 0.7001953125, 0.7998046875, 0.89990234375}},
  {1.0, 0.0, -0.1, TSR_FLOAT16, 0, 10, {1.0, 0.89990234375, 0.7998046875, 0.7001953125, 0.60009765625, 0.5, 0.39990234375, 0.300048828125, 0.199951171875, 0.0999755859375}},
  {0.5, 5.0, 1.5, TSR_FLOAT16, 0, 3, {0.5, 2.0, 3.5}},
  {-2.5, 2.5, 0.5, TSR_FLOAT16, 0, 10, {-2.5, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0}},
  {5.0, 5.0, 1.0, TSR_FLOAT16, 0, 0, {0}},
  {0.0, 0.0, -1.0, TSR_FLOAT16, 0, 0, {0}},
  {2.7, -3.2, -1.3, TSR_FLOAT16, 0, 5, {2.69921875, 1.400390625, 0.0999755859375, -1.2001953125, -2.5}},
  {0.0, 5.0, 0.5, TSR_FLOAT16, 0, 10, {0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5}},
  /* torch: step must be nonzero */
  {0.0, 10.0, 0.0, TSR_FLOAT16, 1, 0, {0}},
  /* torch: upper bound and larger bound inconsistent with step sign */
  {5.0, 0.0, 1.0, TSR_FLOAT16, 1, 0, {0}},
  /* torch: unsupported range: 0 -> inf */
  {0.0, INFINITY, 1.0, TSR_FLOAT16, 1, 0, {0}},
  {0.0, 1e+30, 1e+29, TSR_FLOAT16, 0, 11, {0.0, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY}},
  /* torch: value cannot be converted to type float without overflow */
  {-1e+300, 0.0, 1e+299, TSR_FLOAT16, 1, 0, {0}},
  /* torch: unsupported range: 0 -> nan */
  {0.0, NAN, 1.0, TSR_FLOAT16, 1, 0, {0}},
  {1.0, 2.0, 0.3, TSR_FLOAT16, 0, 4, {1.0, 1.2998046875, 1.599609375, 1.900390625}},
  {0.0, 3.0, 0.3333333333333333, TSR_FLOAT16, 0, 9, {0.0, 0.333251953125, 0.66650390625, 1.0, 1.3330078125, 1.6669921875, 2.0, 2.333984375, 2.666015625}},
  {-3.0, 3.0, 0.25, TSR_FLOAT16, 0, 24, {-3.0, -2.75, -2.5, -2.25, -2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75}},
  {100.0, 0.0, -7.5, TSR_FLOAT16, 0, 14, {100.0, 92.5, 85.0, 77.5, 70.0, 62.5, 55.0, 47.5, 40.0, 32.5, 25.0, 17.5, 10.0, 2.5}},
  {0.0, 10.0, 1.0, TSR_BFLOAT16, 0, 10, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0}},
  {0.0, 10.0, 3.0, TSR_BFLOAT16, 0, 4, {0.0, 3.0, 6.0, 9.0}},
  {10.0, 0.0, -3.0, TSR_BFLOAT16, 0, 4, {10.0, 7.0, 4.0, 1.0}},
  {-5.0, 5.0, 2.0, TSR_BFLOAT16, 0, 5, {-5.0, -3.0, -1.0, 1.0, 3.0}},
  {0.0, 1.0, 0.1, TSR_BFLOAT16, 0, 10, {0.0, 0.10009765625, 0.2001953125, 0.30078125, 0.400390625, 0.5, 0.6015625, 0.69921875, 0.80078125, 0.8984375}},
  {1.0, 0.0, -0.1, TSR_BFLOAT16, 0, 10, {1.0, 0.8984375, 0.80078125, 0.69921875, 0.6015625, 0.5, 0.400390625, 0.30078125, 0.2001953125, 0.10009765625}},
  {0.5, 5.0, 1.5, TSR_BFLOAT16, 0, 3, {0.5, 2.0, 3.5}},
  {-2.5, 2.5, 0.5, TSR_BFLOAT16, 0, 10, {-2.5, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0}},
  {5.0, 5.0, 1.0, TSR_BFLOAT16, 0, 0, {0}},
  {0.0, 0.0, -1.0, TSR_BFLOAT16, 0, 0, {0}},
  {2.7, -3.2, -1.3, TSR_BFLOAT16, 0, 5, {2.703125, 1.3984375, 0.10009765625, -1.203125, -2.5}},
  {0.0, 5.0, 0.5, TSR_BFLOAT16, 0, 10, {0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5}},
  /* torch: step must be nonzero */
  {0.0, 10.0, 0.0, TSR_BFLOAT16, 1, 0, {0}},
  /* torch: upper bound and larger bound inconsistent with step sign */
  {5.0, 0.0, 1.0, TSR_BFLOAT16, 1, 0, {0}},
  /* torch: unsupported range: 0 -> inf */
  {0.0, INFINITY, 1.0, TSR_BFLOAT16, 1, 0, {0}},
  {0.0, 1e+30, 1e+29, TSR_BFLOAT16, 0, 11, {0.0, 1.002731431821158e+29, 2.005462863642316e+29, 2.9958148950706203e+29, 4.010925727284632e+29, 5.001277758712936e+29, 5.9916297901412405e+29, 6.981981821569545e+29, 8.021851454569264e+29, 9.012203485997568e+29, 1.0002555517425873e+30}},
  /* torch: value cannot be converted to type float without overflow */
  {-1e+300, 0.0, 1e+299, TSR_BFLOAT16, 1, 0, {0}},
  /* torch: unsupported range: 0 -> nan */
  {0.0, NAN, 1.0, TSR_BFLOAT16, 1, 0, {0}},
  {1.0, 2.0, 0.3, TSR_BFLOAT16, 0, 4, {1.0, 1.296875, 1.6015625, 1.8984375}},
  {0.0, 3.0, 0.3333333333333333, TSR_BFLOAT16, 0, 9, {0.0, 0.333984375, 0.66796875, 1.0, 1.3359375, 1.6640625, 2.0, 2.328125, 2.671875}},
  {-3.0, 3.0, 0.25, TSR_BFLOAT16, 0, 24, {-3.0, -2.75, -2.5, -2.25, -2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75}},
  {100.0, 0.0, -7.5, TSR_BFLOAT16, 0, 14, {100.0, 92.5, 85.0, 77.5, 70.0, 62.5, 55.0, 47.5, 40.0, 32.5, 25.0, 17.5, 10.0, 2.5}},
  {0.0, 10.0, 1.0, TSR_FLOAT32, 0, 10, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0}},
  {0.0, 10.0, 3.0, TSR_FLOAT32, 0, 4, {0.0, 3.0, 6.0, 9.0}},
  {10.0, 0.0, -3.0, TSR_FLOAT32, 0, 4, {10.0, 7.0, 4.0, 1.0}},
  {-5.0, 5.0, 2.0, TSR_FLOAT32, 0, 5, {-5.0, -3.0, -1.0, 1.0, 3.0}},
  {0.0, 1.0, 0.1, TSR_FLOAT32, 0, 10, {0.0, 0.10000000149011612, 0.20000000298023224, 0.30000001192092896, 0.4000000059604645, 0.5, 0.6000000238418579, 0.699999988079071, 0.800000011920929, 0.8999999761581421}},
  {1.0, 0.0, -0.1, TSR_FLOAT32, 0, 10, {1.0, 0.8999999761581421, 0.800000011920929, 0.699999988079071, 0.6000000238418579, 0.5, 0.4000000059604645, 0.30000001192092896, 0.20000000298023224, 0.10000000149011612}},
  {0.5, 5.0, 1.5, TSR_FLOAT32, 0, 3, {0.5, 2.0, 3.5}},
  {-2.5, 2.5, 0.5, TSR_FLOAT32, 0, 10, {-2.5, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0}},
  {5.0, 5.0, 1.0, TSR_FLOAT32, 0, 0, {0}},
  {0.0, 0.0, -1.0, TSR_FLOAT32, 0, 0, {0}},
  {2.7, -3.2, -1.3, TSR_FLOAT32, 0, 5, {2.700000047683716, 1.399999976158142, 0.10000000149011612, -1.2000000476837158, -2.5}},
  {0.0, 5.0, 0.5, TSR_FLOAT32, 0, 10, {0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5}},
  /* torch: step must be nonzero */
  {0.0, 10.0, 0.0, TSR_FLOAT32, 1, 0, {0}},
  /* torch: upper bound and larger bound inconsistent with step sign */
  {5.0, 0.0, 1.0, TSR_FLOAT32, 1, 0, {0}},
  /* torch: unsupported range: 0 -> inf */
  {0.0, INFINITY, 1.0, TSR_FLOAT32, 1, 0, {0}},
  {0.0, 1e+30, 1e+29, TSR_FLOAT32, 0, 11, {0.0, 1.0000000150474662e+29, 2.0000000300949324e+29, 3.0000000451423987e+29, 4.000000060189865e+29, 5.000000075237331e+29, 6.000000090284797e+29, 7.000000105332264e+29, 8.00000012037973e+29, 9.000000135427196e+29, 1.0000000150474662e+30}},
  {-1e+300, 0.0, 1e+299, TSR_FLOAT32, 0, 10, {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY}},
  /* torch: unsupported range: 0 -> nan */
  {0.0, NAN, 1.0, TSR_FLOAT32, 1, 0, {0}},
  {1.0, 2.0, 0.3, TSR_FLOAT32, 0, 4, {1.0, 1.2999999523162842, 1.600000023841858, 1.899999976158142}},
  {0.0, 3.0, 0.3333333333333333, TSR_FLOAT32, 0, 9, {0.0, 0.3333333432674408, 0.6666666865348816, 1.0, 1.3333333730697632, 1.6666666269302368, 2.0, 2.3333332538604736, 2.6666667461395264}},
  {-3.0, 3.0, 0.25, TSR_FLOAT32, 0, 24, {-3.0, -2.75, -2.5, -2.25, -2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75}},
  {100.0, 0.0, -7.5, TSR_FLOAT32, 0, 14, {100.0, 92.5, 85.0, 77.5, 70.0, 62.5, 55.0, 47.5, 40.0, 32.5, 25.0, 17.5, 10.0, 2.5}},
  {0.0, 10.0, 1.0, TSR_FLOAT64, 0, 10, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0}},
  {0.0, 10.0, 3.0, TSR_FLOAT64, 0, 4, {0.0, 3.0, 6.0, 9.0}},
  {10.0, 0.0, -3.0, TSR_FLOAT64, 0, 4, {10.0, 7.0, 4.0, 1.0}},
  {-5.0, 5.0, 2.0, TSR_FLOAT64, 0, 5, {-5.0, -3.0, -1.0, 1.0, 3.0}},
  {0.0, 1.0, 0.1, TSR_FLOAT64, 0, 10, {0.0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6000000000000001, 0.7000000000000001, 0.8, 0.9}},
  {1.0, 0.0, -0.1, TSR_FLOAT64, 0, 10, {1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.39999999999999997, 0.29999999999999993, 0.19999999999999996, 0.09999999999999995}},
  {0.5, 5.0, 1.5, TSR_FLOAT64, 0, 3, {0.5, 2.0, 3.5}},
  {-2.5, 2.5, 0.5, TSR_FLOAT64, 0, 10, {-2.5, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0}},
  {5.0, 5.0, 1.0, TSR_FLOAT64, 0, 0, {0}},
  {0.0, 0.0, -1.0, TSR_FLOAT64, 0, 0, {0}},
  {2.7, -3.2, -1.3, TSR_FLOAT64, 0, 5, {2.7, 1.4000000000000001, 0.10000000000000009, -1.2, -2.5}},
  {0.0, 5.0, 0.5, TSR_FLOAT64, 0, 10, {0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5}},
  /* torch: step must be nonzero */
  {0.0, 10.0, 0.0, TSR_FLOAT64, 1, 0, {0}},
  /* torch: upper bound and larger bound inconsistent with step sign */
  {5.0, 0.0, 1.0, TSR_FLOAT64, 1, 0, {0}},
  /* torch: unsupported range: 0 -> inf */
  {0.0, INFINITY, 1.0, TSR_FLOAT64, 1, 0, {0}},
  {0.0, 1e+30, 1e+29, TSR_FLOAT64, 0, 11, {0.0, 1e+29, 2e+29, 3e+29, 4e+29, 4.9999999999999994e+29, 6e+29, 7e+29, 8e+29, 8.999999999999999e+29, 9.999999999999999e+29}},
  {-1e+300, 0.0, 1e+299, TSR_FLOAT64, 0, 10, {-1e+300, -9e+299, -8e+299, -7e+299, -6e+299, -5e+299, -4e+299, -3e+299, -2e+299, -1e+299}},
  /* torch: unsupported range: 0 -> nan */
  {0.0, NAN, 1.0, TSR_FLOAT64, 1, 0, {0}},
  {1.0, 2.0, 0.3, TSR_FLOAT64, 0, 4, {1.0, 1.3, 1.6, 1.9}},
  {0.0, 3.0, 0.3333333333333333, TSR_FLOAT64, 0, 9, {0.0, 0.3333333333333333, 0.6666666666666666, 1.0, 1.3333333333333333, 1.6666666666666665, 2.0, 2.333333333333333, 2.6666666666666665}},
  {-3.0, 3.0, 0.25, TSR_FLOAT64, 0, 24, {-3.0, -2.75, -2.5, -2.25, -2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75}},
  {100.0, 0.0, -7.5, TSR_FLOAT64, 0, 14, {100.0, 92.5, 85.0, 77.5, 70.0, 62.5, 55.0, 47.5, 40.0, 32.5, 25.0, 17.5, 10.0, 2.5}},
};
#define TSR_GF_NARANGE (sizeof tsr_gf_aranges / sizeof tsr_gf_aranges[0])

/* torch.full((1,), value, dtype=dtype), value a Python float: the element's
 * bits, or error when c10::checked_convert overflows. any_nan: the result is
 * NaN and any NaN bit pattern will do (PyTorch's payload depends on its
 * loop). */
typedef struct {
  double value;
  tsr_dtype dtype;
  int error;
  int any_nan;
  uint64_t bits;
} tsr_gf_full;
static const tsr_gf_full tsr_gf_fulls[] = {
  {0.0, TSR_BOOL, 0, 0, UINT64_C(0x0)},
  {-0.0, TSR_BOOL, 0, 0, UINT64_C(0x0)},
  {1.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {-1.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {2.7, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {-2.7, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {127.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {127.5, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {128.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {-128.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {-128.5, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {-129.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {255.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {255.5, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {256.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {-0.5, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {32767.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {32768.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {2147483647.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {2147483648.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {-2147483648.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {9e+18, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {1e+19, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {65504.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {65519.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {65520.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {10000000000.0, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {3e+38, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {3.5e+38, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {1e+300, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {INFINITY, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {-INFINITY, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {NAN, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {0.1, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {1e-08, TSR_BOOL, 0, 0, UINT64_C(0x1)},
  {0.0, TSR_UINT8, 0, 0, UINT64_C(0x0)},
  {-0.0, TSR_UINT8, 0, 0, UINT64_C(0x0)},
  {1.0, TSR_UINT8, 0, 0, UINT64_C(0x1)},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {-1.0, TSR_UINT8, 1, 0, 0},
  {2.7, TSR_UINT8, 0, 0, UINT64_C(0x2)},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {-2.7, TSR_UINT8, 1, 0, 0},
  {127.0, TSR_UINT8, 0, 0, UINT64_C(0x7f)},
  {127.5, TSR_UINT8, 0, 0, UINT64_C(0x7f)},
  {128.0, TSR_UINT8, 0, 0, UINT64_C(0x80)},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {-128.0, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {-128.5, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {-129.0, TSR_UINT8, 1, 0, 0},
  {255.0, TSR_UINT8, 0, 0, UINT64_C(0xff)},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {255.5, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {256.0, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {-0.5, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {32767.0, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {32768.0, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {2147483647.0, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {2147483648.0, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {-2147483648.0, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {9e+18, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {1e+19, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {65504.0, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {65519.0, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {65520.0, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {10000000000.0, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {3e+38, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {3.5e+38, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {1e+300, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {INFINITY, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {-INFINITY, TSR_UINT8, 1, 0, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {NAN, TSR_UINT8, 1, 0, 0},
  {0.1, TSR_UINT8, 0, 0, UINT64_C(0x0)},
  {1e-08, TSR_UINT8, 0, 0, UINT64_C(0x0)},
  {0.0, TSR_INT8, 0, 0, UINT64_C(0x0)},
  {-0.0, TSR_INT8, 0, 0, UINT64_C(0x0)},
  {1.0, TSR_INT8, 0, 0, UINT64_C(0x1)},
  {-1.0, TSR_INT8, 0, 0, UINT64_C(0xff)},
  {2.7, TSR_INT8, 0, 0, UINT64_C(0x2)},
  {-2.7, TSR_INT8, 0, 0, UINT64_C(0xfe)},
  {127.0, TSR_INT8, 0, 0, UINT64_C(0x7f)},
  /* torch: value cannot be converted to type int8_t without overflow */
  {127.5, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {128.0, TSR_INT8, 1, 0, 0},
  {-128.0, TSR_INT8, 0, 0, UINT64_C(0x80)},
  /* torch: value cannot be converted to type int8_t without overflow */
  {-128.5, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {-129.0, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {255.0, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {255.5, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {256.0, TSR_INT8, 1, 0, 0},
  {-0.5, TSR_INT8, 0, 0, UINT64_C(0x0)},
  /* torch: value cannot be converted to type int8_t without overflow */
  {32767.0, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {32768.0, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {2147483647.0, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {2147483648.0, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {-2147483648.0, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {9e+18, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {1e+19, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {65504.0, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {65519.0, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {65520.0, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {10000000000.0, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {3e+38, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {3.5e+38, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {1e+300, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {INFINITY, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {-INFINITY, TSR_INT8, 1, 0, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {NAN, TSR_INT8, 1, 0, 0},
  {0.1, TSR_INT8, 0, 0, UINT64_C(0x0)},
  {1e-08, TSR_INT8, 0, 0, UINT64_C(0x0)},
  {0.0, TSR_INT16, 0, 0, UINT64_C(0x0)},
  {-0.0, TSR_INT16, 0, 0, UINT64_C(0x0)},
  {1.0, TSR_INT16, 0, 0, UINT64_C(0x1)},
  {-1.0, TSR_INT16, 0, 0, UINT64_C(0xffff)},
  {2.7, TSR_INT16, 0, 0, UINT64_C(0x2)},
  {-2.7, TSR_INT16, 0, 0, UINT64_C(0xfffe)},
  {127.0, TSR_INT16, 0, 0, UINT64_C(0x7f)},
  {127.5, TSR_INT16, 0, 0, UINT64_C(0x7f)},
  {128.0, TSR_INT16, 0, 0, UINT64_C(0x80)},
  {-128.0, TSR_INT16, 0, 0, UINT64_C(0xff80)},
  {-128.5, TSR_INT16, 0, 0, UINT64_C(0xff80)},
  {-129.0, TSR_INT16, 0, 0, UINT64_C(0xff7f)},
  {255.0, TSR_INT16, 0, 0, UINT64_C(0xff)},
  {255.5, TSR_INT16, 0, 0, UINT64_C(0xff)},
  {256.0, TSR_INT16, 0, 0, UINT64_C(0x100)},
  {-0.5, TSR_INT16, 0, 0, UINT64_C(0x0)},
  {32767.0, TSR_INT16, 0, 0, UINT64_C(0x7fff)},
  /* torch: value cannot be converted to type int16_t without overflow */
  {32768.0, TSR_INT16, 1, 0, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {2147483647.0, TSR_INT16, 1, 0, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {2147483648.0, TSR_INT16, 1, 0, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {-2147483648.0, TSR_INT16, 1, 0, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {9e+18, TSR_INT16, 1, 0, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {1e+19, TSR_INT16, 1, 0, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {65504.0, TSR_INT16, 1, 0, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {65519.0, TSR_INT16, 1, 0, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {65520.0, TSR_INT16, 1, 0, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {10000000000.0, TSR_INT16, 1, 0, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {3e+38, TSR_INT16, 1, 0, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {3.5e+38, TSR_INT16, 1, 0, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {1e+300, TSR_INT16, 1, 0, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {INFINITY, TSR_INT16, 1, 0, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {-INFINITY, TSR_INT16, 1, 0, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {NAN, TSR_INT16, 1, 0, 0},
  {0.1, TSR_INT16, 0, 0, UINT64_C(0x0)},
  {1e-08, TSR_INT16, 0, 0, UINT64_C(0x0)},
  {0.0, TSR_INT32, 0, 0, UINT64_C(0x0)},
  {-0.0, TSR_INT32, 0, 0, UINT64_C(0x0)},
  {1.0, TSR_INT32, 0, 0, UINT64_C(0x1)},
  {-1.0, TSR_INT32, 0, 0, UINT64_C(0xffffffff)},
  {2.7, TSR_INT32, 0, 0, UINT64_C(0x2)},
  {-2.7, TSR_INT32, 0, 0, UINT64_C(0xfffffffe)},
  {127.0, TSR_INT32, 0, 0, UINT64_C(0x7f)},
  {127.5, TSR_INT32, 0, 0, UINT64_C(0x7f)},
  {128.0, TSR_INT32, 0, 0, UINT64_C(0x80)},
  {-128.0, TSR_INT32, 0, 0, UINT64_C(0xffffff80)},
  {-128.5, TSR_INT32, 0, 0, UINT64_C(0xffffff80)},
  {-129.0, TSR_INT32, 0, 0, UINT64_C(0xffffff7f)},
  {255.0, TSR_INT32, 0, 0, UINT64_C(0xff)},
  {255.5, TSR_INT32, 0, 0, UINT64_C(0xff)},
  {256.0, TSR_INT32, 0, 0, UINT64_C(0x100)},
  {-0.5, TSR_INT32, 0, 0, UINT64_C(0x0)},
  {32767.0, TSR_INT32, 0, 0, UINT64_C(0x7fff)},
  {32768.0, TSR_INT32, 0, 0, UINT64_C(0x8000)},
  {2147483647.0, TSR_INT32, 0, 0, UINT64_C(0x7fffffff)},
  /* torch: value cannot be converted to type int without overflow */
  {2147483648.0, TSR_INT32, 1, 0, 0},
  {-2147483648.0, TSR_INT32, 0, 0, UINT64_C(0x80000000)},
  /* torch: value cannot be converted to type int without overflow */
  {9e+18, TSR_INT32, 1, 0, 0},
  /* torch: value cannot be converted to type int without overflow */
  {1e+19, TSR_INT32, 1, 0, 0},
  {65504.0, TSR_INT32, 0, 0, UINT64_C(0xffe0)},
  {65519.0, TSR_INT32, 0, 0, UINT64_C(0xffef)},
  {65520.0, TSR_INT32, 0, 0, UINT64_C(0xfff0)},
  /* torch: value cannot be converted to type int without overflow */
  {10000000000.0, TSR_INT32, 1, 0, 0},
  /* torch: value cannot be converted to type int without overflow */
  {3e+38, TSR_INT32, 1, 0, 0},
  /* torch: value cannot be converted to type int without overflow */
  {3.5e+38, TSR_INT32, 1, 0, 0},
  /* torch: value cannot be converted to type int without overflow */
  {1e+300, TSR_INT32, 1, 0, 0},
  /* torch: value cannot be converted to type int without overflow */
  {INFINITY, TSR_INT32, 1, 0, 0},
  /* torch: value cannot be converted to type int without overflow */
  {-INFINITY, TSR_INT32, 1, 0, 0},
  /* torch: value cannot be converted to type int without overflow */
  {NAN, TSR_INT32, 1, 0, 0},
  {0.1, TSR_INT32, 0, 0, UINT64_C(0x0)},
  {1e-08, TSR_INT32, 0, 0, UINT64_C(0x0)},
  {0.0, TSR_INT64, 0, 0, UINT64_C(0x0)},
  {-0.0, TSR_INT64, 0, 0, UINT64_C(0x0)},
  {1.0, TSR_INT64, 0, 0, UINT64_C(0x1)},
  {-1.0, TSR_INT64, 0, 0, UINT64_C(0xffffffffffffffff)},
  {2.7, TSR_INT64, 0, 0, UINT64_C(0x2)},
  {-2.7, TSR_INT64, 0, 0, UINT64_C(0xfffffffffffffffe)},
  {127.0, TSR_INT64, 0, 0, UINT64_C(0x7f)},
  {127.5, TSR_INT64, 0, 0, UINT64_C(0x7f)},
  {128.0, TSR_INT64, 0, 0, UINT64_C(0x80)},
  {-128.0, TSR_INT64, 0, 0, UINT64_C(0xffffffffffffff80)},
  {-128.5, TSR_INT64, 0, 0, UINT64_C(0xffffffffffffff80)},
  {-129.0, TSR_INT64, 0, 0, UINT64_C(0xffffffffffffff7f)},
  {255.0, TSR_INT64, 0, 0, UINT64_C(0xff)},
  {255.5, TSR_INT64, 0, 0, UINT64_C(0xff)},
  {256.0, TSR_INT64, 0, 0, UINT64_C(0x100)},
  {-0.5, TSR_INT64, 0, 0, UINT64_C(0x0)},
  {32767.0, TSR_INT64, 0, 0, UINT64_C(0x7fff)},
  {32768.0, TSR_INT64, 0, 0, UINT64_C(0x8000)},
  {2147483647.0, TSR_INT64, 0, 0, UINT64_C(0x7fffffff)},
  {2147483648.0, TSR_INT64, 0, 0, UINT64_C(0x80000000)},
  {-2147483648.0, TSR_INT64, 0, 0, UINT64_C(0xffffffff80000000)},
  {9e+18, TSR_INT64, 0, 0, UINT64_C(0x7ce66c50e2840000)},
  /* torch: value cannot be converted to type int64_t without overflow */
  {1e+19, TSR_INT64, 1, 0, 0},
  {65504.0, TSR_INT64, 0, 0, UINT64_C(0xffe0)},
  {65519.0, TSR_INT64, 0, 0, UINT64_C(0xffef)},
  {65520.0, TSR_INT64, 0, 0, UINT64_C(0xfff0)},
  {10000000000.0, TSR_INT64, 0, 0, UINT64_C(0x2540be400)},
  /* torch: value cannot be converted to type int64_t without overflow */
  {3e+38, TSR_INT64, 1, 0, 0},
  /* torch: value cannot be converted to type int64_t without overflow */
  {3.5e+38, TSR_INT64, 1, 0, 0},
  /* torch: value cannot be converted to type int64_t without overflow */
  {1e+300, TSR_INT64, 1, 0, 0},
  /* torch: value cannot be converted to type int64_t without overflow */
  {INFINITY, TSR_INT64, 1, 0, 0},
  /* torch: value cannot be converted to type int64_t without overflow */
  {-INFINITY, TSR_INT64, 1, 0, 0},
  /* torch: value cannot be converted to type int64_t without overflow */
  {NAN, TSR_INT64, 1, 0, 0},
  {0.1, TSR_INT64, 0, 0, UINT64_C(0x0)},
  {1e-08, TSR_INT64, 0, 0, UINT64_C(0x0)},
  {0.0, TSR_FLOAT16, 0, 0, UINT64_C(0x0)},
  {-0.0, TSR_FLOAT16, 0, 0, UINT64_C(0x8000)},
  {1.0, TSR_FLOAT16, 0, 0, UINT64_C(0x3c00)},
  {-1.0, TSR_FLOAT16, 0, 0, UINT64_C(0xbc00)},
  {2.7, TSR_FLOAT16, 0, 0, UINT64_C(0x4166)},
  {-2.7, TSR_FLOAT16, 0, 0, UINT64_C(0xc166)},
  {127.0, TSR_FLOAT16, 0, 0, UINT64_C(0x57f0)},
  {127.5, TSR_FLOAT16, 0, 0, UINT64_C(0x57f8)},
  {128.0, TSR_FLOAT16, 0, 0, UINT64_C(0x5800)},
  {-128.0, TSR_FLOAT16, 0, 0, UINT64_C(0xd800)},
  {-128.5, TSR_FLOAT16, 0, 0, UINT64_C(0xd804)},
  {-129.0, TSR_FLOAT16, 0, 0, UINT64_C(0xd808)},
  {255.0, TSR_FLOAT16, 0, 0, UINT64_C(0x5bf8)},
  {255.5, TSR_FLOAT16, 0, 0, UINT64_C(0x5bfc)},
  {256.0, TSR_FLOAT16, 0, 0, UINT64_C(0x5c00)},
  {-0.5, TSR_FLOAT16, 0, 0, UINT64_C(0xb800)},
  {32767.0, TSR_FLOAT16, 0, 0, UINT64_C(0x7800)},
  {32768.0, TSR_FLOAT16, 0, 0, UINT64_C(0x7800)},
  /* torch: value cannot be converted to type at::Half without overflow */
  {2147483647.0, TSR_FLOAT16, 1, 0, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {2147483648.0, TSR_FLOAT16, 1, 0, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {-2147483648.0, TSR_FLOAT16, 1, 0, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {9e+18, TSR_FLOAT16, 1, 0, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {1e+19, TSR_FLOAT16, 1, 0, 0},
  {65504.0, TSR_FLOAT16, 0, 0, UINT64_C(0x7bff)},
  /* torch: value cannot be converted to type at::Half without overflow */
  {65519.0, TSR_FLOAT16, 1, 0, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {65520.0, TSR_FLOAT16, 1, 0, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {10000000000.0, TSR_FLOAT16, 1, 0, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {3e+38, TSR_FLOAT16, 1, 0, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {3.5e+38, TSR_FLOAT16, 1, 0, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {1e+300, TSR_FLOAT16, 1, 0, 0},
  {INFINITY, TSR_FLOAT16, 0, 0, UINT64_C(0x7c00)},
  {-INFINITY, TSR_FLOAT16, 0, 0, UINT64_C(0xfc00)},
  {NAN, TSR_FLOAT16, 0, 1, UINT64_C(0x7e00)},
  {0.1, TSR_FLOAT16, 0, 0, UINT64_C(0x2e66)},
  {1e-08, TSR_FLOAT16, 0, 0, UINT64_C(0x0)},
  {0.0, TSR_BFLOAT16, 0, 0, UINT64_C(0x0)},
  {-0.0, TSR_BFLOAT16, 0, 0, UINT64_C(0x8000)},
  {1.0, TSR_BFLOAT16, 0, 0, UINT64_C(0x3f80)},
  {-1.0, TSR_BFLOAT16, 0, 0, UINT64_C(0xbf80)},
  {2.7, TSR_BFLOAT16, 0, 0, UINT64_C(0x402d)},
  {-2.7, TSR_BFLOAT16, 0, 0, UINT64_C(0xc02d)},
  {127.0, TSR_BFLOAT16, 0, 0, UINT64_C(0x42fe)},
  {127.5, TSR_BFLOAT16, 0, 0, UINT64_C(0x42ff)},
  {128.0, TSR_BFLOAT16, 0, 0, UINT64_C(0x4300)},
  {-128.0, TSR_BFLOAT16, 0, 0, UINT64_C(0xc300)},
  {-128.5, TSR_BFLOAT16, 0, 0, UINT64_C(0xc300)},
  {-129.0, TSR_BFLOAT16, 0, 0, UINT64_C(0xc301)},
  {255.0, TSR_BFLOAT16, 0, 0, UINT64_C(0x437f)},
  {255.5, TSR_BFLOAT16, 0, 0, UINT64_C(0x4380)},
  {256.0, TSR_BFLOAT16, 0, 0, UINT64_C(0x4380)},
  {-0.5, TSR_BFLOAT16, 0, 0, UINT64_C(0xbf00)},
  {32767.0, TSR_BFLOAT16, 0, 0, UINT64_C(0x4700)},
  {32768.0, TSR_BFLOAT16, 0, 0, UINT64_C(0x4700)},
  {2147483647.0, TSR_BFLOAT16, 0, 0, UINT64_C(0x4f00)},
  {2147483648.0, TSR_BFLOAT16, 0, 0, UINT64_C(0x4f00)},
  {-2147483648.0, TSR_BFLOAT16, 0, 0, UINT64_C(0xcf00)},
  {9e+18, TSR_BFLOAT16, 0, 0, UINT64_C(0x5efa)},
  {1e+19, TSR_BFLOAT16, 0, 0, UINT64_C(0x5f0b)},
  {65504.0, TSR_BFLOAT16, 0, 0, UINT64_C(0x4780)},
  {65519.0, TSR_BFLOAT16, 0, 0, UINT64_C(0x4780)},
  {65520.0, TSR_BFLOAT16, 0, 0, UINT64_C(0x4780)},
  {10000000000.0, TSR_BFLOAT16, 0, 0, UINT64_C(0x5015)},
  {3e+38, TSR_BFLOAT16, 0, 0, UINT64_C(0x7f62)},
  /* torch: value cannot be converted to type at::BFloat16 without overflow */
  {3.5e+38, TSR_BFLOAT16, 1, 0, 0},
  /* torch: value cannot be converted to type at::BFloat16 without overflow */
  {1e+300, TSR_BFLOAT16, 1, 0, 0},
  {INFINITY, TSR_BFLOAT16, 0, 0, UINT64_C(0x7f80)},
  {-INFINITY, TSR_BFLOAT16, 0, 0, UINT64_C(0xff80)},
  {NAN, TSR_BFLOAT16, 0, 1, UINT64_C(0x7fc0)},
  {0.1, TSR_BFLOAT16, 0, 0, UINT64_C(0x3dcd)},
  {1e-08, TSR_BFLOAT16, 0, 0, UINT64_C(0x322c)},
  {0.0, TSR_FLOAT32, 0, 0, UINT64_C(0x0)},
  {-0.0, TSR_FLOAT32, 0, 0, UINT64_C(0x80000000)},
  {1.0, TSR_FLOAT32, 0, 0, UINT64_C(0x3f800000)},
  {-1.0, TSR_FLOAT32, 0, 0, UINT64_C(0xbf800000)},
  {2.7, TSR_FLOAT32, 0, 0, UINT64_C(0x402ccccd)},
  {-2.7, TSR_FLOAT32, 0, 0, UINT64_C(0xc02ccccd)},
  {127.0, TSR_FLOAT32, 0, 0, UINT64_C(0x42fe0000)},
  {127.5, TSR_FLOAT32, 0, 0, UINT64_C(0x42ff0000)},
  {128.0, TSR_FLOAT32, 0, 0, UINT64_C(0x43000000)},
  {-128.0, TSR_FLOAT32, 0, 0, UINT64_C(0xc3000000)},
  {-128.5, TSR_FLOAT32, 0, 0, UINT64_C(0xc3008000)},
  {-129.0, TSR_FLOAT32, 0, 0, UINT64_C(0xc3010000)},
  {255.0, TSR_FLOAT32, 0, 0, UINT64_C(0x437f0000)},
  {255.5, TSR_FLOAT32, 0, 0, UINT64_C(0x437f8000)},
  {256.0, TSR_FLOAT32, 0, 0, UINT64_C(0x43800000)},
  {-0.5, TSR_FLOAT32, 0, 0, UINT64_C(0xbf000000)},
  {32767.0, TSR_FLOAT32, 0, 0, UINT64_C(0x46fffe00)},
  {32768.0, TSR_FLOAT32, 0, 0, UINT64_C(0x47000000)},
  {2147483647.0, TSR_FLOAT32, 0, 0, UINT64_C(0x4f000000)},
  {2147483648.0, TSR_FLOAT32, 0, 0, UINT64_C(0x4f000000)},
  {-2147483648.0, TSR_FLOAT32, 0, 0, UINT64_C(0xcf000000)},
  {9e+18, TSR_FLOAT32, 0, 0, UINT64_C(0x5ef9ccd9)},
  {1e+19, TSR_FLOAT32, 0, 0, UINT64_C(0x5f0ac723)},
  {65504.0, TSR_FLOAT32, 0, 0, UINT64_C(0x477fe000)},
  {65519.0, TSR_FLOAT32, 0, 0, UINT64_C(0x477fef00)},
  {65520.0, TSR_FLOAT32, 0, 0, UINT64_C(0x477ff000)},
  {10000000000.0, TSR_FLOAT32, 0, 0, UINT64_C(0x501502f9)},
  {3e+38, TSR_FLOAT32, 0, 0, UINT64_C(0x7f61b1e6)},
  /* torch: value cannot be converted to type float without overflow */
  {3.5e+38, TSR_FLOAT32, 1, 0, 0},
  /* torch: value cannot be converted to type float without overflow */
  {1e+300, TSR_FLOAT32, 1, 0, 0},
  {INFINITY, TSR_FLOAT32, 0, 0, UINT64_C(0x7f800000)},
  {-INFINITY, TSR_FLOAT32, 0, 0, UINT64_C(0xff800000)},
  {NAN, TSR_FLOAT32, 0, 1, UINT64_C(0x7fc00000)},
  {0.1, TSR_FLOAT32, 0, 0, UINT64_C(0x3dcccccd)},
  {1e-08, TSR_FLOAT32, 0, 0, UINT64_C(0x322bcc77)},
  {0.0, TSR_FLOAT64, 0, 0, UINT64_C(0x0)},
  {-0.0, TSR_FLOAT64, 0, 0, UINT64_C(0x8000000000000000)},
  {1.0, TSR_FLOAT64, 0, 0, UINT64_C(0x3ff0000000000000)},
  {-1.0, TSR_FLOAT64, 0, 0, UINT64_C(0xbff0000000000000)},
  {2.7, TSR_FLOAT64, 0, 0, UINT64_C(0x400599999999999a)},
  {-2.7, TSR_FLOAT64, 0, 0, UINT64_C(0xc00599999999999a)},
  {127.0, TSR_FLOAT64, 0, 0, UINT64_C(0x405fc00000000000)},
  {127.5, TSR_FLOAT64, 0, 0, UINT64_C(0x405fe00000000000)},
  {128.0, TSR_FLOAT64, 0, 0, UINT64_C(0x4060000000000000)},
  {-128.0, TSR_FLOAT64, 0, 0, UINT64_C(0xc060000000000000)},
  {-128.5, TSR_FLOAT64, 0, 0, UINT64_C(0xc060100000000000)},
  {-129.0, TSR_FLOAT64, 0, 0, UINT64_C(0xc060200000000000)},
  {255.0, TSR_FLOAT64, 0, 0, UINT64_C(0x406fe00000000000)},
  {255.5, TSR_FLOAT64, 0, 0, UINT64_C(0x406ff00000000000)},
  {256.0, TSR_FLOAT64, 0, 0, UINT64_C(0x4070000000000000)},
  {-0.5, TSR_FLOAT64, 0, 0, UINT64_C(0xbfe0000000000000)},
  {32767.0, TSR_FLOAT64, 0, 0, UINT64_C(0x40dfffc000000000)},
  {32768.0, TSR_FLOAT64, 0, 0, UINT64_C(0x40e0000000000000)},
  {2147483647.0, TSR_FLOAT64, 0, 0, UINT64_C(0x41dfffffffc00000)},
  {2147483648.0, TSR_FLOAT64, 0, 0, UINT64_C(0x41e0000000000000)},
  {-2147483648.0, TSR_FLOAT64, 0, 0, UINT64_C(0xc1e0000000000000)},
  {9e+18, TSR_FLOAT64, 0, 0, UINT64_C(0x43df399b1438a100)},
  {1e+19, TSR_FLOAT64, 0, 0, UINT64_C(0x43e158e460913d00)},
  {65504.0, TSR_FLOAT64, 0, 0, UINT64_C(0x40effc0000000000)},
  {65519.0, TSR_FLOAT64, 0, 0, UINT64_C(0x40effde000000000)},
  {65520.0, TSR_FLOAT64, 0, 0, UINT64_C(0x40effe0000000000)},
  {10000000000.0, TSR_FLOAT64, 0, 0, UINT64_C(0x4202a05f20000000)},
  {3e+38, TSR_FLOAT64, 0, 0, UINT64_C(0x47ec363cbf21f28a)},
  {3.5e+38, TSR_FLOAT64, 0, 0, UINT64_C(0x47f074f8c4d3cd7b)},
  {1e+300, TSR_FLOAT64, 0, 0, UINT64_C(0x7e37e43c8800759c)},
  {INFINITY, TSR_FLOAT64, 0, 0, UINT64_C(0x7ff0000000000000)},
  {-INFINITY, TSR_FLOAT64, 0, 0, UINT64_C(0xfff0000000000000)},
  {NAN, TSR_FLOAT64, 0, 1, UINT64_C(0x7ff8000000000000)},
  {0.1, TSR_FLOAT64, 0, 0, UINT64_C(0x3fb999999999999a)},
  {1e-08, TSR_FLOAT64, 0, 0, UINT64_C(0x3e45798ee2308c3a)},
};
#define TSR_GF_NFULL (sizeof tsr_gf_fulls / sizeof tsr_gf_fulls[0])

/* t = torch.zeros(2, dtype=dtype); t[0] = value (a Python int). */
typedef struct {
  int64_t value;
  tsr_dtype dtype;
  int error;
  uint64_t bits;
} tsr_gf_set_int;
static const tsr_gf_set_int tsr_gf_set_ints[] = {
  {0, TSR_BOOL, 0, UINT64_C(0x0)},
  {1, TSR_BOOL, 0, UINT64_C(0x1)},
  {-1, TSR_BOOL, 0, UINT64_C(0x1)},
  {127, TSR_BOOL, 0, UINT64_C(0x1)},
  {128, TSR_BOOL, 0, UINT64_C(0x1)},
  {-128, TSR_BOOL, 0, UINT64_C(0x1)},
  {-129, TSR_BOOL, 0, UINT64_C(0x1)},
  {255, TSR_BOOL, 0, UINT64_C(0x1)},
  {256, TSR_BOOL, 0, UINT64_C(0x1)},
  {-255, TSR_BOOL, 0, UINT64_C(0x1)},
  {-256, TSR_BOOL, 0, UINT64_C(0x1)},
  {32767, TSR_BOOL, 0, UINT64_C(0x1)},
  {32768, TSR_BOOL, 0, UINT64_C(0x1)},
  {-32769, TSR_BOOL, 0, UINT64_C(0x1)},
  {2147483647, TSR_BOOL, 0, UINT64_C(0x1)},
  {INT64_C(2147483648), TSR_BOOL, 0, UINT64_C(0x1)},
  {INT64_C(-2147483649), TSR_BOOL, 0, UINT64_C(0x1)},
  {65504, TSR_BOOL, 0, UINT64_C(0x1)},
  {65519, TSR_BOOL, 0, UINT64_C(0x1)},
  {65520, TSR_BOOL, 0, UINT64_C(0x1)},
  {70000, TSR_BOOL, 0, UINT64_C(0x1)},
  {INT64_C(4611686018427387904), TSR_BOOL, 0, UINT64_C(0x1)},
  {INT64_MAX, TSR_BOOL, 0, UINT64_C(0x1)},
  {INT64_MIN, TSR_BOOL, 0, UINT64_C(0x1)},
  {0, TSR_UINT8, 0, UINT64_C(0x0)},
  {1, TSR_UINT8, 0, UINT64_C(0x1)},
  {-1, TSR_UINT8, 0, UINT64_C(0xff)},
  {127, TSR_UINT8, 0, UINT64_C(0x7f)},
  {128, TSR_UINT8, 0, UINT64_C(0x80)},
  {-128, TSR_UINT8, 0, UINT64_C(0x80)},
  {-129, TSR_UINT8, 0, UINT64_C(0x7f)},
  {255, TSR_UINT8, 0, UINT64_C(0xff)},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {256, TSR_UINT8, 1, 0},
  {-255, TSR_UINT8, 0, UINT64_C(0x1)},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {-256, TSR_UINT8, 1, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {32767, TSR_UINT8, 1, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {32768, TSR_UINT8, 1, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {-32769, TSR_UINT8, 1, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {2147483647, TSR_UINT8, 1, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {INT64_C(2147483648), TSR_UINT8, 1, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {INT64_C(-2147483649), TSR_UINT8, 1, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {65504, TSR_UINT8, 1, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {65519, TSR_UINT8, 1, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {65520, TSR_UINT8, 1, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {70000, TSR_UINT8, 1, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {INT64_C(4611686018427387904), TSR_UINT8, 1, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {INT64_MAX, TSR_UINT8, 1, 0},
  /* torch: value cannot be converted to type uint8_t without overflow */
  {INT64_MIN, TSR_UINT8, 1, 0},
  {0, TSR_INT8, 0, UINT64_C(0x0)},
  {1, TSR_INT8, 0, UINT64_C(0x1)},
  {-1, TSR_INT8, 0, UINT64_C(0xff)},
  {127, TSR_INT8, 0, UINT64_C(0x7f)},
  /* torch: value cannot be converted to type int8_t without overflow */
  {128, TSR_INT8, 1, 0},
  {-128, TSR_INT8, 0, UINT64_C(0x80)},
  /* torch: value cannot be converted to type int8_t without overflow */
  {-129, TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {255, TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {256, TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {-255, TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {-256, TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {32767, TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {32768, TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {-32769, TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {2147483647, TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {INT64_C(2147483648), TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {INT64_C(-2147483649), TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {65504, TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {65519, TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {65520, TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {70000, TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {INT64_C(4611686018427387904), TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {INT64_MAX, TSR_INT8, 1, 0},
  /* torch: value cannot be converted to type int8_t without overflow */
  {INT64_MIN, TSR_INT8, 1, 0},
  {0, TSR_INT16, 0, UINT64_C(0x0)},
  {1, TSR_INT16, 0, UINT64_C(0x1)},
  {-1, TSR_INT16, 0, UINT64_C(0xffff)},
  {127, TSR_INT16, 0, UINT64_C(0x7f)},
  {128, TSR_INT16, 0, UINT64_C(0x80)},
  {-128, TSR_INT16, 0, UINT64_C(0xff80)},
  {-129, TSR_INT16, 0, UINT64_C(0xff7f)},
  {255, TSR_INT16, 0, UINT64_C(0xff)},
  {256, TSR_INT16, 0, UINT64_C(0x100)},
  {-255, TSR_INT16, 0, UINT64_C(0xff01)},
  {-256, TSR_INT16, 0, UINT64_C(0xff00)},
  {32767, TSR_INT16, 0, UINT64_C(0x7fff)},
  /* torch: value cannot be converted to type int16_t without overflow */
  {32768, TSR_INT16, 1, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {-32769, TSR_INT16, 1, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {2147483647, TSR_INT16, 1, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {INT64_C(2147483648), TSR_INT16, 1, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {INT64_C(-2147483649), TSR_INT16, 1, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {65504, TSR_INT16, 1, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {65519, TSR_INT16, 1, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {65520, TSR_INT16, 1, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {70000, TSR_INT16, 1, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {INT64_C(4611686018427387904), TSR_INT16, 1, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {INT64_MAX, TSR_INT16, 1, 0},
  /* torch: value cannot be converted to type int16_t without overflow */
  {INT64_MIN, TSR_INT16, 1, 0},
  {0, TSR_INT32, 0, UINT64_C(0x0)},
  {1, TSR_INT32, 0, UINT64_C(0x1)},
  {-1, TSR_INT32, 0, UINT64_C(0xffffffff)},
  {127, TSR_INT32, 0, UINT64_C(0x7f)},
  {128, TSR_INT32, 0, UINT64_C(0x80)},
  {-128, TSR_INT32, 0, UINT64_C(0xffffff80)},
  {-129, TSR_INT32, 0, UINT64_C(0xffffff7f)},
  {255, TSR_INT32, 0, UINT64_C(0xff)},
  {256, TSR_INT32, 0, UINT64_C(0x100)},
  {-255, TSR_INT32, 0, UINT64_C(0xffffff01)},
  {-256, TSR_INT32, 0, UINT64_C(0xffffff00)},
  {32767, TSR_INT32, 0, UINT64_C(0x7fff)},
  {32768, TSR_INT32, 0, UINT64_C(0x8000)},
  {-32769, TSR_INT32, 0, UINT64_C(0xffff7fff)},
  {2147483647, TSR_INT32, 0, UINT64_C(0x7fffffff)},
  /* torch: value cannot be converted to type int without overflow */
  {INT64_C(2147483648), TSR_INT32, 1, 0},
  /* torch: value cannot be converted to type int without overflow */
  {INT64_C(-2147483649), TSR_INT32, 1, 0},
  {65504, TSR_INT32, 0, UINT64_C(0xffe0)},
  {65519, TSR_INT32, 0, UINT64_C(0xffef)},
  {65520, TSR_INT32, 0, UINT64_C(0xfff0)},
  {70000, TSR_INT32, 0, UINT64_C(0x11170)},
  /* torch: value cannot be converted to type int without overflow */
  {INT64_C(4611686018427387904), TSR_INT32, 1, 0},
  /* torch: value cannot be converted to type int without overflow */
  {INT64_MAX, TSR_INT32, 1, 0},
  /* torch: value cannot be converted to type int without overflow */
  {INT64_MIN, TSR_INT32, 1, 0},
  {0, TSR_INT64, 0, UINT64_C(0x0)},
  {1, TSR_INT64, 0, UINT64_C(0x1)},
  {-1, TSR_INT64, 0, UINT64_C(0xffffffffffffffff)},
  {127, TSR_INT64, 0, UINT64_C(0x7f)},
  {128, TSR_INT64, 0, UINT64_C(0x80)},
  {-128, TSR_INT64, 0, UINT64_C(0xffffffffffffff80)},
  {-129, TSR_INT64, 0, UINT64_C(0xffffffffffffff7f)},
  {255, TSR_INT64, 0, UINT64_C(0xff)},
  {256, TSR_INT64, 0, UINT64_C(0x100)},
  {-255, TSR_INT64, 0, UINT64_C(0xffffffffffffff01)},
  {-256, TSR_INT64, 0, UINT64_C(0xffffffffffffff00)},
  {32767, TSR_INT64, 0, UINT64_C(0x7fff)},
  {32768, TSR_INT64, 0, UINT64_C(0x8000)},
  {-32769, TSR_INT64, 0, UINT64_C(0xffffffffffff7fff)},
  {2147483647, TSR_INT64, 0, UINT64_C(0x7fffffff)},
  {INT64_C(2147483648), TSR_INT64, 0, UINT64_C(0x80000000)},
  {INT64_C(-2147483649), TSR_INT64, 0, UINT64_C(0xffffffff7fffffff)},
  {65504, TSR_INT64, 0, UINT64_C(0xffe0)},
  {65519, TSR_INT64, 0, UINT64_C(0xffef)},
  {65520, TSR_INT64, 0, UINT64_C(0xfff0)},
  {70000, TSR_INT64, 0, UINT64_C(0x11170)},
  {INT64_C(4611686018427387904), TSR_INT64, 0, UINT64_C(0x4000000000000000)},
  {INT64_MAX, TSR_INT64, 0, UINT64_C(0x7fffffffffffffff)},
  {INT64_MIN, TSR_INT64, 0, UINT64_C(0x8000000000000000)},
  {0, TSR_FLOAT16, 0, UINT64_C(0x0)},
  {1, TSR_FLOAT16, 0, UINT64_C(0x3c00)},
  {-1, TSR_FLOAT16, 0, UINT64_C(0xbc00)},
  {127, TSR_FLOAT16, 0, UINT64_C(0x57f0)},
  {128, TSR_FLOAT16, 0, UINT64_C(0x5800)},
  {-128, TSR_FLOAT16, 0, UINT64_C(0xd800)},
  {-129, TSR_FLOAT16, 0, UINT64_C(0xd808)},
  {255, TSR_FLOAT16, 0, UINT64_C(0x5bf8)},
  {256, TSR_FLOAT16, 0, UINT64_C(0x5c00)},
  {-255, TSR_FLOAT16, 0, UINT64_C(0xdbf8)},
  {-256, TSR_FLOAT16, 0, UINT64_C(0xdc00)},
  {32767, TSR_FLOAT16, 0, UINT64_C(0x7800)},
  {32768, TSR_FLOAT16, 0, UINT64_C(0x7800)},
  {-32769, TSR_FLOAT16, 0, UINT64_C(0xf800)},
  /* torch: value cannot be converted to type at::Half without overflow */
  {2147483647, TSR_FLOAT16, 1, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {INT64_C(2147483648), TSR_FLOAT16, 1, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {INT64_C(-2147483649), TSR_FLOAT16, 1, 0},
  {65504, TSR_FLOAT16, 0, UINT64_C(0x7bff)},
  /* torch: value cannot be converted to type at::Half without overflow */
  {65519, TSR_FLOAT16, 1, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {65520, TSR_FLOAT16, 1, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {70000, TSR_FLOAT16, 1, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {INT64_C(4611686018427387904), TSR_FLOAT16, 1, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {INT64_MAX, TSR_FLOAT16, 1, 0},
  /* torch: value cannot be converted to type at::Half without overflow */
  {INT64_MIN, TSR_FLOAT16, 1, 0},
  {0, TSR_BFLOAT16, 0, UINT64_C(0x0)},
  {1, TSR_BFLOAT16, 0, UINT64_C(0x3f80)},
  {-1, TSR_BFLOAT16, 0, UINT64_C(0xbf80)},
  {127, TSR_BFLOAT16, 0, UINT64_C(0x42fe)},
  {128, TSR_BFLOAT16, 0, UINT64_C(0x4300)},
  {-128, TSR_BFLOAT16, 0, UINT64_C(0xc300)},
  {-129, TSR_BFLOAT16, 0, UINT64_C(0xc301)},
  {255, TSR_BFLOAT16, 0, UINT64_C(0x437f)},
  {256, TSR_BFLOAT16, 0, UINT64_C(0x4380)},
  {-255, TSR_BFLOAT16, 0, UINT64_C(0xc37f)},
  {-256, TSR_BFLOAT16, 0, UINT64_C(0xc380)},
  {32767, TSR_BFLOAT16, 0, UINT64_C(0x4700)},
  {32768, TSR_BFLOAT16, 0, UINT64_C(0x4700)},
  {-32769, TSR_BFLOAT16, 0, UINT64_C(0xc700)},
  {2147483647, TSR_BFLOAT16, 0, UINT64_C(0x4f00)},
  {INT64_C(2147483648), TSR_BFLOAT16, 0, UINT64_C(0x4f00)},
  {INT64_C(-2147483649), TSR_BFLOAT16, 0, UINT64_C(0xcf00)},
  {65504, TSR_BFLOAT16, 0, UINT64_C(0x4780)},
  {65519, TSR_BFLOAT16, 0, UINT64_C(0x4780)},
  {65520, TSR_BFLOAT16, 0, UINT64_C(0x4780)},
  {70000, TSR_BFLOAT16, 0, UINT64_C(0x4789)},
  {INT64_C(4611686018427387904), TSR_BFLOAT16, 0, UINT64_C(0x5e80)},
  {INT64_MAX, TSR_BFLOAT16, 0, UINT64_C(0x5f00)},
  {INT64_MIN, TSR_BFLOAT16, 0, UINT64_C(0xdf00)},
  {0, TSR_FLOAT32, 0, UINT64_C(0x0)},
  {1, TSR_FLOAT32, 0, UINT64_C(0x3f800000)},
  {-1, TSR_FLOAT32, 0, UINT64_C(0xbf800000)},
  {127, TSR_FLOAT32, 0, UINT64_C(0x42fe0000)},
  {128, TSR_FLOAT32, 0, UINT64_C(0x43000000)},
  {-128, TSR_FLOAT32, 0, UINT64_C(0xc3000000)},
  {-129, TSR_FLOAT32, 0, UINT64_C(0xc3010000)},
  {255, TSR_FLOAT32, 0, UINT64_C(0x437f0000)},
  {256, TSR_FLOAT32, 0, UINT64_C(0x43800000)},
  {-255, TSR_FLOAT32, 0, UINT64_C(0xc37f0000)},
  {-256, TSR_FLOAT32, 0, UINT64_C(0xc3800000)},
  {32767, TSR_FLOAT32, 0, UINT64_C(0x46fffe00)},
  {32768, TSR_FLOAT32, 0, UINT64_C(0x47000000)},
  {-32769, TSR_FLOAT32, 0, UINT64_C(0xc7000100)},
  {2147483647, TSR_FLOAT32, 0, UINT64_C(0x4f000000)},
  {INT64_C(2147483648), TSR_FLOAT32, 0, UINT64_C(0x4f000000)},
  {INT64_C(-2147483649), TSR_FLOAT32, 0, UINT64_C(0xcf000000)},
  {65504, TSR_FLOAT32, 0, UINT64_C(0x477fe000)},
  {65519, TSR_FLOAT32, 0, UINT64_C(0x477fef00)},
  {65520, TSR_FLOAT32, 0, UINT64_C(0x477ff000)},
  {70000, TSR_FLOAT32, 0, UINT64_C(0x4788b800)},
  {INT64_C(4611686018427387904), TSR_FLOAT32, 0, UINT64_C(0x5e800000)},
  {INT64_MAX, TSR_FLOAT32, 0, UINT64_C(0x5f000000)},
  {INT64_MIN, TSR_FLOAT32, 0, UINT64_C(0xdf000000)},
  {0, TSR_FLOAT64, 0, UINT64_C(0x0)},
  {1, TSR_FLOAT64, 0, UINT64_C(0x3ff0000000000000)},
  {-1, TSR_FLOAT64, 0, UINT64_C(0xbff0000000000000)},
  {127, TSR_FLOAT64, 0, UINT64_C(0x405fc00000000000)},
  {128, TSR_FLOAT64, 0, UINT64_C(0x4060000000000000)},
  {-128, TSR_FLOAT64, 0, UINT64_C(0xc060000000000000)},
  {-129, TSR_FLOAT64, 0, UINT64_C(0xc060200000000000)},
  {255, TSR_FLOAT64, 0, UINT64_C(0x406fe00000000000)},
  {256, TSR_FLOAT64, 0, UINT64_C(0x4070000000000000)},
  {-255, TSR_FLOAT64, 0, UINT64_C(0xc06fe00000000000)},
  {-256, TSR_FLOAT64, 0, UINT64_C(0xc070000000000000)},
  {32767, TSR_FLOAT64, 0, UINT64_C(0x40dfffc000000000)},
  {32768, TSR_FLOAT64, 0, UINT64_C(0x40e0000000000000)},
  {-32769, TSR_FLOAT64, 0, UINT64_C(0xc0e0002000000000)},
  {2147483647, TSR_FLOAT64, 0, UINT64_C(0x41dfffffffc00000)},
  {INT64_C(2147483648), TSR_FLOAT64, 0, UINT64_C(0x41e0000000000000)},
  {INT64_C(-2147483649), TSR_FLOAT64, 0, UINT64_C(0xc1e0000000200000)},
  {65504, TSR_FLOAT64, 0, UINT64_C(0x40effc0000000000)},
  {65519, TSR_FLOAT64, 0, UINT64_C(0x40effde000000000)},
  {65520, TSR_FLOAT64, 0, UINT64_C(0x40effe0000000000)},
  {70000, TSR_FLOAT64, 0, UINT64_C(0x40f1170000000000)},
  {INT64_C(4611686018427387904), TSR_FLOAT64, 0, UINT64_C(0x43d0000000000000)},
  {INT64_MAX, TSR_FLOAT64, 0, UINT64_C(0x43e0000000000000)},
  {INT64_MIN, TSR_FLOAT64, 0, UINT64_C(0xc3e0000000000000)},
};
#define TSR_GF_NSET_INT (sizeof tsr_gf_set_ints / sizeof tsr_gf_set_ints[0])

/* torch.empty(sizes, memory_format=format).stride() */
typedef struct {
  int64_t ndim, sizes[6];
  tsr_memory_format format;
  int error;
  int64_t strides[6];
} tsr_gf_empty;
static const tsr_gf_empty tsr_gf_empties[] = {
  {0, {0}, TSR_CONTIGUOUS_FORMAT, 0, {0}},
  /* torch: required rank 4 tensor to use channels_last format */
  {0, {0}, TSR_CHANNELS_LAST, 1, {0}},
  /* torch: required rank 5 tensor to use channels_last_3d format */
  {0, {0}, TSR_CHANNELS_LAST_3D, 1, {0}},
  {1, {5}, TSR_CONTIGUOUS_FORMAT, 0, {1}},
  /* torch: required rank 4 tensor to use channels_last format */
  {1, {5}, TSR_CHANNELS_LAST, 1, {0}},
  /* torch: required rank 5 tensor to use channels_last_3d format */
  {1, {5}, TSR_CHANNELS_LAST_3D, 1, {0}},
  {2, {2, 3}, TSR_CONTIGUOUS_FORMAT, 0, {3, 1}},
  /* torch: required rank 4 tensor to use channels_last format */
  {2, {2, 3}, TSR_CHANNELS_LAST, 1, {0}},
  /* torch: required rank 5 tensor to use channels_last_3d format */
  {2, {2, 3}, TSR_CHANNELS_LAST_3D, 1, {0}},
  {3, {2, 3, 4}, TSR_CONTIGUOUS_FORMAT, 0, {12, 4, 1}},
  /* torch: required rank 4 tensor to use channels_last format */
  {3, {2, 3, 4}, TSR_CHANNELS_LAST, 1, {0}},
  /* torch: required rank 5 tensor to use channels_last_3d format */
  {3, {2, 3, 4}, TSR_CHANNELS_LAST_3D, 1, {0}},
  {4, {10, 3, 32, 32}, TSR_CONTIGUOUS_FORMAT, 0, {3072, 1024, 32, 1}},
  {4, {10, 3, 32, 32}, TSR_CHANNELS_LAST, 0, {3072, 1, 96, 3}},
  /* torch: required rank 5 tensor to use channels_last_3d format */
  {4, {10, 3, 32, 32}, TSR_CHANNELS_LAST_3D, 1, {0}},
  {4, {2, 1, 4, 5}, TSR_CONTIGUOUS_FORMAT, 0, {20, 20, 5, 1}},
  {4, {2, 1, 4, 5}, TSR_CHANNELS_LAST, 0, {20, 1, 5, 1}},
  /* torch: required rank 5 tensor to use channels_last_3d format */
  {4, {2, 1, 4, 5}, TSR_CHANNELS_LAST_3D, 1, {0}},
  {4, {2, 3, 1, 1}, TSR_CONTIGUOUS_FORMAT, 0, {3, 1, 1, 1}},
  {4, {2, 3, 1, 1}, TSR_CHANNELS_LAST, 0, {3, 1, 3, 3}},
  /* torch: required rank 5 tensor to use channels_last_3d format */
  {4, {2, 3, 1, 1}, TSR_CHANNELS_LAST_3D, 1, {0}},
  {4, {1, 1, 1, 1}, TSR_CONTIGUOUS_FORMAT, 0, {1, 1, 1, 1}},
  {4, {1, 1, 1, 1}, TSR_CHANNELS_LAST, 0, {1, 1, 1, 1}},
  /* torch: required rank 5 tensor to use channels_last_3d format */
  {4, {1, 1, 1, 1}, TSR_CHANNELS_LAST_3D, 1, {0}},
  {4, {0, 3, 0, 2}, TSR_CONTIGUOUS_FORMAT, 0, {6, 2, 2, 1}},
  {4, {0, 3, 0, 2}, TSR_CHANNELS_LAST, 0, {0, 1, 6, 3}},
  /* torch: required rank 5 tensor to use channels_last_3d format */
  {4, {0, 3, 0, 2}, TSR_CHANNELS_LAST_3D, 1, {0}},
  {4, {2, 0, 3, 4}, TSR_CONTIGUOUS_FORMAT, 0, {12, 12, 4, 1}},
  {4, {2, 0, 3, 4}, TSR_CHANNELS_LAST, 0, {0, 1, 0, 0}},
  /* torch: required rank 5 tensor to use channels_last_3d format */
  {4, {2, 0, 3, 4}, TSR_CHANNELS_LAST_3D, 1, {0}},
  {4, {2, 3, 0, 4}, TSR_CONTIGUOUS_FORMAT, 0, {12, 4, 4, 1}},
  {4, {2, 3, 0, 4}, TSR_CHANNELS_LAST, 0, {0, 1, 12, 3}},
  /* torch: required rank 5 tensor to use channels_last_3d format */
  {4, {2, 3, 0, 4}, TSR_CHANNELS_LAST_3D, 1, {0}},
  {5, {2, 3, 4, 5, 6}, TSR_CONTIGUOUS_FORMAT, 0, {360, 120, 30, 6, 1}},
  /* torch: required rank 4 tensor to use channels_last format */
  {5, {2, 3, 4, 5, 6}, TSR_CHANNELS_LAST, 1, {0}},
  {5, {2, 3, 4, 5, 6}, TSR_CHANNELS_LAST_3D, 0, {360, 1, 90, 18, 3}},
  {5, {2, 1, 1, 3, 1}, TSR_CONTIGUOUS_FORMAT, 0, {3, 3, 3, 1, 1}},
  /* torch: required rank 4 tensor to use channels_last format */
  {5, {2, 1, 1, 3, 1}, TSR_CHANNELS_LAST, 1, {0}},
  {5, {2, 1, 1, 3, 1}, TSR_CHANNELS_LAST_3D, 0, {3, 1, 3, 1, 1}},
  {5, {2, 0, 2, 3, 4}, TSR_CONTIGUOUS_FORMAT, 0, {24, 24, 12, 4, 1}},
  /* torch: required rank 4 tensor to use channels_last format */
  {5, {2, 0, 2, 3, 4}, TSR_CHANNELS_LAST, 1, {0}},
  {5, {2, 0, 2, 3, 4}, TSR_CHANNELS_LAST_3D, 0, {0, 1, 0, 0, 0}},
  {6, {1, 2, 3, 4, 5, 6}, TSR_CONTIGUOUS_FORMAT, 0, {720, 360, 120, 30, 6, 1}},
  /* torch: required rank 4 tensor to use channels_last format */
  {6, {1, 2, 3, 4, 5, 6}, TSR_CHANNELS_LAST, 1, {0}},
  /* torch: required rank 5 tensor to use channels_last_3d format */
  {6, {1, 2, 3, 4, 5, 6}, TSR_CHANNELS_LAST_3D, 1, {0}},
  {4, {32, 3, 224, 224}, TSR_CONTIGUOUS_FORMAT, 0, {150528, 50176, 224, 1}},
  {4, {32, 3, 224, 224}, TSR_CHANNELS_LAST, 0, {150528, 1, 672, 3}},
  /* torch: required rank 5 tensor to use channels_last_3d format */
  {4, {32, 3, 224, 224}, TSR_CHANNELS_LAST_3D, 1, {0}},
};
#define TSR_GF_NEMPTY (sizeof tsr_gf_empties / sizeof tsr_gf_empties[0])

/* torch.empty_strided(sizes, strides, dtype=dtype).storage().nbytes() */
typedef struct {
  int64_t ndim, sizes[3], strides[3];
  tsr_dtype dtype;
  int64_t storage_nbytes;
} tsr_gf_strided;
static const tsr_gf_strided tsr_gf_strideds[] = {
  {2, {2, 3}, {1, 2}, TSR_FLOAT32, 24},
  {2, {2, 3}, {1, 2}, TSR_INT16, 12},
  {2, {2, 3}, {3, 1}, TSR_FLOAT32, 24},
  {2, {2, 3}, {3, 1}, TSR_INT16, 12},
  {2, {2, 3}, {0, 1}, TSR_FLOAT32, 12},
  {2, {2, 3}, {0, 1}, TSR_INT16, 6},
  {2, {2, 3}, {0, 0}, TSR_FLOAT32, 4},
  {2, {2, 3}, {0, 0}, TSR_INT16, 2},
  {2, {2, 0}, {1, 2}, TSR_FLOAT32, 0},
  {2, {2, 0}, {1, 2}, TSR_INT16, 0},
  {1, {4}, {5}, TSR_FLOAT32, 64},
  {1, {4}, {5}, TSR_INT16, 32},
  {0, {0}, {0}, TSR_FLOAT32, 4},
  {0, {0}, {0}, TSR_INT16, 2},
  {2, {3, 3}, {1, 1}, TSR_FLOAT32, 20},
  {2, {3, 3}, {1, 1}, TSR_INT16, 10},
  {3, {2, 2, 2}, {100, 10, 1}, TSR_FLOAT32, 448},
  {3, {2, 2, 2}, {100, 10, 1}, TSR_INT16, 224},
  {2, {1, 5}, {1000, 1}, TSR_FLOAT32, 20},
  {2, {1, 5}, {1000, 1}, TSR_INT16, 10},
  {1, {0}, {7}, TSR_FLOAT32, 0},
  {1, {0}, {7}, TSR_INT16, 0},
};
#define TSR_GF_NSTRIDED (sizeof tsr_gf_strideds / sizeof tsr_gf_strideds[0])

/* torch.empty(0, dtype=dtype).element_size() */
typedef struct {
  tsr_dtype dtype;
  int64_t element_size;
} tsr_gf_dtype;
static const tsr_gf_dtype tsr_gf_dtypes[] = {
  {TSR_BOOL, 1},
  {TSR_UINT8, 1},
  {TSR_INT8, 1},
  {TSR_INT16, 2},
  {TSR_INT32, 4},
  {TSR_INT64, 8},
  {TSR_FLOAT16, 2},
  {TSR_BFLOAT16, 2},
  {TSR_FLOAT32, 4},
  {TSR_FLOAT64, 8},
};
#define TSR_GF_NDTYPES (sizeof tsr_gf_dtypes / sizeof tsr_gf_dtypes[0])

#endif
