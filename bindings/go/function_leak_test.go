package tessera_test

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tessera.dev/tessera"
	"tessera.dev/tessera/internal/capi"
)

// Function 4: many applies from several goroutines at once leave no tensor
// memory and no cgo handle behind (applications are released by the
// library; callback errors are taken by the failing call).

// settledCPUMemory is the CPU bytes allocated once the finalizers of
// earlier tests' unclosed tensors have run: the reading repeats after a GC
// until it stops changing.
func settledCPUMemory(t *testing.T) int64 {
	t.Helper()
	last := int64(-1)
	for i := 0; i < 50; i++ {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		n := got(tessera.MemoryAllocated(tessera.CPU)).ok(t)
		if n == last {
			return n
		}
		last = n
	}
	return last
}

func TestFunctionConcurrentAppliesLeakNothing(t *testing.T) {
	const goroutines, perGoroutine = 8, 12500 // 100,000 applies
	memBefore := settledCPUMemory(t)
	handlesBefore := capi.LiveHandles()
	var forwards, backwards, failures int64
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			errs <- applyMany(g, perGoroutine, &forwards, &backwards, &failures)
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		noErr(t, err)
	}
	if forwards != goroutines*perGoroutine-failures || backwards == 0 || failures == 0 {
		t.Errorf("%d forwards, %d backwards, %d failures", forwards, backwards, failures)
	}
	// Everything was closed: the count must come back without waiting for
	// finalizers, and so must the memory (settled reads it after GCs).
	if n := capi.LiveHandles(); n != handlesBefore {
		t.Errorf("%d cgo handles live after the applies, %d before", n, handlesBefore)
	}
	if n := settledCPUMemory(t); n != memBefore {
		t.Errorf("%d CPU bytes allocated after the applies, %d before", n, memBefore)
	}
}

// applyMany runs n applies of swish on one goroutine's own leaf: every
// third with backward, every tenth failing in forward or backward.
func applyMany(g, n int, forwards, backwards, failures *int64) error {
	x, err := leaf64([]float64{float64(g), -1, 0.5, 2}, true)
	if err != nil {
		return err
	}
	defer x.Close()
	for i := 0; i < n; i++ {
		var f tessera.Function = swish{forwards, backwards}
		switch {
		case i%10 == 3:
			f = failing("forward", "error")
		case i%10 == 7:
			f = failing("backward", "panic error")
		}
		if err := applyOnce(f, x, i%3 == 0 || i%10 == 7); err != nil {
			if !errors.Is(err, errSentinel) {
				return err
			}
			atomic.AddInt64(failures, 1)
		}
	}
	return nil
}

func applyOnce(f tessera.Function, x *tessera.Tensor, backward bool) error {
	ys, err := tessera.Apply(f, x)
	if err != nil {
		return err
	}
	defer ys[0].Close()
	if !backward {
		return nil
	}
	s, err := ys[0].Sum(nil, false)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Backward()
}
