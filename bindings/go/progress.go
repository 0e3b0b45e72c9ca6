package tessera

import (
	"errors"
	"fmt"

	"tessera.dev/tessera/internal/capi"
)

// ProgressFunc is told the progress of a save or load (tsr_progress_fn): the
// tensor bytes (numel * element size, before compression) done so far and in
// all, first with bytesDone == 0, last with bytesDone == bytesTotal (for a
// Saver, bytesTotal counts the tensors added so far). It runs on the calling
// goroutine. Returning false cancels: the call returns an *Error with status
// Cancelled, and a cancelled save leaves any file at its path as it was. A
// panic in it cancels too; the Error then wraps a *ProgressPanic. It must not
// use the same Saver or File.
type ProgressFunc func(bytesDone, bytesTotal uint64) bool

// ProgressPanic is what a ProgressFunc panicked with; errors.As finds it in
// the Cancelled error that followed.
type ProgressPanic struct {
	Value any
}

func (p *ProgressPanic) Error() string {
	return fmt.Sprintf("tessera: the progress callback panicked: %v", p.Value)
}

// Unwrap is the panic value when it was an error.
func (p *ProgressPanic) Unwrap() error {
	if err, ok := p.Value.(error); ok {
		return err
	}
	return nil
}

// progress is a ProgressFunc registered with capi's handle table: C calls it
// by id. It recovers the user's panic (which must not unwind through the
// library's frames) and keeps it for the error that follows.
type progress struct {
	fn       ProgressFunc
	id       uintptr
	panicked *ProgressPanic
}

// newProgress registers fn; nil for a nil fn. unregister it when no call can
// reach it any more.
func newProgress(fn ProgressFunc) *progress {
	if fn == nil {
		return nil
	}
	p := &progress{fn: fn}
	p.id = capi.RegisterProgress(p.call)
	return p
}

func (p *progress) call(done, total uint64) (goOn bool) {
	defer func() {
		if r := recover(); r != nil {
			p.panicked = &ProgressPanic{Value: r}
			goOn = false
		}
	}()
	return p.fn(done, total)
}

// handle is what the wrapper takes: the id, or 0 for no callback.
func (p *progress) handle() uintptr {
	if p == nil {
		return 0
	}
	return p.id
}

func (p *progress) unregister() {
	if p != nil {
		capi.UnregisterProgress(p.id)
	}
}

// explain attaches a kept panic to a Cancelled error.
func (p *progress) explain(err error) error {
	var e *Error
	if p != nil && p.panicked != nil && errors.As(err, &e) && e.status == Cancelled {
		e.cause = p.panicked
		p.panicked = nil
	}
	return err
}
