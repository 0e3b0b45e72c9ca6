"""tessera.optim.lr_scheduler: torch.optim.lr_scheduler of PyTorch 1.13.

StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LinearLR, OneCycleLR
and SequentialLR run in the library (include/tessera/lr_scheduler.h, the
same double arithmetic as torch's Python, so the rates are torch's bit for
bit); LambdaLR, whose schedule is a Python function, runs here over the
optimizer's param_groups. Each writes param_groups[g]["lr"] at every
step(); get_last_lr() gives the values of the last one.
"""
import types
import warnings

from . import _core
from ._tensor import Closable

__all__ = ["LambdaLR", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR", "OneCycleLR",
           "SequentialLR"]
# Names also exported by tessera.nn.functional.
FUNCTIONAL = []
# Tensor methods (name -> function), installed on tessera.Tensor by __init__.
TENSOR_METHODS = {}

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def _check_optimizer(optimizer):
    from .optim import Optimizer
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _check_resume(optimizer, last_epoch):
    """torch's KeyError when resuming without initial_lr (the library says
    the same as an InvalidArgumentError)."""
    if last_epoch != -1:
        for i, group in enumerate(optimizer.param_groups):
            if "initial_lr" not in group:
                raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming an optimizer")


def _print_lrs(scheduler, epoch=None):
    if scheduler.verbose:
        for i, lr in enumerate(scheduler.get_last_lr()):
            if epoch is None:
                print(f"Adjusting learning rate of group {i} to {lr:.4e}.")
            else:
                epoch_str = ("%.2f" if isinstance(epoch, float) else "%.5d") % epoch
                print(f"Epoch {epoch_str}: adjusting learning rate of group {i} to {lr:.4e}.")


class _LRScheduler(Closable):
    """A scheduler of the library: step(), get_last_lr(), last_epoch,
    base_lrs, optimizer, close()."""

    def __init__(self, optimizer, make, last_epoch=-1, verbose=False):
        _check_optimizer(optimizer)
        _check_resume(optimizer, last_epoch)
        self.optimizer = optimizer
        self.verbose = verbose
        self._handle = make(optimizer._handle)
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        _print_lrs(self)

    @property
    def last_epoch(self):
        """The epoch of the last step (0 after the constructor)."""
        return _core.LrScheduler.last_epoch(self._handle)

    def step(self, epoch=None):
        """The next epoch's rates into the optimizer's groups; step(epoch),
        deprecated in torch, jumps to epoch through the closed form where the
        scheduler has one."""
        if epoch is None:
            _core.LrScheduler.step(self._handle)
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning)
            _core.LrScheduler.step_epoch(self._handle, int(epoch))
        _print_lrs(self, epoch)

    def get_last_lr(self):
        """The lr of each group after the last step."""
        return list(_core.LrScheduler.get_last_lr(self._handle))

    # Kept by the library; the rest of the state_dict is this object's own.
    _NATIVE_STATE = ("base_lrs", "last_epoch", "_step_count", "_last_lr", "_get_lr_called_within_step")

    def state_dict(self):
        """torch's state_dict: the scheduler's attributes but the optimizer
        (base_lrs, last_epoch, _step_count, _last_lr and its arguments)."""
        d = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_handle")}
        d.update(base_lrs=list(_core.LrScheduler.base_lrs(self._handle)), last_epoch=self.last_epoch,
                 _step_count=_core.LrScheduler.step_count(self._handle), _get_lr_called_within_step=False,
                 _last_lr=self.get_last_lr())
        return d

    def load_state_dict(self, state_dict):
        """torch's load_state_dict: a scheduler made afresh (after the
        optimizer's load_state_dict) continues the saved schedule."""
        _core.LrScheduler.set_state(self._handle, int(state_dict["last_epoch"]), int(state_dict["_step_count"]),
                                    [float(v) for v in state_dict["base_lrs"]],
                                    [float(v) for v in state_dict["_last_lr"]])
        self.__dict__.update({k: v for k, v in state_dict.items() if k not in self._NATIVE_STATE})

    def close(self):
        """Releases the native scheduler now (its reference to the optimizer)."""
        _core._release(self._handle)


class StepLR(_LRScheduler):
    """torch.optim.lr_scheduler.StepLR(optimizer, step_size, gamma=0.1,
    last_epoch=-1, verbose=False)."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, lambda h: _core.LrScheduler.step_lr(h, int(step_size), float(gamma),
                                                                        int(last_epoch)), last_epoch, verbose)


class MultiStepLR(_LRScheduler):
    """torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones, gamma=0.1,
    last_epoch=-1, verbose=False)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        self.milestones, self.gamma = list(milestones), gamma
        super().__init__(optimizer, lambda h: _core.LrScheduler.multi_step_lr(
            h, [int(m) for m in self.milestones], float(gamma), int(last_epoch)), last_epoch, verbose)


