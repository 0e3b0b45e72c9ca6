"""tessera.nn.parallel: torch.nn.parallel.DistributedDataParallel of
PyTorch 1.13 over include/tessera/distributed.h's reducer (tsr_ddp_*).

    import tessera as torch
    import tessera.distributed as dist
    from tessera.nn.parallel import DistributedDataParallel as DDP
    dist.init_process_group("gloo")
    model = DDP(Net())                 # every rank starts from rank 0's values
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in my_shard_of_the_data:
        loss = loss_fn(model(x), y)    # the mean over this rank's batch
        loss.backward()                # .grad: the average over the ranks
        opt.step()
        opt.zero_grad()

The reduction runs in the library: each parameter's post-accumulate-grad
hook copies its gradient into a bucket, a full bucket's all-reduce starts
in the background while backward goes on, and backward returns once every
.grad holds the average (distributed.h describes the buckets, their
rebuild after the first iteration, and the rest).

Where this differs from torch 1.13:
- A parameter that got no gradient without find_unused_parameters fails
  the backward itself (on every rank, naming the parameter), not the next
  forward; with find_unused_parameters unused parameters are found at the
  end of backward rather than from the forward's outputs.
- bf16_compress_hook works with Gloo on the CPU (torch 1.13 asks for NCCL).
- register_comm_hook takes the built-in hooks only (allreduce_hook,
  fp16_compress_hook, bf16_compress_hook: tessera's or torch's own
  functions); a Python hook on GradBucket futures is not supported.
- CPU modules only (device_ids and output_device must be None); dim,
  static_graph and join are not supported.
"""
import contextlib as _contextlib

from . import _core
from . import errors as _errors
from ._grad import is_grad_enabled as _is_grad_enabled, no_grad as _no_grad
from ._handles import TensorList as _TensorList
from ._module import Module as _Module

__all__ = ["DistributedDataParallel"]

_BUILTIN_HOOKS = {
    "allreduce_hook": _core.DDP_ALLREDUCE,
    "fp16_compress_hook": _core.DDP_FP16_COMPRESS,
    "bf16_compress_hook": _core.DDP_BF16_COMPRESS,
}


def _builtin_hook_code(hook):
    """The tsr_ddp_comm_hook of a built-in hook: tessera's default_hooks
    functions, or torch's (torch.distributed.algorithms.ddp_comm_hooks.
    default_hooks), recognised by module and name."""
    if not callable(hook):
        raise TypeError("Communication hook must be callable.")
    name = getattr(hook, "__name__", "")
    module = getattr(hook, "__module__", "") or ""
    if name in _BUILTIN_HOOKS and module.endswith("ddp_comm_hooks.default_hooks"):
        return _BUILTIN_HOOKS[name]
    raise _errors.UnsupportedError(
        _errors.Status.UNSUPPORTED,
        "register_comm_hook: tessera runs the built-in hooks in its reducer (allreduce_hook, fp16_compress_hook, "
        "bf16_compress_hook of torch.distributed.algorithms.ddp_comm_hooks.default_hooks or "
        "tessera.distributed.algorithms.ddp_comm_hooks.default_hooks); got {}.{}".format(module, name))


