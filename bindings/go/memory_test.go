package tessera_test

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"tessera.dev/tessera"
)

func TestMemoryStats(t *testing.T) {
	before := got(tessera.ReadMemoryStats(tessera.CPU)).ok(t)
	x := got(tessera.Empty([]int64{1024, 1024}, tessera.Float32)).ok(t)
	s := got(tessera.ReadMemoryStats(tessera.CPU)).ok(t)
	if s.AllocatedBytes.Current < before.AllocatedBytes.Current+4<<20 {
		t.Errorf("allocated_bytes.current %d after a 4 MiB tensor (before %d)",
			s.AllocatedBytes.Current, before.AllocatedBytes.Current)
	}
	if s.Allocation.Current < 1 || s.Allocation.Allocated < 1 || s.Segment.Current < 1 {
		t.Errorf("counts: %+v", s)
	}
	if s.ReservedBytes.Current < s.AllocatedBytes.Current || s.AllocatedBytes.Peak < s.AllocatedBytes.Current {
		t.Errorf("reserved %d, allocated %+v", s.ReservedBytes.Current, s.AllocatedBytes)
	}
	if s.RequestedBytes.Current < 4<<20 || s.NumDeviceAlloc < 1 {
		t.Errorf("requested %+v, device allocs %d", s.RequestedBytes, s.NumDeviceAlloc)
	}
	if n := got(tessera.MemoryAllocated(tessera.CPU)).ok(t); n != s.AllocatedBytes.Current {
		t.Errorf("MemoryAllocated %d, stats %d", n, s.AllocatedBytes.Current)
	}
	if n := got(tessera.MaxMemoryAllocated(tessera.CPU)).ok(t); n != s.AllocatedBytes.Peak {
		t.Errorf("MaxMemoryAllocated %d, stats %d", n, s.AllocatedBytes.Peak)
	}
	if n := got(tessera.MemoryReserved(tessera.CPU)).ok(t); n != s.ReservedBytes.Current {
		t.Errorf("MemoryReserved %d, stats %d", n, s.ReservedBytes.Current)
	}
	x.Close()
	after := got(tessera.MemoryAllocated(tessera.CPU)).ok(t)
	if after != before.AllocatedBytes.Current {
		t.Errorf("allocated %d after Close, %d before", after, before.AllocatedBytes.Current)
	}
	noErr(t, tessera.ResetPeakMemoryStats(tessera.CPU))
	if n := got(tessera.MaxMemoryAllocated(tessera.CPU)).ok(t); n != after {
		t.Errorf("peak %d after reset, current %d", n, after)
	}
	noErr(t, tessera.EmptyCache(tessera.CPU))

	// A cap makes a large request fail with OutOfMemory, and nothing changes.
	noErr(t, tessera.SetMemoryLimit(tessera.CPU, 64<<20))
	if n := got(tessera.MemoryLimit(tessera.CPU)).ok(t); n != 64<<20 {
		t.Errorf("limit %d", n)
	}
	_, err := tessera.Empty([]int64{128 << 20}, tessera.Float32)
	wantStatus(t, err, tessera.OutOfMemory)
	noErr(t, tessera.SetMemoryLimit(tessera.CPU, 0))
	_, err = tessera.MemoryAllocated(tessera.Device{Type: tessera.DeviceType(7)})
	wantStatus(t, err, tessera.InvalidArgument)
}

// residentBytes is this process's resident set (/proc/self/statm, field 2).
func residentBytes(t *testing.T) int64 {
	raw, err := os.ReadFile("/proc/self/statm")
	noErr(t, err)
	pages, err := strconv.ParseInt(strings.Fields(string(raw))[1], 10, 64)
	noErr(t, err)
	return pages * int64(os.Getpagesize())
}

