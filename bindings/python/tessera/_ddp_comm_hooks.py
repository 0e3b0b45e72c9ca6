"""torch.distributed.algorithms.ddp_comm_hooks.default_hooks: the built-in
DistributedDataParallel communication hooks, as tessera.distributed.
algorithms.ddp_comm_hooks.default_hooks. tessera's reducer runs them
itself (distributed.h's tsr_ddp_comm_hook): pass one to
DistributedDataParallel.register_comm_hook(state, hook); calling one
directly is not supported (there is no GradBucket or Future in tessera)."""
import sys as _sys
import types as _types

from . import errors as _errors

_MODULE = "tessera.distributed.algorithms.ddp_comm_hooks.default_hooks"


def _direct_call(name):
    raise _errors.UnsupportedError(
        _errors.Status.UNSUPPORTED,
        "{}: tessera's DistributedDataParallel runs this hook in its reducer; pass it to "
        "DistributedDataParallel.register_comm_hook(None, {}) instead of calling it".format(name, name))


def allreduce_hook(process_group, bucket):
    """torch's allreduce_hook: the bucket divided by the world size, then
    all-reduced (what DDP does without a hook)."""
    _direct_call("allreduce_hook")


def fp16_compress_hook(process_group, bucket):
    """torch's fp16_compress_hook: the bucket cast to float16, divided by
    the world size, all-reduced and cast back."""
    _direct_call("fp16_compress_hook")


def bf16_compress_hook(process_group, bucket):
    """torch's bf16_compress_hook: as fp16_compress_hook through bfloat16
    (Gloo on the CPU too; torch 1.13 asks for NCCL)."""
    _direct_call("bf16_compress_hook")


default_hooks = _types.ModuleType(_MODULE, __doc__)
for _f in (allreduce_hook, fp16_compress_hook, bf16_compress_hook):
    _f.__module__ = _MODULE
    setattr(default_hooks, _f.__name__, _f)
default_hooks.__all__ = ["allreduce_hook", "fp16_compress_hook", "bf16_compress_hook"]
ddp_comm_hooks = _types.ModuleType("tessera.distributed.algorithms.ddp_comm_hooks")
ddp_comm_hooks.default_hooks = default_hooks
algorithms = _types.ModuleType("tessera.distributed.algorithms")
algorithms.ddp_comm_hooks = ddp_comm_hooks
for _m in (algorithms, ddp_comm_hooks, default_hooks):
    _sys.modules[_m.__name__] = _m
