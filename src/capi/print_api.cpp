// C API: tsr_tensor_to_string (print.h).
#include <cstdlib>
#include <cstring>

#include <tessera/print.h>

#include "autograd/node.h"
#include "capi/barrier.h"
#include "capi/handles.h"
#include "capi/struct_size.h"
#include "core/tensor_repr.h"
#include "device/transfer.h"

using namespace tsr;
using namespace tsr::capi;

namespace {

PrintOptions print_options(const tsr_print_options* in) {
  PrintOptions o;
  if (!in) return o;
  const tsr_print_options defaults = TSR_PRINT_OPTIONS_INIT;
  const tsr_print_options c =
      read_struct(in, defaults, TSR_FIRST_VERSION_SIZE(tsr_print_options, precision),
                  "print options", "tsr_print_options");
  TSR_CHECK(c.precision >= 0 && c.precision <= 50, TSR_ERR_INVALID_ARGUMENT,
            "print options: precision ", c.precision, " is outside 0..50");
  TSR_CHECK(c.threshold >= 0, TSR_ERR_INVALID_ARGUMENT, "print options: threshold ", c.threshold,
            " is negative");
  // torch 1.13 fails summarising a 2-D tensor with edgeitems 0 ("stack
  // expects a non-empty TensorList") and prints all of a 1-D one.
  TSR_CHECK(c.edgeitems >= 1, TSR_ERR_INVALID_ARGUMENT, "print options: edgeitems ", c.edgeitems,
            " is less than 1");
  TSR_CHECK(c.linewidth >= 1, TSR_ERR_INVALID_ARGUMENT, "print options: linewidth ", c.linewidth,
            " is less than 1");
  TSR_CHECK(c.sci_mode >= -1 && c.sci_mode <= 1, TSR_ERR_INVALID_ARGUMENT,
            "print options: sci_mode ", c.sci_mode, " is not -1 (auto), 0 or 1");
  o.precision = c.precision;
  o.threshold = c.threshold;
  o.edgeitems = c.edgeitems;
  o.linewidth = c.linewidth;
  o.sci_mode = c.sci_mode;
  return o;
}

// torch prints device= for anything but the CPU; pinned host memory is a
// CPU tensor to torch.
std::string device_suffix(const Tensor& t) {
  const Device d = t.device();
  return d.type == TSR_DEVICE_CPU || d.type == TSR_DEVICE_CUDA_HOST ? "" : device_name(d);
}

}  // namespace

TSR_EXTERN tsr_status tsr_tensor_to_string(const tsr_tensor* t, const tsr_print_options* options,
                                           char** text) {
  return guarded([&] {
    const Tensor& x = tensor_of(t);
    require(text, "text");
    const PrintOptions o = print_options(options);
    ReprSuffixes extra;
    extra.device = device_suffix(x);
    const auto& fn = autograd::grad_fn(x);
    if (fn) extra.grad_fn = fn->name();
    extra.requires_grad = autograd::requires_grad(x);
    const std::string s = tensor_repr(device::readable_on_host(x), extra, o);
    char* p = static_cast<char*>(std::malloc(s.size() + 1));
    TSR_CHECK(p, TSR_ERR_OUT_OF_MEMORY, "out of memory for a string of ", s.size(), " bytes");
    std::memcpy(p, s.c_str(), s.size() + 1);
    *text = p;
  });
}
