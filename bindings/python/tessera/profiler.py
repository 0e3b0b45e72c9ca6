"""tessera.profiler: torch.profiler over include/tessera/profiler.h.

    from tessera.profiler import profile, record_function, ProfilerActivity, schedule
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            loss = model(x).sum(); loss.backward()
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
    prof.export_chrome_trace("trace.json")   # chrome://tracing, ui.perfetto.dev

    # long runs: wait 1 step, warm up 1, record 3, then call on_trace_ready
    with profile(schedule=schedule(wait=1, warmup=1, active=3),
                 on_trace_ready=lambda p: print(p.key_averages().table())) as prof:
        for batch in loader:
            train_step(batch); prof.step()

One session runs at a time in a process; events come from every thread.
Ops on CUDA tensors are recorded with their device whichever activities are
named. With ProfilerActivity.CUDA (accepted without a GPU, as torch's),
each op on a CUDA tensor also gets its device time, from timing events on
the current stream around its launches: the table's Self CUDA / CUDA total
columns and sort keys (sort_by="cuda_time_total"), and a device track in
the chrome trace. Torch lists kernels as rows of their own; tessera puts
their time on the ops that launched them. activities=[CUDA] alone records
the ops too.
"""
import enum
import functools

from . import _core

__all__ = ["profile", "ProfilerResult", "ProfilerActivity", "ProfilerAction", "schedule",
           "record_function", "supported_activities"]


class ProfilerActivity(enum.Enum):
    """torch.profiler.ProfilerActivity."""
    CPU = 0
    CUDA = 1


# tsr_profiler_activity's bits.
_ACTIVITY_CPU = 1
_ACTIVITY_CUDA = 2


def supported_activities():
    """The activities this process can profile: CPU, and CUDA with a GPU."""
    found = {ProfilerActivity.CPU}
    if _core.cuda_is_available():
        found.add(ProfilerActivity.CUDA)
    return found


class ProfilerAction(enum.Enum):
    """What a schedule asks for at a step (torch.profiler.ProfilerAction)."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0):
    """torch.profiler.schedule: after skip_first steps, cycles of wait steps
    doing nothing, warmup steps, then active steps recorded, the last of
    them RECORD_AND_SAVE (on_trace_ready runs after it); repeat cycles (0:
    without end). Returns step -> ProfilerAction."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError("schedule: wait, warmup, repeat and skip_first must be >= 0 and active > 0")
    cycle = wait + warmup + active

    def action(step):
        if step < 0:
            raise ValueError(f"schedule: step must be >= 0, not {step}")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if repeat > 0 and step >= repeat * cycle:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return action


class record_function:
    """torch.profiler.record_function(name): one event named name around a
    block (with) or each call of a function (decorator); ops inside are its
    children. Outside a profiling session it records nothing."""

    def __init__(self, name, args=None):
        if not isinstance(name, str):
            raise TypeError(f"record_function: name must be str, not {type(name).__name__}")
        self.name = name

    def __enter__(self):
        _core.record_function_begin(self.name)
        return self

    def __exit__(self, *exc_info):
        _core.record_function_end()

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)
        return wrapped


class ProfilerResult:
    """A stopped session's events: table(), export_chrome_trace(), len()."""

    def __init__(self, handle):
        self._handle = handle

    def table(self, sort_by=None, row_limit=100, **_torch_options):
        """prof.key_averages().table(sort_by, row_limit) as torch 1.13 prints
        it; sort_by None is "self_cpu_time_total", row_limit < 0 all rows.
        torch's formatting options (max_name_column_width, header, ...) are
        accepted and ignored."""
        return _core.ProfilerResult.table(self._handle, sort_by, int(row_limit))

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """torch's key_averages(): its table() has a row per op name, or per
        (name, input shapes) with group_by_input_shape (when the session
        recorded shapes)."""
        return KeyAverages(self._handle, bool(group_by_input_shape))

    def export_chrome_trace(self, path):
        """Chrome Trace Event JSON at path (written atomically)."""
        _core.ProfilerResult.export_chrome_trace(self._handle, str(path))

    def __len__(self):
        return _core.ProfilerResult.num_events(self._handle)

    def __str__(self):
        return self.table()

    def close(self):
        _core._release(self._handle)


