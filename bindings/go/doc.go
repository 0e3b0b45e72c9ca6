// Package tessera is the Go binding of tessera, tensors with PyTorch's
// semantics behind a stable C ABI.
//
//	x, err := tessera.Zeros([]int64{2, 3}, tessera.Float32)
//	if err != nil { ... }
//	defer x.Close()
//	xt, err := x.Transpose(0, 1) // a view: same storage, swapped strides
//
// # Errors
//
// Every call that can fail returns an error; a failure of the library is an
// *Error carrying the library's Status (NotViewable, ShapeMismatch, ...) and
// its message. No panic escapes the package: the generated wrapper
// (internal/capi) panics when a call fails and each method here recovers it.
// Which statuses a call returns, and when, is documented on the C function it
// wraps, in include/tessera/*.h: Transpose wraps tsr_transpose, AddInPlace
// tsr_add_, Item tsr_item_double, Save tsr_save, and so on. The binding adds
// only InvalidArgument for a string holding a NUL byte (C would cut it there)
// and OutOfMemory when its own copies (element arrays, names) cannot be made.
//
// # Releasing memory
//
// Every *Tensor, *Storage and *Generator a function returns is a new handle
// that the caller owns, views and Grad included (each holds its own
// reference). Handles hold native memory the Go garbage collector does not
// see. Close releases it at once and is idempotent; a Tensor that is
// never closed is released by a finalizer after it becomes unreachable, which
// may be much later (the collector runs on Go heap growth, not native memory).
// Close what you create in loops. Using a closed tensor returns the library's
// InvalidArgument error, never a crash. Views hold their own reference to the
// storage, so closing the base tensor leaves its views valid.
//
// # Grad mode and threads
//
// Grad mode (torch.no_grad) is per OS thread in the library, and goroutines
// move between OS threads. NoGrad therefore locks the calling goroutine to its
// thread for the duration of fn, so every call fn makes on that goroutine sees
// grad mode off; goroutines that fn starts do not. SetGradEnabled and
// IsGradEnabled act on the current thread only and mean something only under
// runtime.LockOSThread. Inference mode (torch.inference_mode) is per thread
// too, and InferenceMode locks the thread the same way. Anomaly detection
// (DetectAnomaly, SetDetectAnomaly) is process-wide.
//
// # Optional arguments
//
// A nil *Tensor is torch's None where an argument is optional (the bias of
// Linear, the weight and bias of LayerNorm); a closed one is InvalidArgument,
// never read as None. torch's defaults are spelled out: Gelu(x, GeluNone),
// LayerNorm(x, shape, nil, nil, 1e-5).
//
// # Concurrency
//
// Different tensors may be used from different goroutines at once. Writing one
// tensor from two goroutines needs the caller's lock, as in PyTorch. Close must
// not race with other calls on the same tensor.
package tessera
