// Where autocast happens: each op in torch's autocast lists calls
// cast_inputs() with its name first thing, before it checks dtypes or builds
// its primitive (torch's Autocast dispatch keys run before the kernel too).
// The casts are recorded ops like any other (ToCopyBackward0), so they are on
// a checkpoint region's tape and replay as the forward ran them.
#pragma once

#include <string_view>

#include "core/tensor.h"

namespace tsr::autocast {

// The inputs cast for `op` under this thread's autocast state: as given
// when no region covers their device type, when the op has no policy there,
// or when nothing needs a cast. Undefined tensors (an absent weight) stay
// undefined; integer, bool and float64 tensors are never cast.
TensorList cast_inputs(std::string_view op, const TensorList& inputs);

}  // namespace tsr::autocast
