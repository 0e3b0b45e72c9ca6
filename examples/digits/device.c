/* device.c — the digits example's device: the CPU or CUDA device 0. */
#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"


bool digits_device_parse(const char* name, digits_device* out) {
  if (strcmp(name, "cpu") == 0) {
    *out = (digits_device){TSR_DEVICE_CPU, 0, "cpu"};
    return true;
  }
  if (strcmp(name, "cuda") == 0) {
    *out = (digits_device){TSR_DEVICE_CUDA, 0, "cuda:0"};
    return true;
  }
  return false;
}

bool digits_device_is_cpu(const digits_device* d) { return d->type == TSR_DEVICE_CPU; }

void digits_device_require(const digits_device* d) {
  if (digits_device_is_cpu(d)) return;
  if (tsr_cuda_init() != TSR_OK) {
    fprintf(stderr, "digits: CUDA is not available: %s\n", tsr_last_error_message());
    exit(DIGITS_EXIT_NO_CUDA);
  }
}

tsr_tensor* digits_to_device(const tsr_tensor* t, const digits_device* d) {
  /* Already there: tsr_to_device hands back a new handle onto t itself. */
  tsr_tensor* moved = NULL;
  CHECK(tsr_to_device(t, d->type, d->index, false, &moved));
  return moved;
}
