package tessera

import (
	"runtime"

	"tessera.dev/tessera/internal/capi"
)

// FunctionContext is torch's ctx for one call of a Function's Forward or
// Backward: valid only during that call (afterwards each method fails with
// InvalidArgument). What Forward saves with SaveForBackward, its Backward
// gets from SavedTensors, also when the call is a checkpoint replay.
type FunctionContext struct {
	handle uintptr   // the library's tsr_function_ctx; 0 once the call returned
	lent   []*Tensor // tensors handed to the callback, closed when it returns
}

// lend wraps handles the callback gets (each a reference of its own, 0 for
// none) as tensors closed when the call ends.
func (c *FunctionContext) lend(handles []uintptr) []*Tensor {
	tensors := make([]*Tensor, len(handles))
	for i, h := range handles {
		tensors[i] = newTensor(h)
		if tensors[i] != nil {
			c.lent = append(c.lent, tensors[i])
		}
	}
	return tensors
}

// end invalidates c and closes what it lent.
func (c *FunctionContext) end() {
	c.handle = 0
	for _, t := range c.lent {
		t.Close()
	}
	c.lent = nil
}

// live is the library's context, or InvalidArgument outside the call.
func (c *FunctionContext) live(method string) (uintptr, error) {
	if c == nil || c.handle == 0 {
		return 0, newError(InvalidArgument, "FunctionContext."+method+
			": the context is only valid during its Forward or Backward")
	}
	return c.handle, nil
}

// withTensors runs f on c's handle and the tensors' handles (nil: no
// tensor; closed: InvalidArgument).
func (c *FunctionContext) withTensors(method string, tensors []*Tensor, f func(ctx uintptr, hs []uintptr)) error {
	ctx, err := c.live(method)
	if err != nil {
		return err
	}
	hs, err := tensorHandles("FunctionContext."+method+": tensor", tensors)
	if err != nil {
		return err
	}
	err = do(func() { f(ctx, hs) })
	runtime.KeepAlive(tensors)
	return err
}

// SaveForBackward keeps tensors (inputs, outputs or intermediates; nil
// allowed) for Backward, replacing an earlier call's (ctx.save_for_backward).
// Forward only. At most 32 tensors (checked when Forward returns).
func (c *FunctionContext) SaveForBackward(tensors ...*Tensor) error {
	return c.withTensors("SaveForBackward", tensors, capi.Function_ctx_save_for_backward)
}

// SavedTensors is what Forward saved, in order (nil for a nil entry), lent
// like Backward's arguments (ctx.saved_tensors). Backward only. Autograd
// when a saved input or output was modified in place since ("one of the
// variables needed for gradient computation has been modified by an inplace
// operation"), or freed by an earlier backward without retainGraph.
func (c *FunctionContext) SavedTensors() ([]*Tensor, error) {
	ctx, err := c.live("SavedTensors")
	if err != nil {
		return nil, err
	}
	out := make([]uintptr, maxFunctionTensors)
	var n int64
	if err := do(func() { n = capi.Function_ctx_saved_tensors(ctx, out) }); err != nil {
		return nil, err
	}
	return c.lend(out[:n]), nil
}

// NeedsInputGrad says whether input i's gradient is wanted
// (ctx.needs_input_grad[i]): in Forward, whether it requires grad (and grad
// mode was on at Apply); in Backward, whether its gradient goes anywhere.
// InvalidArgument for i out of range.
func (c *FunctionContext) NeedsInputGrad(i int) (bool, error) {
	ctx, err := c.live("NeedsInputGrad")
	if err != nil {
		return false, err
	}
	return call(func() bool { return capi.Function_ctx_needs_input_grad(ctx, int64(i)) })
}

// MarkDirty says Forward modified these inputs in place (ctx.mark_dirty):
// their version counters are bumped and the function is recorded as an
// in-place op on them. In this version one input may be dirty, and Forward
// must return it as output 0. Forward only; InvalidArgument for a tensor
// that is not an input, or more than one. A dirty leaf that requires grad
// makes Apply fail with Autograd.
func (c *FunctionContext) MarkDirty(tensors ...*Tensor) error {
	return c.withTensors("MarkDirty", tensors, capi.Function_ctx_mark_dirty)
}

// MarkNonDifferentiable says these outputs get no gradient
// (ctx.mark_non_differentiable): they do not require grad, and Backward sees
// zeros for them (nil without materialized grads). Forward only; they must
// be among its outputs (checked when it returns).
func (c *FunctionContext) MarkNonDifferentiable(tensors ...*Tensor) error {
	return c.withTensors("MarkNonDifferentiable", tensors, capi.Function_ctx_mark_non_differentiable)
}

// SetMaterializeGrads(false) gives Backward nil instead of zeros for outputs
// whose gradient was never computed (ctx.set_materialize_grads; default
// true). Forward only.
func (c *FunctionContext) SetMaterializeGrads(materialize bool) error {
	ctx, err := c.live("SetMaterializeGrads")
	if err != nil {
		return err
	}
	return do(func() { capi.Function_ctx_set_materialize_grads(ctx, materialize) })
}
