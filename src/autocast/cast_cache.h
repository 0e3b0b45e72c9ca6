// The weight-cast cache of autocast regions (torch's cached_cast): the
// lower-precision copy of a float32 leaf that requires grad, made once per
// region nest and reused by every op that reads the weight, so a weight used
// by several ops (a tied embedding, a loop over time steps) is cast once.
//
// Keyed by the source's TensorImpl, with a weak reference that proves the key
// still names the same tensor (an address can be reused after a free) and
// the source's version: a weight written in place since (an optimizer step
// inside the region) misses and is cast again, where torch would hand back
// the stale copy.
#pragma once

#include <tessera/types.h>

#include "core/tensor.h"

namespace tsr::autocast {

// The cached copy of `source` in `dtype`, or an undefined tensor.
Tensor cached_cast(const Tensor& source, tsr_dtype dtype);
void remember_cast(const Tensor& source, const Tensor& cast);
void clear_cache();

}  // namespace tsr::autocast
