// A tensor's text the way Python's repr(torch.Tensor) writes it (PyTorch
// 1.13's torch/_tensor_str.py): values with torch's formatter (integer,
// fixed or scientific mode chosen from the printed values), summarised with
// "..." past `threshold` elements, then the suffixes torch adds (device,
// dtype, grad_fn / requires_grad).
#pragma once

#include <string>

#include "core/tensor.h"

namespace tsr {

// torch.set_printoptions's settings, with its defaults.
struct PrintOptions {
  int precision = 4;        // digits after the point
  int64_t threshold = 1000; // more elements than this are summarised
  int64_t edgeitems = 3;    // items kept at each end of a summarised dim
  int64_t linewidth = 80;   // characters per line before wrapping
  int sci_mode = -1;        // -1: chosen per tensor (torch's None); 0 off; 1 on
};

// What autograd and the device layer add after the values; the core knows
// neither, so the caller states them.
struct ReprSuffixes {
  std::string device;   // "cuda:0" for device='cuda:0', empty for host memory
  std::string grad_fn;  // "AddBackward0", or empty
  bool requires_grad = false;
};

// repr(t): host is t's values in host memory (t itself for CPU tensors),
// with t's sizes, strides and dtype.
std::string tensor_repr(const Tensor& host, const ReprSuffixes& suffixes, const PrintOptions& o);

}  // namespace tsr
