"""step_memory — the most memory a piece of work (one training step) has
allocated beyond what was live when it started, measured the same way in
tessera and in PyTorch 1.13, whose CPU allocator keeps no statistics.

- tessera, CPU: the caching allocator's counters: max_memory_allocated()
  after reset_peak_memory_stats(), less memory_allocated() at the start.
- a CUDA device (either library): torch.cuda's counters, the same way.
- PyTorch on the CPU: the profiler with profile_memory=True records every
  CPU allocation and free made while it runs ("[memory]" events, signed
  byte counts); the peak of their running sum is the same quantity. It only
  sees frees of blocks allocated while it runs, so the work must not free
  anything allocated before it (the training step sets grads to None before
  the measured region, and the previous step's loss is gone).

peak_bytes(run, library, device) -> (bytes, how): run() is called once.
"""
import sys


def peak_bytes(run, library, device="cpu"):
    if device != "cpu":
        return _counters(run, library.cuda, device), f"{library.__name__}.cuda allocator counters"
    if hasattr(library, "max_memory_allocated"):  # tessera's CPU allocator
        return _counters(run, library, None), f"{library.__name__}.max_memory_allocated"
    return _profiled(run, library), "torch.profiler memory events"


def _counters(run, memory, device):
    args = () if device is None else (device,)
    if device is not None:
        memory.synchronize()
    memory.reset_peak_memory_stats(*args)
    before = memory.memory_allocated(*args)
    run()
    if device is not None:
        memory.synchronize()
    return memory.max_memory_allocated(*args) - before


def _profiled(run, torch):
    profiler = torch.profiler
    with profiler.profile(activities=[profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
        run()
    events = [e for e in prof.profiler.kineto_results.events()
              if e.name() == "[memory]" and str(e.device_type()).endswith("CPU")]
    events.sort(key=lambda e: e.start_us())  # a stable sort: simultaneous events keep their order
    live = peak = 0
    for e in events:
        live += e.nbytes()
        peak = max(peak, live)
    if not events:
        print("step_memory: the profiler recorded no memory events", file=sys.stderr)
    return peak
