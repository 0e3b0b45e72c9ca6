package tessera

import (
	"runtime"
	"strings"
	"sync/atomic"

	"tessera.dev/tessera/internal/capi"
)

// Gradient checkpointing (include/tessera/checkpoint.h), as
// torch.utils.checkpoint with use_reentrant=False: between the begin and the
// end of a region, the ops this OS thread runs keep no activations for
// backward; backward recomputes them from the region's inputs, with the same
// gradients bit for bit, for about one extra forward of compute.
//
// Regions belong to the OS thread that began them, and nest. Goroutines move
// between threads, so WithCheckpoint and CheckpointRegion lock the calling
// goroutine to its thread (runtime.LockOSThread) until the region ends: run
// the region's ops on that goroutine (goroutines it starts are outside the
// region). Backward (or AutogradGrad) while a region is open on the thread
// fails with Autograd.

// CheckpointOption sets one option of a checkpoint region; without any, the
// region uses torch's defaults.
type CheckpointOption func(*checkpointOptions)

type checkpointOptions struct {
	preserveRNGState bool
	determinismCheck bool
	earlyStop        bool
	keepOps          []string
}

// PreserveRNGState (default true): random ops (Dropout) replay the same
// numbers when recomputed, so masks match (torch's preserve_rng_state).
// False: a replay draws fresh numbers.
func PreserveRNGState(on bool) CheckpointOption {
	return func(o *checkpointOptions) { o.preserveRNGState = on }
}

// DeterminismCheck (default true): recomputed sizes and dtypes must equal the
// first run's, else backward fails with Autograd naming the op.
func DeterminismCheck(on bool) CheckpointOption {
	return func(o *checkpointOptions) { o.determinismCheck = on }
}

// EarlyStop (default true): a replay stops once the tensors backward asked
// for exist; false replays the whole region.
func EarlyStop(on bool) CheckpointOption {
	return func(o *checkpointOptions) { o.earlyStop = on }
}

// KeepOps names ops (aten's: "matmul", "add", ...) whose outputs the region
// keeps instead of recomputing (selective checkpointing); none by default. An
// unknown name makes the region's begin fail with InvalidArgument naming it.
func KeepOps(names ...string) CheckpointOption {
	return func(o *checkpointOptions) { o.keepOps = append([]string(nil), names...) }
}

// CheckpointBegin opens a region on the current OS thread
// (tsr_checkpoint_begin) and nothing else: call it under
// runtime.LockOSThread and end the region with CheckpointEnd on the same
// thread. WithCheckpoint and CheckpointRegion do all of that for you.
// InvalidArgument for an unknown KeepOps name (nothing is opened then).
func CheckpointBegin(opts ...CheckpointOption) error {
	o := checkpointOptions{preserveRNGState: true, determinismCheck: true, earlyStop: true}
	for _, opt := range opts {
		opt(&o)
	}
	keep := strings.Join(o.keepOps, ",")
	if err := refuseNUL("KeepOps: an op name", keep); err != nil {
		return err
	}
	return do(func() { capi.Checkpoint_begin(o.preserveRNGState, o.determinismCheck, o.earlyStop, keep) })
}

// CheckpointEnd closes the current OS thread's innermost region
// (tsr_checkpoint_end). Autograd when none is open; nothing changes then.
func CheckpointEnd() error { return do(capi.Checkpoint_end) }

// CheckpointDepth is the number of regions open on the current OS thread (0
// outside any). Only meaningful under runtime.LockOSThread (or inside a
// region, which locks the thread).
func CheckpointDepth() int64 { return capi.Checkpoint_depth() }

