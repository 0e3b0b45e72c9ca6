/* device.h — where the digits example trains: the CPU, or CUDA device 0
 * (--device cuda), and moving tensors there. */
#ifndef DIGITS_DEVICE_H
#define DIGITS_DEVICE_H

#include <stdbool.h>

#include <tessera/tessera.h>

/* Exit status of `digits --device cuda` where CUDA cannot be used. */
#define DIGITS_EXIT_NO_CUDA 3

typedef struct digits_device {
  tsr_device_type type; /* TSR_DEVICE_CPU or TSR_DEVICE_CUDA */
  int32_t index;
  const char* name; /* "cpu" or "cuda:0" */
} digits_device;

/* The device named by --device ("cpu" or "cuda"); false for another name. */
bool digits_device_parse(const char* name, digits_device* out);
/* For CUDA: torch.cuda.init(); where CUDA cannot be used, prints
 * "digits: CUDA is not available: <reason>" to stderr and exits with
 * DIGITS_EXIT_NO_CUDA. Does nothing for the CPU. */
void digits_device_require(const digits_device* d);
/* t on d (tensor.to(device)): a new handle, onto t itself when it is there
 * already. */
tsr_tensor* digits_to_device(const tsr_tensor* t, const digits_device* d);
/* Whether d is the CPU. */
bool digits_device_is_cpu(const digits_device* d);

#endif
