/* device.c — the digits example's device: the CPU or CUDA device 0. */
#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* tsr_to_device comes with include/tessera/device.h (devices and transfers).
 * A tessera without it still builds this example: --device cuda then stops
 * after tsr_cuda_init with the same exit status as without CUDA. */
#if defined(__has_include)
#if __has_include(<tessera/device.h>)
#include <tessera/device.h>
#define DIGITS_HAVE_TO_DEVICE 1
#endif
#endif

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
#ifndef DIGITS_HAVE_TO_DEVICE
  fprintf(stderr, "digits: CUDA is not available: this tessera has no tsr_to_device "
                  "(tessera/device.h)\n");
  exit(DIGITS_EXIT_NO_CUDA);
#endif
}

tsr_tensor* digits_to_device(const tsr_tensor* t, const digits_device* d) {
  if (tsr_tensor_device_type(t) == d->type && tsr_tensor_device_index(t) == d->index) {
    tsr_tensor_retain((tsr_tensor*)t);
    return (tsr_tensor*)t;
  }
#ifdef DIGITS_HAVE_TO_DEVICE
  tsr_tensor* moved = NULL;
  CHECK(tsr_to_device(t, d->type, d->index, false, &moved));
  return moved;
#else
  /* Unreachable: digits_device_require stopped without tsr_to_device. */
  fprintf(stderr, "digits: no tsr_to_device in this tessera\n");
  exit(DIGITS_EXIT_NO_CUDA);
#endif
}
