// Thread-local inference mode (torch.inference_mode). While it is on, new
// tensors are inference tensors: no version counter (in-place writes are
// not counted) and never saved for backward; autograd records nothing
// (grad mode is off inside it, see autograd/grad_mode.cpp). Views share
// their base's kind, through the shared VersionCounter.
#pragma once

namespace tsr {

bool is_inference_mode_enabled();
// Sets the mode for this thread and returns the previous one.
bool set_inference_mode(bool enabled);

}  // namespace tsr
