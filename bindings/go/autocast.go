package tessera

import (
	"runtime"
	"sync/atomic"

	"tessera.dev/tessera/internal/capi"
)

// Autocast opens a torch.autocast(device, dtype, enabled) region
// (include/tessera/autocast.h) on the calling goroutine, locked to its OS
// thread (autocast state is per thread), and returns end, which closes it
// and unlocks the thread:
//
//	end, err := tessera.Autocast(tessera.DeviceCPU, tessera.BFloat16, true)
//	if err != nil {
//		return err
//	}
//	defer end()
//	y, err := model.Forward(x) // bfloat16 matmuls
//
// Inside, ops on device's tensors follow torch 1.13's cast policy; enabled
// false turns autocast off (inside an enabled region, say). Regions nest;
// call end on the same goroutine, innermost first. Only end's first call
// closes the region. When Autocast fails (InvalidArgument for a device type
// or dtype autocast does not take), nothing is open, the thread is unlocked
// and end is a no-op.
func Autocast(device DeviceType, dtype DType, enabled bool) (end func() error, err error) {
	runtime.LockOSThread()
	err = do(func() {
		capi.Autocast_begin(capi.Enum_SS_tsr_device_type(device), capi.Enum_SS_tsr_dtype(dtype), enabled)
	})
	if err != nil {
		runtime.UnlockOSThread()
		return func() error { return nil }, err
	}
	var ended int32
	return func() error {
		if !atomic.CompareAndSwapInt32(&ended, 0, 1) {
			return nil
		}
		defer runtime.UnlockOSThread()
		return do(capi.Autocast_end)
	}, nil
}

// IsAutocastEnabled says whether ops on device's tensors are autocast on the
// current OS thread (torch.is_autocast_cpu_enabled). Only meaningful under
// runtime.LockOSThread (or inside an Autocast region, which locks the
// thread).
func IsAutocastEnabled(device DeviceType) bool {
	return capi.Is_autocast_enabled(capi.Enum_SS_tsr_device_type(device))
}

// AutocastDType is the lower-precision dtype of device's autocast on the
// current OS thread (torch.get_autocast_cpu_dtype): BFloat16 for the CPU and
// Float16 for CUDA outside any region.
func AutocastDType(device DeviceType) DType {
	return DType(capi.Get_autocast_dtype(capi.Enum_SS_tsr_device_type(device)))
}