class KeyAverages:
    """What key_averages() returns: table(sort_by, row_limit)."""

    def __init__(self, handle, group_by_input_shape):
        self._handle = handle
        self.group_by_input_shape = group_by_input_shape

    def table(self, sort_by=None, row_limit=100, **_torch_options):
        """torch 1.13's table; sort_by None is "self_cpu_time_total" (also
        "cpu_time_total", "cpu_time", "count", "cpu_memory_usage",
        "self_cpu_memory_usage", "cuda_memory_usage",
        "self_cuda_memory_usage"), row_limit < 0 all rows."""
        return _core.ProfilerResult.key_averages_table(self._handle, self.group_by_input_shape,
                                                       sort_by, int(row_limit))

    def __str__(self):
        return self.table()


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class profile:
    """torch.profiler.profile(activities=None, schedule=None,
    on_trace_ready=None, record_shapes=False, profile_memory=False,
    with_stack=False, with_flops=False, with_modules=False) as a context
    manager (or start()/stop()). Without a schedule everything between
    start and stop is one session; with one, step() moves through its
    actions and each RECORD_AND_SAVE step ends a session and calls
    on_trace_ready(self). Afterwards key_averages(), table(),
    export_chrome_trace() and events() read the last session.
    with_stack, with_flops and with_modules are accepted and record
    nothing more."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, experimental_config=None, use_cuda=None):
        for activity in activities or ():
            if not isinstance(activity, ProfilerActivity):
                raise TypeError(f"activities: expected ProfilerActivity values, got {activity!r}")
        self.activities = set(activities or supported_activities())
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.step_num = 0
        self.result = None
        self._recording = False
        self._action = ProfilerAction.RECORD

    # ---- session control --------------------------------------------------------
    def _begin(self):
        if not self._recording:
            bits = _ACTIVITY_CPU
            if ProfilerActivity.CUDA in self.activities:
                bits |= _ACTIVITY_CUDA
            _core.profiler_start_activities(bool(self.record_shapes), bool(self.profile_memory), bits)
            self._recording = True

    def _end(self, save):
        if self._recording:
            self._recording = False
            self.result = ProfilerResult(_core.profiler_stop())
            if save and self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def _enter_action(self, action):
        self._action = action
        if action in _RECORDING:
            self._begin()

    def start(self):
        self.step_num = 0
        self._enter_action(self.schedule(0) if self.schedule else ProfilerAction.RECORD)
        return self

    def step(self):
        """Marks the end of a training step (with a schedule)."""
        if self.schedule is None:
            return
        previous = self._action
        self.step_num += 1
        action = self.schedule(self.step_num)
        if previous == ProfilerAction.RECORD_AND_SAVE or (previous in _RECORDING
                                                          and action not in _RECORDING):
            self._end(save=True)
        self._enter_action(action)

    def stop(self):
        """Ends the session; InvalidArgumentError when none was started."""
        if not self._recording and self._action in _RECORDING:
            _core.profiler_stop()  # nothing running: the library's error
        self._end(save=self._action in _RECORDING)
        return self.result

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()

    # ---- the last session's results -----------------------------------------------------
    def _done(self):
        if self.result is None:
            raise RuntimeError("the profiler has not recorded a session yet")
        return self.result

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        return self._done().key_averages(group_by_input_shape)

    def table(self, sort_by=None, row_limit=100, **options):
        return self._done().table(sort_by, row_limit, **options)

    def export_chrome_trace(self, path):
        self._done().export_chrome_trace(path)

    def events(self):
        """Number of recorded events (torch returns the list)."""
        return len(self._done())
