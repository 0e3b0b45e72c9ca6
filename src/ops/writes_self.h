// The primitives of ops that write into self (scatter, index_put,
// masked_fill, index_add, ...), each in two forms: in place (torch's
// trailing underscore: input 0 is written, its version bumped, and it is
// output 0) or out of place (a copy of self, preserving its layout, is
// written and returned). One class per op serves both, as in torch the
// out-of-place op is clone + the in-place one with the same grad_fn.
#pragma once

#include "core/factory.h"
#include "cpu/kernels/copy.h"
#include "device/device_ops.h"
#include "ops/grad_util.h"
#include "ops/inplace.h"

namespace tsr::ops {

class WritesSelf : public prim::Primitive {
 public:
  explicit WritesSelf(bool inplace) : inplace_(inplace) {}
  int inplace_input() const override { return inplace_ ? 0 : -1; }
  std::vector<prim::TensorMeta> output_meta(const prim::Tensors& in) const override {
    check(in);
    return {prim::meta_of(in[0])};
  }
  prim::Tensors eval_cpu(const prim::Tensors& in) override {
    check(in);
    Tensor self = in[0];
    if (inplace_) {
      check_inplace_allowed(self, op());
    } else {
      self = empty_like(in[0]);
      kernels::copy_strided(self, in[0]);
    }
    write(self, in);
    if (inplace_) self.bump_version();
    return {self};
  }
  // The same on another device: self (or its copy, preserving its layout)
  // written by write_device; ops without one say they have no kernel there.
  prim::Tensors eval_device(const prim::Tensors& in, DeviceKernels& k) override {
    if (!writes_on_devices()) return prim::Primitive::eval_device(in, k);
    check(in);
    Tensor self = in[0];
    if (inplace_) check_inplace_allowed(self, op());
    else self = device::copy(k, in[0], in[0].dtype(), TSR_PRESERVE_FORMAT);
    write_device(self, in, k);
    if (inplace_) self.bump_version();
    return {self};
  }

 protected:
  // Argument checks that need no values (dtypes, shapes): the shape rule
  // runs them too. The kernels check index values before writing.
  virtual void check(const prim::Tensors&) const {}
  virtual void write(const Tensor& self, const prim::Tensors& in) = 0;
  // The device half (src/device/): true when write_device is implemented.
  virtual bool writes_on_devices() const { return false; }
  virtual void write_device(const Tensor&, const prim::Tensors&, DeviceKernels&) {}
  // An input the write reads: refused when it shares memory with self,
  // as torch's assert_no_overlap (the result would depend on the order of
  // the writes).
  const Tensor& source(const Tensor& self, const Tensor& t) const {
    TSR_CHECK(!inplace_ || !kernels::may_overlap(self, t), TSR_ERR_INVALID_ARGUMENT,
              "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
              "single memory location. Please clone() the tensor before performing the operation.");
    return t;
  }
  bool inplace_;
};

}  // namespace tsr::ops