// CheckpointRegion locks the calling goroutine to its OS thread and opens a
// region there; end closes it and unlocks the thread:
//
//	end, err := tessera.CheckpointRegion()
//	if err != nil {
//		return err
//	}
//	defer end()
//	h, err = block(h)
//
// Call end on the same goroutine. Only its first call ends the region (later
// ones return nil); it fails with Autograd when the region was already ended
// by CheckpointEnd. When CheckpointRegion fails, nothing is open, the thread
// is unlocked and end is a no-op.
func CheckpointRegion(opts ...CheckpointOption) (end func() error, err error) {
	runtime.LockOSThread()
	if err := CheckpointBegin(opts...); err != nil {
		runtime.UnlockOSThread()
		return func() error { return nil }, err
	}
	var ended int32
	return func() error {
		if !atomic.CompareAndSwapInt32(&ended, 0, 1) {
			return nil
		}
		defer runtime.UnlockOSThread()
		return CheckpointEnd()
	}, nil
}

// WithCheckpoint runs fn inside a region (torch.utils.checkpoint.checkpoint
// of fn) on the calling goroutine, locked to its OS thread meanwhile, and
// ends the region however fn returns: with an error (returned), nil, or a
// panic (which goes on after the region ended). The region's own failures
// (an unknown KeepOps name; fn ending the region itself) are returned when
// fn returned nil.
func WithCheckpoint(fn func() error, opts ...CheckpointOption) (err error) {
	end, err := CheckpointRegion(opts...)
	if err != nil {
		return err
	}
	defer func() {
		if endErr := end(); err == nil {
			err = endErr
		}
	}()
	return fn()
}

// GradOptions are AutogradGrad's optional arguments; the zero value is torch's
// defaults with retain_graph false.
type GradOptions struct {
	// GradOutputs weights each output: nil, or one entry per output, each nil
	// (ones: only for one-element outputs) or a tensor of that output's sizes.
	GradOutputs []*Tensor
	// RetainGraph keeps the graph for another backward (set it with
	// CreateGraph when the result is differentiated again: its graph runs
	// through this one).
	RetainGraph bool
	// CreateGraph records the backward itself, so the gradients require grad
	// and can be differentiated again (higher-order gradients).
	CreateGraph bool
	// AllowUnused gives a nil gradient to an input no output depends on,
	// instead of failing with Autograd.
	AllowUnused bool
}

// AutogradGrad is torch.autograd.grad: the gradients of outputs with respect
// to each of inputs, one new tensor per input (Close each), nil for unused
// inputs under AllowUnused. No Grad is read or written. Outputs and inputs
// must be non-empty and require grad.
// Errors: Autograd (an output or input that does not require grad, an unused
// input without AllowUnused, a checkpoint region open on this thread, a freed
// graph), ShapeMismatch (a GradOutputs entry of the wrong sizes),
// InvalidArgument (empty or nil-holding outputs/inputs, GradOutputs of the
// wrong length, a closed tensor).
func AutogradGrad(outputs, inputs []*Tensor, opts GradOptions) (grads []*Tensor, err error) {
	defer recoverFailure(&err)
	outs := capi.SwigcptrTensorList(capi.NewTensorList().Swigcptr())
	defer capi.DeleteTensorList(outs)
	fillList(outs, outputs, false)
	ins := capi.SwigcptrTensorList(capi.NewTensorList().Swigcptr())
	defer capi.DeleteTensorList(ins)
	fillList(ins, inputs, false)
	var gouts capi.SwigcptrTensorList // NULL: no grad_outputs
	if opts.GradOutputs != nil {
		gouts = capi.SwigcptrTensorList(capi.NewTensorList().Swigcptr())
		defer capi.DeleteTensorList(gouts)
		fillList(gouts, opts.GradOutputs, true)
	}
	list := capi.Autograd_grad(uintptr(outs), uintptr(ins), uintptr(gouts), opts.RetainGraph,
		opts.CreateGraph, opts.AllowUnused)
	return takeList(capi.SwigcptrTensorList(list))
}

// fillList appends a reference to each tensor to a wrapper TensorList; a nil
// entry is an empty slot when nilAllowed, else (like a closed tensor) the
// library's InvalidArgument, raised as a wrapper panic.
func fillList(list capi.SwigcptrTensorList, tensors []*Tensor, nilAllowed bool) {
	for _, t := range tensors {
		if t == nil && nilAllowed {
			list.Append_none()
		} else {
			list.Append(t.cptr(), "")
		}
		runtime.KeepAlive(t)
	}
}
