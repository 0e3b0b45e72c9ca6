package tessera

import (
	"runtime"

	"tessera.dev/tessera/internal/capi"
)

// ProfilerOptions are torch.profiler.profile's arguments.
type ProfilerOptions struct {
	RecordShapes  bool // keep each event's input sizes, strides, memory formats
	ProfileMemory bool // keep the bytes each event allocated
}

// ProfilerResult is a stopped profiler session's events (StopProfiler).
// Close releases it; a finalizer does if you do not.
type ProfilerResult struct {
	handle capi.SwigcptrProfilerResult // 0 once closed
}

// StartProfiler starts a session (torch.profiler.profile.__enter__): every op
// and backward node run from then on, on any goroutine, is an event. One
// session runs at a time in a process (InvalidArgument otherwise).
func StartProfiler(opts ProfilerOptions) error {
	return do(func() { capi.Profiler_start(opts.RecordShapes, opts.ProfileMemory) })
}

// StopProfiler ends the session and returns its events; InvalidArgument when
// none runs.
func StopProfiler() (r *ProfilerResult, err error) {
	defer recoverFailure(&err)
	h := capi.Profiler_stop()
	return own(&ProfilerResult{handle: capi.SwigcptrProfilerResult(h)}, (*ProfilerResult).Close), nil
}

// Close releases the result; idempotent, and nil is fine.
func (r *ProfilerResult) Close() error {
	if r != nil {
		release(r, &r.handle, func(h capi.SwigcptrProfilerResult) { capi.DeleteProfilerResult(h) })
	}
	return nil
}

func (r *ProfilerResult) c() capi.SwigcptrProfilerResult {
	if r == nil {
		return 0
	}
	return r.handle
}

// Table is prof.key_averages().table(sort_by, row_limit) as torch 1.13 prints
// it. sortBy "" is "self_cpu_time_total"; others: "cpu_time_total",
// "cpu_time", "count", "cpu_memory_usage", "self_cpu_memory_usage",
// "cuda_memory_usage", "self_cuda_memory_usage". rowLimit < 0: every row.
func (r *ProfilerResult) Table(sortBy string, rowLimit int64) (string, error) {
	if sortBy == "" {
		sortBy = "self_cpu_time_total"
	}
	if err := refuseNUL("Table: sortBy", sortBy); err != nil {
		return "", err
	}
	s, err := call(func() string { return r.c().Table(sortBy, rowLimit) })
	runtime.KeepAlive(r)
	return s, err
}

// ExportChromeTrace writes the events as Chrome Trace Event JSON to path
// (atomically; chrome://tracing and ui.perfetto.dev open it). IOError with
// the path and the system's reason.
func (r *ProfilerResult) ExportChromeTrace(path string) error {
	if err := refuseNUL("ExportChromeTrace: path", path); err != nil {
		return err
	}
	err := do(func() { r.c().Export_chrome_trace(path) })
	runtime.KeepAlive(r)
	return err
}

// NumEvents is the number of recorded events.
func (r *ProfilerResult) NumEvents() (int64, error) {
	n, err := call(func() int64 { return r.c().Num_events() })
	runtime.KeepAlive(r)
	return n, err
}