class ExponentialLR(_LRScheduler):
    """torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma, last_epoch=-1,
    verbose=False)."""

    def __init__(self, optimizer, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(optimizer, lambda h: _core.LrScheduler.exponential_lr(h, float(gamma), int(last_epoch)),
                         last_epoch, verbose)


class CosineAnnealingLR(_LRScheduler):
    """torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max, eta_min=0,
    last_epoch=-1, verbose=False)."""

    def __init__(self, optimizer, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, lambda h: _core.LrScheduler.cosine_annealing_lr(
            h, int(T_max), float(eta_min), int(last_epoch)), last_epoch, verbose)


class LinearLR(_LRScheduler):
    """torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1/3,
    end_factor=1.0, total_iters=5, last_epoch=-1, verbose=False)."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1,
                 verbose=False):
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, lambda h: _core.LrScheduler.linear_lr(
            h, float(start_factor), float(end_factor), int(total_iters), int(last_epoch)), last_epoch, verbose)


def _values(param):
    return [float(v) for v in param] if isinstance(param, (list, tuple)) else [float(param)]


class OneCycleLR(_LRScheduler):
    """torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr,
    total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
    anneal_strategy='cos', cycle_momentum=True, base_momentum=0.85,
    max_momentum=0.95, div_factor=25., final_div_factor=1e4,
    three_phase=False, last_epoch=-1, verbose=False)."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25., final_div_factor=1e4, three_phase=False, last_epoch=-1, verbose=False):
        _check_optimizer(optimizer)
        # torch's checks that the library cannot see (Python types).
        if total_steps is None and epochs is None and steps_per_epoch is None:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        else:
            if epochs is None or epochs <= 0 or not isinstance(epochs, int):
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if steps_per_epoch is None or steps_per_epoch <= 0 or not isinstance(steps_per_epoch, int):
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must by one of 'cos' or 'linear', instead got {anneal_strategy}")
        self.total_steps = total_steps if total_steps is not None else epochs * steps_per_epoch
        self.cycle_momentum = cycle_momentum
        self.use_beta1 = "betas" in optimizer.defaults
        super().__init__(optimizer, lambda h: _core.LrScheduler.one_cycle_lr(
            h, _values(max_lr), int(total_steps or 0), int(epochs or 0), int(steps_per_epoch or 0),
            float(pct_start), anneal_strategy == "linear", bool(cycle_momentum), _values(base_momentum),
            _values(max_momentum), float(div_factor), float(final_div_factor), bool(three_phase),
            int(last_epoch)), -1, verbose)


class SequentialLR(_LRScheduler):
    """torch.optim.lr_scheduler.SequentialLR(optimizer, schedulers,
    milestones, last_epoch=-1, verbose=False): the library's schedulers
    (up to four in the bindings; not LambdaLR, which runs in Python)."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1, verbose=False):
        _check_optimizer(optimizer)
        schedulers = list(schedulers)
        for i, s in enumerate(schedulers):
            if getattr(s, "optimizer", None) is not optimizer:
                raise ValueError("Sequential Schedulers expects all schedulers to belong to the same optimizer, "
                                 f"but got schedulers at index {i} to be different than the optimizer passed in.")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        for i, s in enumerate(schedulers):
            if not isinstance(s, _LRScheduler) or isinstance(s, SequentialLR):
                raise TypeError(f"schedulers[{i}] is a {type(s).__name__}: tessera's SequentialLR takes the "
                                "library's schedulers (StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, "
                                "LinearLR, OneCycleLR)")
        if len(schedulers) > 4:
            raise ValueError(f"tessera's bindings take at most 4 schedulers in a SequentialLR, got {len(schedulers)}")
        self._schedulers = schedulers
        self._milestones = list(milestones)
        handles = [s._handle for s in schedulers] + [None] * (4 - len(schedulers))
        super().__init__(optimizer, lambda h: _core.LrScheduler.sequential_lr(
            h, len(schedulers), *handles, [int(m) for m in milestones], int(last_epoch)), -1, verbose)

    def step(self):
        """The next epoch: the child whose span it is steps (a child starting
        at a milestone restarts at epoch 0)."""
        _core.LrScheduler.step(self._handle)
        _print_lrs(self)

    def state_dict(self):
        """torch's: _milestones, last_epoch, _last_lr and each child's
        state_dict in _schedulers."""
        return {"_milestones": list(self._milestones), "last_epoch": self.last_epoch, "_last_lr": self.get_last_lr(),
                "_schedulers": [s.state_dict() for s in self._schedulers]}

    def load_state_dict(self, state_dict):
        for child, saved in zip(self._schedulers, state_dict["_schedulers"]):
            child.load_state_dict(saved)
        _core.LrScheduler.set_state(self._handle, int(state_dict["last_epoch"]), 0, [],
                                    [float(v) for v in state_dict["_last_lr"]])
        self._milestones = list(state_dict["_milestones"])


class LambdaLR:
    """torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda, last_epoch=-1,
    verbose=False): lr = initial_lr * lr_lambda(epoch), a function per group
    or one for all. Runs in Python over optimizer.param_groups."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1, verbose=False):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            _check_resume(optimizer, last_epoch)
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.verbose = verbose
        self._step_count = 0
        self._get_lr_called_within_step = False  # torch's flag, kept for its state_dict's keys
        self.step()

    def get_lr(self):
        """base_lr * lr_lambda(last_epoch) for each group."""
        return [base_lr * lmbda(self.last_epoch) for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)]

    def step(self, epoch=None):
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning)
            self.last_epoch = epoch
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]
        _print_lrs(self, epoch)

    def get_last_lr(self):
        return self._last_lr

    def state_dict(self):
        """torch's: the attributes but the optimizer; lr_lambdas as None for
        plain functions (their __dict__ for callable objects)."""
        d = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        d["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                           for fn in self.lr_lambdas]
        return d

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)
