"""tessera.profiler: torch.profiler.profile over include/tessera/profiler.h.

    with tessera.profiler.profile(record_shapes=True) as prof:
        loss = model(x).sum(); loss.backward()
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
    prof.export_chrome_trace("trace.json")   # chrome://tracing, ui.perfetto.dev

One session runs at a time in a process; events come from every thread.
"""
from . import _core

__all__ = ["profile", "ProfilerResult"]


class ProfilerResult:
    """A stopped session's events: table(), export_chrome_trace(), len()."""

    def __init__(self, handle):
        self._handle = handle

    def table(self, sort_by=None, row_limit=100):
        """prof.key_averages().table(sort_by, row_limit) as torch 1.13 prints
        it; sort_by None is "self_cpu_time_total", row_limit < 0 all rows."""
        return _core.ProfilerResult.table(self._handle, sort_by, int(row_limit))

    def key_averages(self, group_by_input_shape=False):
        """torch's spelling: key_averages().table(...) (rows are grouped by
        input shape when the session recorded shapes)."""
        return self

    def export_chrome_trace(self, path):
        """Chrome Trace Event JSON at path (written atomically)."""
        _core.ProfilerResult.export_chrome_trace(self._handle, str(path))

    def __len__(self):
        return _core.ProfilerResult.num_events(self._handle)

    def close(self):
        _core._release(self._handle)


class profile:
    """torch.profiler.profile(record_shapes=False, profile_memory=False) as a
    context manager (or start()/stop()); after the block the object has the
    result's table(), key_averages(), export_chrome_trace() and events()."""

    def __init__(self, record_shapes=False, profile_memory=False):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.result = None

    def start(self):
        _core.profiler_start(bool(self.record_shapes), bool(self.profile_memory))
        return self

    def stop(self):
        self.result = ProfilerResult(_core.profiler_stop())
        return self.result

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()

    def _done(self):
        if self.result is None:
            raise RuntimeError("the profiler has not been stopped yet")
        return self.result

    def key_averages(self, group_by_input_shape=False):
        return self._done()

    def table(self, sort_by=None, row_limit=100):
        return self._done().table(sort_by, row_limit)

    def export_chrome_trace(self, path):
        self._done().export_chrome_trace(path)

    def events(self):
        """Number of recorded events (torch returns the list)."""
        return len(self._done())
