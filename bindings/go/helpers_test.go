package tessera_test

import (
	"math"
	"testing"

	"tessera.dev/tessera"
)

// got(f()).ok(t) is f's value, or fails the test at once on f's error.
// (Go only spreads f()'s results over a call that takes nothing else.)
func got[T any](v T, err error) result[T] { return result[T]{v, err} }

type result[T any] struct {
	v   T
	err error
}

func (r result[T]) ok(t *testing.T) T {
	t.Helper()
	if r.err != nil {
		t.Fatalf("unexpected error: %v", r.err)
	}
	return r.v
}

// noErr fails the test at once on err.
func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

// wantStatus checks that err is a *tessera.Error with status want.
func wantStatus(t *testing.T, err error, want tessera.Status) *tessera.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %v", want)
	}
	e, isTessera := err.(*tessera.Error)
	if !isTessera {
		t.Fatalf("got %T %v, want a *tessera.Error", err, err)
	}
	if e.Status() != want {
		t.Fatalf("got status %v (%q), want %v", e.Status(), e.Message(), want)
	}
	return e
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// closeTo compares float32 results with float64 goldens.
func closeTo(got, want []float64, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol*(1+math.Abs(want[i])) {
			return false
		}
	}
	return true
}

func arange(t *testing.T, sizes []int64) *tessera.Tensor {
	t.Helper()
	n := int64(1)
	for _, s := range sizes {
		n *= s
	}
	flat := got(tessera.Arange(0, float64(n), 1, tessera.Float32)).ok(t)
	defer flat.Close()
	return got(flat.View(sizes...)).ok(t)
}
