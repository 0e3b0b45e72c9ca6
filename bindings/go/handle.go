package tessera

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// Tensor, Storage and Generator each keep one SWIG handle (capi.SwigcptrTensor,
// ...: a uintptr, 0 once released) in a small struct, because a uintptr cannot
// carry a finalizer and a struct can. own and release are that ownership,
// written once for the three: own when the handle arrives, release from Close,
// which is also the finalizer.

// own makes close (the type's Close) the finalizer of obj, so a handle that is
// never closed is released some time after obj becomes unreachable. It
// returns obj.
func own[T any](obj *T, close func(*T) error) *T {
	runtime.SetFinalizer(obj, close)
	return obj
}

// release deletes the handle *h holds with del and clears owner's finalizer,
// once: *h is swapped to 0 atomically, so when Close is called twice (or by
// two goroutines) only the first deletes. Later calls on owner see handle 0,
// which the library refuses as InvalidArgument.
func release[H ~uintptr](owner any, h *H, del func(H)) {
	if old := atomic.SwapUintptr((*uintptr)(unsafe.Pointer(h)), 0); old != 0 {
		runtime.SetFinalizer(owner, nil)
		del(H(old))
	}
}
