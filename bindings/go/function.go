package tessera

import (
	"fmt"
	"runtime"

	"tessera.dev/tessera/internal/capi"
)

// Function is a custom differentiable function (torch.autograd.Function,
// include/tessera/function.h): Apply runs Forward and, when an input
// requires grad, records one node (grad_fn "<Name>Backward") whose
// backward calls Backward.
//
// Forward gets the inputs and returns the outputs (at least one). It runs
// with grad mode off, so the tessera ops it calls record no history; inside
// a checkpoint region it is recomputed as one unit during backward (its side
// effects happen again). Backward gets one gradient per output (zeros for an
// output whose gradient was never computed, or nil after
// SetMaterializeGrads(false)) and returns one gradient per input, of that
// input's sizes and dtype, nil for none. Under create_graph, the ops
// Backward calls record history (double backward).
//
// Ownership: the tensors a callback receives (inputs, gradOutputs,
// SavedTensors) are lent for the call and closed when it returns (keep one
// with Clone); the tensors it returns are handed over, also with an error:
// the package gives the library its own reference and closes them. Return
// an input itself after writing to it in place, with MarkDirty.
//
// Both run on the goroutine that called Apply, or that runs the backward
// pass, locked to its OS thread for the call: tessera's grad mode and
// checkpoint regions are per thread, so do the work on that goroutine (ops
// run from goroutines it starts see the wrong modes). A returned error, or a
// panic, fails the call that ran the callback (Apply, Backward,
// AutogradGrad) with an *Error whose Unwrap is that error (a *FunctionPanic
// for a panic). The callbacks must not call runtime.Goexit (t.FailNow):
// that would unwind through the library's C++ frames.
type Function interface {
	// Name names the function: grad_fn "<Name>Backward", profiler rows,
	// messages "<Name>.forward: ...". Not empty; no NUL.
	Name() string
	Forward(ctx *FunctionContext, inputs []*Tensor) ([]*Tensor, error)
	Backward(ctx *FunctionContext, gradOutputs []*Tensor) ([]*Tensor, error)
}

// maxFunctionTensors is the library's limit on a function's inputs and
// outputs (function.h: 0..64 inputs, 1..64 outputs).
const maxFunctionTensors = 64

// Apply runs f on inputs (torch's Function.apply): new tensors for the
// outputs Forward returned; an output that is an input marked dirty is a new
// handle to that input. A nil input is "no tensor" (Forward sees nil, its
// gradient is nil); a closed one is InvalidArgument. Failures: f's own
// (see Function), InvalidArgument for an empty name, more than 64 inputs,
// or what Forward returned (no output, more than 64, nil or closed ones, a
// dirty tensor that is not output 0), Autograd for a dirty leaf that
// requires grad; nothing is recorded then.
func Apply(f Function, inputs ...*Tensor) (outputs []*Tensor, err error) {
	if f == nil {
		return nil, newError(InvalidArgument, "Apply: the Function is nil")
	}
	name := f.Name()
	if err := refuseNUL("Apply: the Function's Name", name); err != nil {
		return nil, err
	}
	in, err := tensorHandles("Apply: input", inputs)
	if err != nil {
		return nil, err
	}
	app := &application{fn: f, name: name}
	out := make([]uintptr, maxFunctionTensors)
	var n int64
	err = do(func() { n = capi.Function_apply(capi.NewFunction(app), name, in, out) })
	runtime.KeepAlive(inputs)
	if err != nil {
		return nil, err
	}
	outputs = make([]*Tensor, n)
	for i := range outputs {
		outputs[i] = newTensor(out[i])
	}
	return outputs, nil
}

// tensorHandles is the handle of each tensor for a call taking a list: 0 for
// nil (no tensor); a closed tensor is InvalidArgument (what names it).
func tensorHandles(what string, tensors []*Tensor) ([]uintptr, error) {
	hs := make([]uintptr, len(tensors))
	for i, t := range tensors {
		if t != nil && t.c() == 0 {
			return nil, newError(InvalidArgument, fmt.Sprintf("%s %d is closed", what, i))
		}
		hs[i] = t.cptr()
	}
	return hs, nil
}
