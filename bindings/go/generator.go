package tessera

import (
	"runtime"
	"sync/atomic"

	"tessera.dev/tessera/internal/capi"
)

// Generator is a seeded random number generator (torch.Generator) for Rand,
// Randn and Randperm. Close releases it; a finalizer does if you do not.
type Generator struct {
	handle capi.SwigcptrGenerator // 0 once closed
}

// NewGenerator is a generator seeded with seed (torch.Generator().manual_seed).
func NewGenerator(seed uint64) (g *Generator, err error) {
	defer recoverFailure(&err)
	h := capi.NewGenerator(seed).Swigcptr()
	g = &Generator{handle: capi.SwigcptrGenerator(h)}
	runtime.SetFinalizer(g, (*Generator).release)
	return g, nil
}

func (g *Generator) release() { capi.DeleteGenerator(g.handle) }

// Close releases the generator; idempotent.
func (g *Generator) Close() error {
	if g == nil {
		return nil
	}
	if h := atomic.SwapUintptr((*uintptr)(&g.handle), 0); h != 0 {
		runtime.SetFinalizer(g, nil)
		capi.DeleteGenerator(capi.SwigcptrGenerator(h))
	}
	return nil
}

func (g *Generator) cptr() uintptr {
	if g == nil {
		return 0
	}
	return uintptr(g.handle)
}

func (g *Generator) keepAlive() { runtime.KeepAlive(g) }

// ManualSeed restarts the generator's sequence from seed.
func (g *Generator) ManualSeed(seed uint64) error {
	err := do(func() { capi.SwigcptrGenerator(g.cptr()).Manual_seed(seed) })
	runtime.KeepAlive(g)
	return err
}
