#include "autocast/state.h"

#include <vector>

#include "autocast/cast_cache.h"
#include "core/dtype.h"
#include "core/error.h"

namespace tsr::autocast {

namespace {

struct DeviceState {
  bool enabled = false;
  tsr_dtype dtype;
};

// What a region replaced, restored when it ends.
struct Region {
  tsr_device_type device_type;
  DeviceState previous;
};

struct ThreadState {
  DeviceState cpu{false, TSR_BFLOAT16};  // torch's defaults
  DeviceState cuda{false, TSR_FLOAT16};
  std::vector<Region> regions;
  bool cache_enabled = true;
  bool any_enabled() const { return cpu.enabled || cuda.enabled; }
};

thread_local ThreadState t_state;
// t_state.any_enabled(), kept in a plain bool: t_state holds a vector, so
// each access to it goes through the thread_local's init guard, while every
// listed op asks any_enabled() first.
thread_local bool t_any_enabled = false;

DeviceState* state_of(int device_type) {
  if (device_type == TSR_DEVICE_CPU) return &t_state.cpu;
  if (device_type == TSR_DEVICE_CUDA) return &t_state.cuda;
  return nullptr;
}

}  // namespace

void begin(int device_type, int dtype, bool enabled) {
  DeviceState* state = state_of(device_type);
  TSR_CHECK(state, TSR_ERR_INVALID_ARGUMENT,
            "autocast: device_type must be TSR_DEVICE_CPU or TSR_DEVICE_CUDA, got ", device_type);
  TSR_CHECK(dtype == TSR_BFLOAT16 || dtype == TSR_FLOAT16, TSR_ERR_INVALID_ARGUMENT,
            "autocast: the lower-precision dtype must be bfloat16 or float16, got ",
            is_valid_dtype(dtype) ? dtype_name(static_cast<tsr_dtype>(dtype)) : "an invalid dtype");
  t_state.regions.push_back({static_cast<tsr_device_type>(device_type), *state});
  *state = {enabled, static_cast<tsr_dtype>(dtype)};
  t_any_enabled = t_state.any_enabled();
}

void end() {
  TSR_CHECK(!t_state.regions.empty(), TSR_ERR_INVALID_ARGUMENT,
            "autocast: tsr_autocast_end without an open region on this thread");
  const Region region = t_state.regions.back();
  t_state.regions.pop_back();
  *state_of(region.device_type) = region.previous;
  t_any_enabled = t_state.any_enabled();
  if (t_state.regions.empty()) clear_cache();
}

bool any_enabled() { return t_any_enabled; }

bool enabled(int device_type) {
  const DeviceState* state = state_of(device_type);
  return state && state->enabled;
}

tsr_dtype lower_precision(int device_type) {
  const DeviceState* state = state_of(device_type);
  return state ? state->dtype : TSR_FLOAT32;
}

bool set_cache_enabled(bool enabled) {
  const bool previous = t_state.cache_enabled;
  t_state.cache_enabled = enabled;
  return previous;
}

bool cache_enabled() { return t_state.cache_enabled; }

}  // namespace tsr::autocast
