package tessera

import "tessera.dev/tessera/internal/capi"

// The caching allocator's statistics and controls, per device (the names of
// torch.cuda.memory_*, which tessera also keeps for the CPU).

// MemoryStat is one statistic: its value now, its peak, and the sums of its
// increases and decreases.
type MemoryStat struct {
	Current, Peak, Allocated, Freed int64
}

// MemoryStats is torch.cuda.memory_stats() as a struct.
type MemoryStats struct {
	Allocation         MemoryStat // allocated blocks
	Segment            MemoryStat // segments obtained from the OS
	Active             MemoryStat // blocks in use
	InactiveSplit      MemoryStat // free blocks inside partly used segments
	AllocatedBytes     MemoryStat // sizes of allocated blocks (rounded)
	ReservedBytes      MemoryStat // sizes of segments held
	ActiveBytes        MemoryStat
	InactiveSplitBytes MemoryStat
	RequestedBytes     MemoryStat // bytes asked for, before rounding
	NumAllocRetries    int64
	NumOOMs            int64
	NumDeviceAlloc     int64 // segments obtained from the OS
	NumDeviceFree      int64 // segments returned to the OS
}

func statOf(s capi.MemoryStat) MemoryStat {
	return MemoryStat{s.GetCurrent(), s.GetPeak(), s.GetAllocated(), s.GetFreed()}
}

// ReadMemoryStats is every statistic of device d's allocator.
func ReadMemoryStats(d Device) (stats MemoryStats, err error) {
	defer recoverFailure(&err)
	s := capi.Memory_stats(d.capiType(), int(d.Index))
	defer capi.DeleteMemoryStats(s)
	return MemoryStats{
		Allocation:         statOf(s.GetAllocation()),
		Segment:            statOf(s.GetSegment()),
		Active:             statOf(s.GetActive()),
		InactiveSplit:      statOf(s.GetInactive_split()),
		AllocatedBytes:     statOf(s.GetAllocated_bytes()),
		ReservedBytes:      statOf(s.GetReserved_bytes()),
		ActiveBytes:        statOf(s.GetActive_bytes()),
		InactiveSplitBytes: statOf(s.GetInactive_split_bytes()),
		RequestedBytes:     statOf(s.GetRequested_bytes()),
		NumAllocRetries:    s.GetNum_alloc_retries(),
		NumOOMs:            s.GetNum_ooms(),
		NumDeviceAlloc:     s.GetNum_device_alloc(),
		NumDeviceFree:      s.GetNum_device_free(),
	}, nil
}

func deviceCall[T any](d Device, f func(capi.Enum_SS_tsr_device_type, int) T) (T, error) {
	return call(func() T { return f(d.capiType(), int(d.Index)) })
}

func deviceDo(d Device, f func(capi.Enum_SS_tsr_device_type, int)) error {
	return do(func() { f(d.capiType(), int(d.Index)) })
}

// MemoryAllocated is the bytes of tensor memory handed out now.
func MemoryAllocated(d Device) (int64, error) { return deviceCall(d, capi.Memory_allocated) }

// MaxMemoryAllocated is the peak of MemoryAllocated.
func MaxMemoryAllocated(d Device) (int64, error) { return deviceCall(d, capi.Max_memory_allocated) }

// MemoryReserved is the bytes the allocator holds from the OS.
func MemoryReserved(d Device) (int64, error) { return deviceCall(d, capi.Memory_reserved) }

// MaxMemoryReserved is the peak of MemoryReserved.
func MaxMemoryReserved(d Device) (int64, error) { return deviceCall(d, capi.Max_memory_reserved) }

// ResetPeakMemoryStats restarts every peak from the current value.
func ResetPeakMemoryStats(d Device) error { return deviceDo(d, capi.Reset_peak_memory_stats) }

// ResetAccumulatedMemoryStats zeroes the allocated/freed sums and event counts.
func ResetAccumulatedMemoryStats(d Device) error {
	return deviceDo(d, capi.Reset_accumulated_memory_stats)
}

// EmptyCache returns cached, unused segments to the OS.
func EmptyCache(d Device) error { return deviceDo(d, capi.Empty_cache) }

// SetMemoryLimit caps the bytes device d's allocator may reserve (0: no cap);
// beyond it allocations fail with OutOfMemory.
func SetMemoryLimit(d Device, bytes int64) error {
	return do(func() { capi.Set_memory_limit(bytes, d.capiType(), int(d.Index)) })
}

// MemoryLimit is the cap SetMemoryLimit set, in bytes; 0 when there is none.
func MemoryLimit(d Device) (int64, error) { return deviceCall(d, capi.Memory_limit) }
