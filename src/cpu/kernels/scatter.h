// The scatter family on CPU tensors, in place (no autograd): scatter_ (of a
// tensor or a value, with the legacy reduce "add" / "multiply"),
// scatter_add_, scatter_reduce_ (sum, prod, mean, amax, amin, with or
// without self), and the index_* updates along one dim: index_add_,
// index_copy_, index_fill_. Every check (dtypes, shapes, every index) runs
// before anything is written; messages are torch 1.13's.
#pragma once

#include <vector>

#include "core/tensor.h"

namespace tsr::kernels {

enum class ScatterReduce { Assign, Sum, Prod, Mean, Amax, Amin };

// torch's scatter_gather checks for self.op(dim, index, src): index int64,
// as many dims as self (and src), index no larger than src anywhere and
// than self outside dim; src (when given) of self's dtype.
void check_scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src, const char* op);

// self.scatter_reduce_(dim, index, src, reduce, include_self); Assign is
// scatter_, Sum scatter_add_. src is read at index's positions (it may be
// larger); a 0-stride src is how a value is scattered. Integers wrap,
// NaN propagates through amax/amin, mean of integers rounds down (floor),
// as torch.
void scatter_into(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduce reduce,
                  bool include_self);

// The one-dim updates: index 0-/1-D int64 (int32 too for index_add_ /
// index_fill_), source's size along dim == index's numel and self's
// sizes elsewhere. index_add_ adds alpha * source, index_copy_ copies
// (the last of repeated indices wins), index_fill_ writes value.
void index_add_into(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, double alpha);
void index_copy_into(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
void index_fill_into(const Tensor& self, int64_t dim, const Tensor& index, double value);

// The checks of the three, in the order the kernels above run them (a
// device runs them too, then checks the index values on the device and,
// when one is bad, calls the value check on a host copy for the message):
// the dtypes; check_index_update (index_add_ / index_copy_: index 0-/1-D,
// shapes; returns the wrapped dim); checked_indices (every value in [0,
// size), torch's message for op, `bare` for index_add_'s); index_fill_'s
// dtype / dim checks (returns the wrapped dim) and its value check
// (negative values count from the end).
void check_index_add_args(const Tensor& self, const Tensor& index, const Tensor& source);
void check_index_copy_args(const Tensor& self, const Tensor& index, const Tensor& source);
int64_t check_index_update(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                           const char* op);
std::vector<int64_t> checked_indices(const Tensor& index, int64_t dim, int64_t size, const char* op, bool bare);
int64_t check_index_fill_args(const Tensor& self, int64_t dim, const Tensor& index);
void check_index_fill_value(int64_t i, int64_t dim, int64_t size);

}  // namespace tsr::kernels
