#include "core/inference_mode.h"

namespace tsr {

namespace {
thread_local bool t_inference_mode = false;
}

bool is_inference_mode_enabled() { return t_inference_mode; }

bool set_inference_mode(bool enabled) {
  bool prev = t_inference_mode;
  t_inference_mode = enabled;
  return prev;
}

}  // namespace tsr
