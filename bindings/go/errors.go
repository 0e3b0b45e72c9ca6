package tessera

import (
	"errors"
	"fmt"

	"tessera.dev/tessera/internal/capi"
)

// Status is the library's tsr_status: what went wrong, for callers that
// handle some failures differently.
type Status int

// The values of tsr_status (include/tessera/types.h).
const (
	OK              Status = 0
	InvalidArgument Status = 1  // NULL or closed handle, bad dim, bad enum, overflow
	ShapeMismatch   Status = 2  // sizes that do not broadcast or match
	DTypeMismatch   Status = 3  // dtype not accepted by the operation
	DeviceMismatch  Status = 4  // tensors on different devices
	OutOfMemory     Status = 5  // an allocation failed
	NotViewable     Status = 6  // a view would need a copy: use Reshape
	Autograd        Status = 7  // autograd misuse
	IOError         Status = 8  // open/read/write/rename failed
	CorruptFile     Status = 9  // truncated, inconsistent or crafted file
	Unsupported     Status = 10 // valid request this build cannot do
	Internal        Status = 11 // a bug in tessera
	IndexOutOfRange Status = 12 // element index outside the sizes
	Cancelled       Status = 13 // a progress callback stopped a save or load
	Distributed     Status = 14 // a collective or the rendezvous failed (a peer died or hung)
)

// String is the library's name for the status, e.g. "TSR_ERR_NOT_VIEWABLE".
func (s Status) String() string {
	return capi.Status_name(capi.Enum_SS_tsr_status(s))
}

// Error is a failure reported by the library (or detected by this package
// before calling it).
type Error struct {
	status  Status
	message string
	cause   error // the Go error behind the failure (Unwrap), or nil
}

// Unwrap is the Go error behind the failure: what a Function's Forward or
// Backward returned (or a *FunctionPanic), or the *ProgressPanic of a
// Cancelled error when the progress callback panicked; nil otherwise.
func (e *Error) Unwrap() error { return e.cause }

// Status says what kind of failure this is.
func (e *Error) Status() Status { return e.status }

// Message is the library's message, e.g. "view size is not compatible with
// input tensor's size and stride ...".
func (e *Error) Message() string { return e.message }

func (e *Error) Error() string {
	return fmt.Sprintf("tessera: %s (%v)", e.message, e.status)
}

// StatusOf is the Status of err: OK for nil, the status of a wrapped *Error,
// and Internal for any other error.
func StatusOf(err error) Status {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.status
	}
	return Internal
}

func newError(status Status, message string) *Error {
	return &Error{status: status, message: message}
}

// recoverFailure, deferred by every call into the wrapper, turns the panic a
// failing wrapper raises (a *capi.Failure) into an *Error in *err. Any other
// panic is a bug and goes on.
func recoverFailure(err *error) {
	if r := recover(); r != nil {
		f, ok := r.(*capi.Failure)
		if !ok {
			panic(r)
		}
		*err = &Error{status: Status(f.Status), message: f.Message, cause: f.Cause}
	}
}

// call runs f (one wrapper call) and returns its result or its failure.
func call[T any](f func() T) (out T, err error) {
	defer recoverFailure(&err)
	return f(), nil
}

// do runs f (one wrapper call without a result) and returns its failure.
func do(f func()) (err error) {
	defer recoverFailure(&err)
	f()
	return nil
}