class DistributedDataParallel(_Module):
    """torch.nn.parallel.DistributedDataParallel(module, device_ids=None,
    output_device=None, dim=0, broadcast_buffers=True, process_group=None,
    bucket_cap_mb=25, find_unused_parameters=False, check_reduction=False,
    gradient_as_bucket_view=False, static_graph=False): module's
    parameters get rank 0's values now, and every backward pass through
    them averages their gradients over the group. forward(*inputs) is
    module(*inputs); with broadcast_buffers, rank 0's buffers are broadcast
    before each forward."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=25, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        from . import distributed as _dist
        if not any(p.requires_grad for p in module.parameters()):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        devices = {p.device.type for p in module.parameters()}
        if len(devices) != 1:
            raise ValueError("DistributedDataParallel's input module must be on the same type of devices, but "
                             "input module parameters locate in {}.".format(devices))
        if devices == {"cuda"}:
            # A single-device CUDA module (NCCL reduces its buckets):
            # device_ids / output_device name that device or nothing.
            module_device = next(iter(module.parameters())).device
            for d in list(device_ids or []) + ([output_device] if output_device is not None else []):
                index = d if isinstance(d, int) else getattr(d, "index", d)
                if index is not None and index != module_device.index:
                    raise ValueError("DistributedDataParallel: device_ids / output_device {} do not name the "
                                     "module's device {}".format(d, module_device))
        elif device_ids or output_device:
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with "
                "single-device/multiple-device GPU modules or CPU modules, but got device_ids {}, output_device "
                "{}, and module parameters {}.".format(device_ids, output_device,
                                                       {p.device for p in module.parameters()}))
        if dim != 0:
            raise _errors.UnsupportedError(_errors.Status.UNSUPPORTED,
                                           "DistributedDataParallel: dim applies to scattering over GPUs; "
                                           "only dim=0 is supported")
        if static_graph:
            raise _errors.UnsupportedError(_errors.Status.UNSUPPORTED,
                                           "DistributedDataParallel: static_graph is not supported")
        if check_reduction:
            import warnings
            warnings.warn("The `check_reduction` argument in `DistributedDataParallel` module is deprecated. "
                          "Please avoid using it.")
        if process_group is None:
            process_group = _dist.group.WORLD
            if process_group is None:
                raise RuntimeError("Default process group has not been initialized, please make sure to call "
                                   "init_process_group.")
        self.module = module
        self.process_group = process_group
        # torch's: [the device] and the device for a CUDA module, None for a CPU one.
        cuda_index = next(iter(module.parameters())).device.index if devices == {"cuda"} else None
        self.device_ids = None if cuda_index is None else [cuda_index]
        self.output_device = cuda_index
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = False
        self.bucket_bytes_cap = int(bucket_cap_mb * 1024 * 1024)
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        # The parameters that require grad, each once (torch's
        # _build_params_for_reducer), with their names for messages.
        seen = set()
        names, params = [], []
        for name, p in module.named_parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                names.append(name)
                params.append(p)
        self._param_names = names
        self._params = params
        self._comm_hook_registered = False
        with _TensorList() as native:
            for p in params:
                native.append(p)
            # A cap of 0 or less closes every bucket at its first parameter
            # in torch; 1 byte does that here (0 asks for the default).
            self._ddp = _core.Ddp.create(process_group._handle, native, max(1, self.bucket_bytes_cap),
                                         bool(find_unused_parameters), bool(gradient_as_bucket_view),
                                         _core.DDP_ALLREDUCE)
        self._ddp.set_param_names("\n".join(names))
        # torch's _sync_module_states also gives every rank rank 0's buffers.
        self._sync_buffers(_dist)

    def _module_buffers(self):
        return [b for b in self.module.buffers()]

    def _sync_buffers(self, dist=None):
        if dist is None:
            from . import distributed as dist
        buffers = self._module_buffers()
        if not buffers:
            return
        with _no_grad():
            works = [dist.broadcast(b, 0, group=self.process_group, async_op=True) for b in buffers]
            for w in works:
                w.wait()

    def forward(self, *inputs, **kwargs):
        # torch decides at the forward whether its backward reduces
        # (prepare_for_backward): no_sync() around the forward is what
        # counts, also for a backward run after the block.
        sync = _is_grad_enabled() and self.require_backward_grad_sync
        self._ddp.set_require_sync(sync)
        if _is_grad_enabled() and self.broadcast_buffers and self.require_forward_param_sync:
            self._sync_buffers()
        output = self.module(*inputs, **kwargs)
        self.require_forward_param_sync = sync
        return output

    @_contextlib.contextmanager
    def no_sync(self):
        """torch's no_sync(): forward passes inside the block make backward
        passes that accumulate gradients locally, without communication;
        the first synchronized backward averages what was accumulated."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def register_comm_hook(self, state, hook):
        """torch's register_comm_hook(state, hook) for the built-in hooks
        (default_hooks.allreduce_hook, fp16_compress_hook,
        bf16_compress_hook); state must be None or the process group (the
        hooks reduce over this module's group). Once per module, before
        training (torch's rule)."""
        code = _builtin_hook_code(hook)
        if state is not None and state is not self.process_group:
            raise _errors.UnsupportedError(
                _errors.Status.UNSUPPORTED,
                "register_comm_hook: the built-in hooks reduce over the module's process group; state must be "
                "None or that group")
        self._ddp.register_comm_hook(code)

    def _get_bucket_indices(self):
        """Each bucket's parameter indices, in reduction order (what torch's
        _get_ddp_logging_data() reports as rebuilt_per_bucket_param_indices)."""
        flat = list(self._ddp.bucket_indices())
        count = flat[0]
        sizes = flat[1:1 + count]
        rest = flat[1 + count:]
        out, k = [], 0
        for s in sizes:
            out.append(rest[k:k + s])
            k += s
        return out