// One million [4, 4] tensors, none closed: the finalizers must free them as
// the collector finds them. Each live one costs 512 bytes of tessera's
// allocator (64 bytes rounded up) and about 640 bytes resident, so leaked
// they would hold 512 MiB allocated and over 600 MiB resident. The bounds are
// a quarter and well under half of that; measured on the 2-core machine:
// about 30 MiB allocated and 120-150 MiB resident at peak (glibc keeps the
// per-thread arenas the finalizer thread frees into).
//
// The loop calls nothing but tessera: no runtime.GC(). The collector runs on
// Go heap growth (each Tensor wrapper is Go garbage), and the finalizers run
// on the runtime's finalizer goroutine, concurrently with the loop. Only after
// the loop does the test force collections, to check that everything is
// eventually returned.
func TestMillionUnclosedTensorsStayBounded(t *testing.T) {
	const n = 1_000_000
	const maxAllocated = 128 << 20      // growth of tessera's allocated bytes, at any sample
	const maxResidentGrowth = 256 << 20 // growth of the process's resident set
	runtime.GC()
	baseAllocated := got(tessera.MemoryAllocated(tessera.CPU)).ok(t)
	baseResident := residentBytes(t)
	var peakAllocated, peakResident int64
	sizes := []int64{4, 4}
	for i := 0; i < n; i++ {
		if _, err := tessera.Empty(sizes, tessera.Float32); err != nil {
			t.Fatal(err)
		}
		if i%10_000 == 0 {
			if a := got(tessera.MemoryAllocated(tessera.CPU)).ok(t) - baseAllocated; a > peakAllocated {
				peakAllocated = a
			}
			if r := residentBytes(t) - baseResident; r > peakResident {
				peakResident = r
			}
		}
	}
	t.Logf("%d unclosed tensors: peak growth of tessera allocated %.1f MiB, of resident %.1f MiB",
		n, float64(peakAllocated)/(1<<20), float64(peakResident)/(1<<20))
	if peakAllocated > maxAllocated {
		t.Errorf("tessera allocated grew by %d bytes (bound %d): finalizers are not keeping up", peakAllocated, maxAllocated)
	}
	if peakResident > maxResidentGrowth {
		t.Errorf("resident memory grew by %d bytes (bound %d)", peakResident, maxResidentGrowth)
	}
	// Everything unreachable is released once the collector has run the
	// finalizers (they run after a cycle; give them a few).
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		left := got(tessera.MemoryAllocated(tessera.CPU)).ok(t) - baseAllocated
		if left <= 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still allocated after collecting every tensor", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Failing calls leave nothing behind: neither tensor memory nor native heap
// (a failure unwinds the C wrapper by a Go panic, which would skip any free
// after the call). 100,000 failures of three kinds, after a warm-up; a leak
// of even 32 bytes per failure would grow the resident set by 3 MiB per kind.
func TestFailuresLeakNothing(t *testing.T) {
	x := got(tessera.Ones([]int64{4, 4}, tessera.Float32)).ok(t)
	defer x.Close()
	xt := got(x.T()).ok(t)
	defer xt.Close()
	other := got(tessera.Ones([]int64{3}, tessera.Float32)).ok(t)
	defer other.Close()
	missing := t.TempDir() + "/missing.safetensors"
	fail := func(i int) error {
		var err error
		switch i % 3 {
		case 0:
			_, err = xt.View(16) // NotViewable
		case 1:
			_, err = x.Add(other) // ShapeMismatch
		default:
			_, err = tessera.Load(missing, nil) // IOError
		}
		return err
	}
	for i := 0; i < 10_000; i++ {
		if fail(i) == nil {
			t.Fatal("a failing call succeeded")
		}
	}
	runtime.GC()
	baseAllocated := got(tessera.MemoryAllocated(tessera.CPU)).ok(t)
	baseResident := residentBytes(t)
	for i := 0; i < 100_000; i++ {
		if fail(i) == nil {
			t.Fatal("a failing call succeeded")
		}
	}
	runtime.GC()
	if a := got(tessera.MemoryAllocated(tessera.CPU)).ok(t); a != baseAllocated {
		t.Errorf("tessera allocated %d bytes before, %d after 100,000 failures", baseAllocated, a)
	}
	growth := residentBytes(t) - baseResident
	t.Logf("resident growth over 100,000 failures: %.2f MiB", float64(growth)/(1<<20))
	if growth > 8<<20 {
		t.Errorf("resident memory grew by %d bytes over 100,000 failures", growth)
	}
}
