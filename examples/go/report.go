package main

import (
	"fmt"
	"os"

	"tessera.dev/tessera"
)

// geometry prints what PyTorch users know about a tensor's layout.
func geometry(what string, t *tessera.Tensor) error {
	contiguous, err := t.IsContiguous(tessera.ContiguousFormat)
	if err != nil {
		return err
	}
	channelsLast, err := t.IsContiguous(tessera.ChannelsLast)
	if err != nil {
		return err
	}
	fmt.Printf("  %-32s sizes %v  strides %v  contiguous=%s channels_last=%s\n", what,
		t.Sizes(), t.Strides(), lowerYesNo(contiguous), lowerYesNo(channelsLast))
	return nil
}

// layoutTour shows sizes, strides, channels_last, a transposed view and its
// contiguous copy on the images.
func layoutTour(X *tessera.Tensor) error {
	fmt.Println("\nlayout of the images (sizes and strides count elements):")
	if err := geometry("X", X); err != nil {
		return err
	}
	// contiguous(channels_last) copies only when needed; with one channel the
	// NCHW strides already satisfy NHWC (size-1 dims are ignored), so it hands
	// back the same tensor. clone(channels_last) always writes NHWC strides.
	same, err := X.Contiguous(tessera.ChannelsLast)
	if err != nil {
		return err
	}
	defer same.Close()
	p1, err1 := same.DataPtr()
	p2, err2 := X.DataPtr()
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	if p1 == p2 {
		fmt.Println("  X.contiguous(channels_last)      is X itself: with C == 1, X is contiguous in both formats")
	} else {
		fmt.Println("  X.contiguous(channels_last)      is a copy")
	}
	cl, err := X.Clone(tessera.ChannelsLast)
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := geometry("X.clone(channels_last)", cl); err != nil {
		return err
	}

	// A transposed view swaps strides and shares storage: no copy, but no
	// longer contiguous; Contiguous then makes a fresh row-major copy.
	xt, err := X.Transpose(2, 3)
	if err != nil {
		return err
	}
	defer xt.Close()
	if err := geometry("X.transpose(2, 3)", xt); err != nil {
		return err
	}
	dense, err := xt.Contiguous(tessera.ContiguousFormat)
	if err != nil {
		return err
	}
	defer dense.Close()
	if err := geometry("X.transpose(2, 3).contiguous()", dense); err != nil {
		return err
	}
	viewShares, err1 := X.SharesStorage(xt)
	copyShares, err2 := X.SharesStorage(dense)
	if err := firstErr(err1, err2); err != nil {
		return err
	}
	fmt.Printf("  transpose shares X's storage: %s; its contiguous copy does: %s\n",
		lowerYesNo(viewShares), lowerYesNo(copyShares))
	a, err1 := X.At(0, 0, 2, 5)
	b, err2 := xt.At(0, 0, 5, 2)
	c, err3 := dense.At(0, 0, 5, 2)
	if err := firstErr(err1, err2, err3); err != nil {
		return err
	}
	fmt.Printf("  X[0,0,2,5] = %.4f = X.transpose(2,3)[0,0,5,2] = %.4f = copy[0,0,5,2] = %.4f\n", a, b, c)
	return nil
}

// firstErr is the first non-nil error of a group of calls whose results are
// only printed together (errors.Join is Go 1.20).
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func lowerYesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func kib(bytes int64) float64 { return float64(bytes) / 1024 }

// printAllocatorStats: what the caching allocator did for the run so far.
func printAllocatorStats() error {
	s, err := tessera.ReadMemoryStats(tessera.CPU)
	if err != nil {
		return err
	}
	fmt.Println("\nallocator (CPU caching allocator, sizes in KiB):")
	fmt.Printf("  allocated  %10.1f now, %10.1f peak  (%d blocks live)\n",
		kib(s.AllocatedBytes.Current), kib(s.AllocatedBytes.Peak), s.Allocation.Current)
	fmt.Printf("  reserved   %10.1f now, %10.1f peak  (segments held: %d)\n",
		kib(s.ReservedBytes.Current), kib(s.ReservedBytes.Peak), s.Segment.Current)
	fmt.Printf("  %d allocations served, %d of them needed a new segment\n",
		s.Allocation.Allocated, s.NumDeviceAlloc)
	return nil
}

func saveCheckpoint(m *mlp, path string) error {
	var raw int64
	for _, p := range tessera.Parameters(m.net) {
		n, err := p.Nbytes()
		if err != nil {
			return err
		}
		raw += n
	}
	err := tessera.SaveStateDict(path, m.net, &tessera.SaveOptions{
		Compression: tessera.Zstd,
		Metadata:    map[string]string{"model": "digits-mlp-64-128-10"},
	})
	if err != nil {
		return err
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	fmt.Printf("\ncheckpoint %s: %d bytes on disk (zstd, header included) for %d bytes of float32 parameters (%.3fx)\n",
		path, info.Size(), raw, float64(raw)/float64(info.Size()))
	return nil
}

// loadCheckpoint reads path into a fresh model, every state_dict key
// required (strict).
func loadCheckpoint(path string) (*mlp, error) {
	file, err := tessera.Load(path, nil)
	if err != nil {
		return nil, err
	}
	fmt.Printf("checkpoint holds the state_dict %v, model %q\n", file.Names, file.Metadata["model"])
	file.Close()
	g, err := tessera.NewGenerator(0)
	if err != nil {
		return nil, err
	}
	defer g.Close()
	m, err := newMLP(g)
	if err != nil {
		return nil, err
	}
	if _, err := tessera.LoadStateDictFile(path, m.net, true); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}
