/* Pins every enum value and the version functions: the ABI must not move. */
#include <stdio.h>

#include "helpers.h"

Test(abi, status_values_are_pinned) {
  cr_assert_eq(TSR_OK, 0);
  cr_assert_eq(TSR_ERR_INVALID_ARGUMENT, 1);
  cr_assert_eq(TSR_ERR_SHAPE_MISMATCH, 2);
  cr_assert_eq(TSR_ERR_DTYPE_MISMATCH, 3);
  cr_assert_eq(TSR_ERR_DEVICE_MISMATCH, 4);
  cr_assert_eq(TSR_ERR_OUT_OF_MEMORY, 5);
  cr_assert_eq(TSR_ERR_NOT_VIEWABLE, 6);
  cr_assert_eq(TSR_ERR_AUTOGRAD, 7);
  cr_assert_eq(TSR_ERR_IO, 8);
  cr_assert_eq(TSR_ERR_CORRUPT_FILE, 9);
  cr_assert_eq(TSR_ERR_UNSUPPORTED, 10);
  cr_assert_eq(TSR_ERR_INTERNAL, 11);
  cr_assert_eq(TSR_ERR_INDEX_OUT_OF_RANGE, 12);
  cr_assert_eq(TSR_ERR_CANCELLED, 13);
  cr_assert_eq(TSR_ERR_DISTRIBUTED, 14);
}

Test(abi, dtype_values_match_c10_scalar_type) {
  cr_assert_eq(TSR_UINT8, 0);
  cr_assert_eq(TSR_INT8, 1);
  cr_assert_eq(TSR_INT16, 2);
  cr_assert_eq(TSR_INT32, 3);
  cr_assert_eq(TSR_INT64, 4);
  cr_assert_eq(TSR_FLOAT16, 5);
  cr_assert_eq(TSR_FLOAT32, 6);
  cr_assert_eq(TSR_FLOAT64, 7);
  cr_assert_eq(TSR_BOOL, 11);
  cr_assert_eq(TSR_BFLOAT16, 15);
  cr_assert_eq(TSR_FLOAT8_E5M2, 23);
  cr_assert_eq(TSR_FLOAT8_E4M3FN, 24);
  cr_assert_eq(TSR_UINT16, 27);
  cr_assert_eq(TSR_UINT32, 28);
  cr_assert_eq(TSR_UINT64, 29);
}

Test(abi, device_values_match_dlpack) {
  cr_assert_eq(TSR_DEVICE_CPU, 1);  /* kDLCPU */
  cr_assert_eq(TSR_DEVICE_CUDA, 2); /* kDLCUDA */
}

Test(abi, memory_format_values_match_c10) {
  cr_assert_eq(TSR_CONTIGUOUS_FORMAT, 0);
  cr_assert_eq(TSR_PRESERVE_FORMAT, 1);
  cr_assert_eq(TSR_CHANNELS_LAST, 2);
  cr_assert_eq(TSR_CHANNELS_LAST_3D, 3);
}

Test(abi, runtime_version_matches_header) {
  cr_assert_eq(tsr_version_number(), TSR_VERSION_NUMBER);
  cr_assert_eq(TSR_VERSION_NUMBER,
               TSR_VERSION_MAJOR * 10000 + TSR_VERSION_MINOR * 100 + TSR_VERSION_PATCH);
  char expect[32];
  snprintf(expect, sizeof expect, "%d.%d.%d", TSR_VERSION_MAJOR, TSR_VERSION_MINOR,
           TSR_VERSION_PATCH);
  cr_assert_str_eq(tsr_version_string(), expect);
}

Test(abi, status_and_dtype_names) {
  cr_assert_str_eq(tsr_status_name(TSR_ERR_NOT_VIEWABLE), "TSR_ERR_NOT_VIEWABLE");
  cr_assert_str_eq(tsr_status_name((tsr_status)999), "TSR_UNKNOWN_STATUS");
  cr_assert_str_eq(tsr_dtype_name(TSR_BFLOAT16), "bfloat16");
  cr_assert_str_eq(tsr_dtype_name(TSR_UINT16), "uint16");
  cr_assert_str_eq(tsr_dtype_name(TSR_UINT32), "uint32");
  cr_assert_str_eq(tsr_dtype_name(TSR_UINT64), "uint64");
  cr_assert_str_eq(tsr_dtype_name(TSR_FLOAT8_E4M3FN), "float8_e4m3fn");
  cr_assert_str_eq(tsr_dtype_name(TSR_FLOAT8_E5M2), "float8_e5m2");
  cr_assert_null(tsr_dtype_name((tsr_dtype)26)); /* c10's other numbers stay invalid */
  cr_assert_null(tsr_dtype_name((tsr_dtype)42));
}
