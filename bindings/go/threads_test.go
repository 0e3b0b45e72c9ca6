package tessera_test

import (
	"testing"

	"tessera.dev/tessera"
)

func TestNumThreads(t *testing.T) {
	saved := tessera.NumThreads()
	defer tessera.SetNumThreads(saved)
	if err := tessera.SetNumThreads(1); err != nil {
		t.Fatal(err)
	}
	if n := tessera.NumThreads(); n != 1 {
		t.Errorf("NumThreads() = %d after SetNumThreads(1)", n)
	}
	err := tessera.SetNumThreads(0)
	if tessera.StatusOf(err) != tessera.InvalidArgument {
		t.Errorf("SetNumThreads(0): %v, want InvalidArgument", err)
	}
	if n := tessera.NumThreads(); n != 1 {
		t.Errorf("NumThreads() = %d after a refused SetNumThreads(0)", n)
	}
}
