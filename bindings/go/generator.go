package tessera

import (
	"runtime"

	"tessera.dev/tessera/internal/capi"
)

// Generator is a seeded random number generator (torch.Generator) for Rand,
// Randn, Randperm and Dropout: a counter-based Philox stream whose whole state
// is (seed, offset), see State. Close releases it; a finalizer does if you do not.
type Generator struct {
	handle capi.SwigcptrGenerator // 0 once closed
}

// NewGenerator is a generator seeded with seed (torch.Generator().manual_seed).
func NewGenerator(seed uint64) (g *Generator, err error) {
	defer recoverFailure(&err)
	h := capi.NewGenerator(seed).Swigcptr()
	return own(&Generator{handle: capi.SwigcptrGenerator(h)}, (*Generator).Close), nil
}

// Close releases the generator; idempotent, and nil is fine.
func (g *Generator) Close() error {
	if g != nil {
		release(g, &g.handle, func(h capi.SwigcptrGenerator) { capi.DeleteGenerator(h) })
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

// State is the generator's position (torch's Philox seed and offset): the
// seed, and the number of 32-bit words drawn so far. SetState(seed, offset)
// returns to it.
func (g *Generator) State() (seed, offset uint64, err error) {
	pair, err := call(func() []int64 { return capi.SwigcptrGenerator(g.cptr()).Get_state() })
	runtime.KeepAlive(g)
	if err != nil {
		return 0, 0, err
	}
	return uint64(pair[0]), uint64(pair[1]), nil
}

// SetState moves the generator to (seed, offset): the next op draws what an
// op at that position drew before.
func (g *Generator) SetState(seed, offset uint64) error {
	err := do(func() { capi.SwigcptrGenerator(g.cptr()).Set_state(seed, offset) })
	runtime.KeepAlive(g)
	return err
}
