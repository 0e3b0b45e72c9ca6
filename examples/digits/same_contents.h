/* same_contents.h — whether two tensors hold the same dtype, sizes and
 * bytes (read in logical order through tsr_copy_to_buffer, whatever their
 * strides or device): how the examples check that a reloaded model or a
 * checkpointed gradient is bit-identical. Shared by examples/digits and
 * examples/fashion (which builds with -I../digits). */
#ifndef EXAMPLES_SAME_CONTENTS_H
#define EXAMPLES_SAME_CONTENTS_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <tessera/tessera.h>

#include "check.h"

static inline bool same_contents(const tsr_tensor* a, const tsr_tensor* b) {
  int64_t ndim = tsr_tensor_ndim(a);
  if (tsr_tensor_dtype(a) != tsr_tensor_dtype(b) || ndim != tsr_tensor_ndim(b) ||
      memcmp(tsr_tensor_sizes(a), tsr_tensor_sizes(b), (size_t)ndim * sizeof(int64_t)) != 0)
    return false;
  size_t nbytes = (size_t)tsr_tensor_nbytes(a);
  char* pa = malloc(nbytes ? nbytes : 1);
  char* pb = malloc(nbytes ? nbytes : 1);
  if (!pa || !pb) exit(EXIT_FAILURE);
  CHECK(tsr_copy_to_buffer(a, pa, nbytes, NULL));
  CHECK(tsr_copy_to_buffer(b, pb, nbytes, NULL));
  bool same = memcmp(pa, pb, nbytes) == 0;
  free(pa);
  free(pb);
  return same;
}

#endif
