package tessera

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"

	"tessera.dev/tessera/internal/capi"
)

// FunctionPanic is what a Function's Forward or Backward panicked with: the
// call that ran it fails with an *Error wrapping this (errors.As), and
// errors.Is finds the panic value when it was an error.
type FunctionPanic struct {
	Function string // the Function's Name
	Phase    string // "forward" or "backward"
	Value    any    // what it panicked with
	Stack    []byte // the panicking goroutine's stack, for debugging
}

// Error is the panic value; the library prefixes "<Name>.<phase>: ".
func (p *FunctionPanic) Error() string { return fmt.Sprintf("panic: %v", p.Value) }

// Unwrap is the panic value when it was an error.
func (p *FunctionPanic) Unwrap() error {
	if err, ok := p.Value.(error); ok {
		return err
	}
	return nil
}

// application is one Apply's state, which the library holds (user_data)
// until the node and checkpoint tape that call back are gone. It implements
// capi.FunctionCallbacks: each call wraps the handles as lent tensors, runs
// the user's method inline (on the callback's goroutine and OS thread), and
// turns its error or panic into a failure, so nothing unwinds into C.
type application struct {
	fn   Function
	name string
}

func (a *application) Forward(ctx uintptr, inputs, outputs []uintptr) (n int, failure *capi.Failure) {
	c := &FunctionContext{handle: ctx}
	defer c.end()
	defer a.recoverPanic("forward", &failure)
	result, err := a.fn.Forward(c, c.lend(inputs))
	if err != nil {
		closeAll(result)
		return 0, callbackError(err)
	}
	if len(result) > len(outputs) {
		closeAll(result)
		return 0, &capi.Failure{Status: int(InvalidArgument),
			Message: fmt.Sprintf("returned %d outputs; at most %d", len(result), len(outputs))}
	}
	if f := handOver("output", result, outputs); f != nil {
		return 0, f
	}
	return len(result), nil
}

func (a *application) Backward(ctx uintptr, gradOutputs, gradInputs []uintptr) (failure *capi.Failure) {
	c := &FunctionContext{handle: ctx}
	defer c.end()
	defer a.recoverPanic("backward", &failure)
	grads, err := a.fn.Backward(c, c.lend(gradOutputs))
	if err != nil {
		closeAll(grads)
		return callbackError(err)
	}
	if len(grads) != len(gradInputs) {
		closeAll(grads)
		// torch's message
		return &capi.Failure{Status: int(InvalidArgument), Message: fmt.Sprintf(
			"function %sBackward returned an incorrect number of gradients (expected %d, got %d)",
			a.name, len(gradInputs), len(grads))}
	}
	return handOver("gradient", grads, gradInputs)
}

// handOver writes a new reference to each tensor into slots (0 for nil)
// and closes the tensors: the callback handed them over. A closed one is a
// failure (nothing is written then).
func handOver(what string, tensors []*Tensor, slots []uintptr) *capi.Failure {
	defer closeAll(tensors)
	hs, err := tensorHandles(what, tensors)
	if err == nil {
		err = do(func() { capi.Retain_tensors(hs) })
	}
	runtime.KeepAlive(tensors)
	if err != nil {
		return callbackError(err)
	}
	copy(slots, hs)
	return nil
}

// closeAll closes what a callback returned, also with its error: it was
// handed over either way.
func closeAll(tensors []*Tensor) {
	for _, t := range tensors {
		t.Close()
	}
}

// callbackError is the failure a callback's error becomes: its tessera
// status when it is or wraps an *Error (a tessera call inside failed), else
// InvalidArgument (as the Python binding's exceptions); the message is the
// error's text.
func callbackError(err error) *capi.Failure {
	status, message := InvalidArgument, err.Error()
	var e *Error
	if errors.As(err, &e) && e.status != OK {
		status = e.status
		if e == err {
			message = e.message // not "tessera: ... (status)" again
		}
	}
	return &capi.Failure{Status: int(status), Message: message, Cause: err}
}

// recoverPanic turns a panic of the user's method into a failure.
func (a *application) recoverPanic(phase string, failure **capi.Failure) {
	if r := recover(); r != nil {
		p := &FunctionPanic{Function: a.name, Phase: phase, Value: r, Stack: debug.Stack()}
		*failure = &capi.Failure{Status: int(InvalidArgument), Message: p.Error(), Cause: p}
	}
}
