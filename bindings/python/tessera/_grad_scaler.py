"""tessera.amp.GradScaler: torch.cuda.amp.GradScaler of PyTorch 1.13
(torch.amp.GradScaler in 2.x) over include/tessera/grad_scaler.h.

    scaler = tessera.amp.GradScaler()
    for x, y in batches:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)                  # optional: clip unscaled gradients
        tessera.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)                      # skipped when a gradient has an inf/NaN
        scaler.update()

Torch's algorithm and messages, on any device (torch 1.13's class needs
CUDA and disables itself without it; tessera's scales on the CPU too).
Gradients may be of any floating dtype but float16, which torch refuses
("Attempting to unscale FP16 gradients."). A failed call changes nothing.
"""
from . import _core
from ._handles import TensorList
from ._tensor import Closable

__all__ = ["GradScaler"]

_NEW_SCALE_REASON = ("new_scale should be a float or a 1-element tessera float32 Tensor with "
                     "requires_grad=False.")


def _optimizer_handle(optimizer):
    handle = getattr(optimizer, "_handle", None)
    if handle is None:
        raise TypeError("GradScaler: optimizer must be a tessera.optim optimizer, not "
                        f"{type(optimizer).__module__}.{type(optimizer).__name__}")
    return handle


class GradScaler(Closable):
    """torch.cuda.amp.GradScaler(init_scale=2.**16, growth_factor=2.0,
    backoff_factor=0.5, growth_interval=2000, enabled=True): scale(outputs),
    unscale_(optimizer), step(optimizer, *args, **kwargs), update(new_scale=None),
    get_scale(), get/set_growth_factor, get/set_backoff_factor,
    get/set_growth_interval, is_enabled(), state_dict(), load_state_dict().
    close() (or a with block) releases the native scaler at once."""

    def __init__(self, init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        self._enabled = bool(enabled)
        self._handle = _core.GradScaler.create(float(init_scale), float(growth_factor), float(backoff_factor),
                                               int(growth_interval), self._enabled)

    def scale(self, outputs):
        """outputs (a Tensor, or lists/tuples/iterables of them, nested) times
        the scale; outputs itself when disabled. A list or tuple comes back as
        one, another iterable as a map, as torch's."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, _core.Tensor):
            return _core.GradScaler.scale(self._handle, outputs)

        def apply_scale(val):
            if isinstance(val, _core.Tensor):
                return _core.GradScaler.scale(self._handle, val)
            if hasattr(val, "__iter__"):
                iterable = map(apply_scale, val)
                if isinstance(val, (list, tuple)):
                    return type(val)(iterable)
                return iterable
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def unscale_(self, optimizer):
        """Divides the optimizer's gradients by the scale in place and
        records whether any is inf/NaN (once per optimizer per update)."""
        if not self._enabled:
            return
        _core.GradScaler.unscale_(self._handle, _optimizer_handle(optimizer))

    def step(self, optimizer, *args, **kwargs):
        """unscale_ (unless done since the last update), then
        optimizer.step(*args, **kwargs) unless an inf/NaN was found: its
        return value, or None when skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        if _core.GradScaler.step_deferred(self._handle, _optimizer_handle(optimizer)):
            return optimizer.step(*args, **kwargs)
        return None

    def update(self, new_scale=None):
        """Backs the scale off after an inf/NaN, grows it after
        growth_interval clean updates; new_scale (a float, or a 1-element
        float32 Tensor not requiring grad) sets it instead."""
        if not self._enabled:
            return
        if new_scale is None:
            _core.GradScaler.update(self._handle)
            return
        if not isinstance(new_scale, float):
            ok = (isinstance(new_scale, _core.Tensor) and new_scale.dtype.name == "float32"
                  and new_scale.numel() == 1 and not new_scale.requires_grad)
            if not ok:
                raise AssertionError(_NEW_SCALE_REASON)
            new_scale = float(new_scale.item())
        _core.GradScaler.update_scale(self._handle, new_scale)

    def get_scale(self):
        """The scale as a Python float (init_scale before the first scale();
        1.0 when disabled)."""
        return _core.GradScaler.get_scale(self._handle)

    def get_growth_factor(self):
        return _core.GradScaler.get_growth_factor(self._handle)

    def set_growth_factor(self, new_factor):
        _core.GradScaler.set_growth_factor(self._handle, float(new_factor))

    def get_backoff_factor(self):
        return _core.GradScaler.get_backoff_factor(self._handle)

    def set_backoff_factor(self, new_factor):
        _core.GradScaler.set_backoff_factor(self._handle, float(new_factor))

    def get_growth_interval(self):
        return int(_core.GradScaler.get_growth_interval(self._handle))

    def set_growth_interval(self, new_interval):
        _core.GradScaler.set_growth_interval(self._handle, int(new_interval))

    def _get_growth_tracker(self):
        return int(_core.GradScaler.get_growth_tracker(self._handle))

    def is_enabled(self):
        return bool(_core.GradScaler.is_enabled(self._handle))

    def state_dict(self):
        """torch's {"scale", "growth_factor", "backoff_factor",
        "growth_interval", "_growth_tracker"} as Python numbers; {} when
        disabled."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self.get_growth_factor(),
                "backoff_factor": self.get_backoff_factor(), "growth_interval": self.get_growth_interval(),
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        """torch's load_state_dict (numbers, or 1-element tensors such as
        tessera.load gives); nothing changes on error."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        from ._factories import tensor
        from ._dtypes import dtype
        with TensorList() as entries:
            for key, value in state_dict.items():
                if not isinstance(value, _core.Tensor):
                    is_int = isinstance(value, int) and not isinstance(value, bool)
                    value = tensor(value, dtype=dtype.int64 if is_int else dtype.float64)
                entries.append(value, str(key))
            _core.GradScaler.load_state_dict(self._handle, entries)

    def close(self):
        """Releases the native scaler now; later calls raise
        InvalidArgumentError."""
        _core._release(self._handle)

    def __repr__(self):
        return (f"GradScaler(scale={self.get_scale()}, growth_factor={self.get_growth_factor()}, "
                f"backoff_factor={self.get_backoff_factor()}, growth_interval={self.get_growth_interval()}, "
                f"enabled={self._enabled})")
