"""tessera: tensors with PyTorch's semantics behind a stable C ABI.

    import tessera
    x = tessera.arange(6, dtype=tessera.float32).view(2, 3)
    w = tessera.ones(3, 2, requires_grad=True)
    loss = (x @ w).sum()
    loss.backward()
    with tessera.no_grad():
        w -= w.grad * 0.1
    tessera.save({"w": w}, "w.tsr", compression="zstd", metadata={"step": "1"})
    tessera.load("w.tsr")["w"]

`with tessera.checkpoint():` around a block of a model recomputes its
activations during backward instead of keeping them (gradient
checkpointing; also tessera.checkpoint(fn, *args) and checkpoint_sequential,
as torch.utils.checkpoint); tessera.autograd_grad is torch.autograd.grad.
`with tessera.inference_mode():` is torch.inference_mode, and
`with tessera.detect_anomaly():` / tessera.set_detect_anomaly(True) are
torch.autograd's anomaly detection. torch.nn.functional's linear, gelu,
layer_norm, embedding, conv2d, max_pool2d, avg_pool2d, adaptive_avg_pool2d
and batch_norm are module functions (tessera.linear(x, w, b)).

Failures raise tessera.Error subclasses carrying the C status and message.
Tensors are released when collected, or at once with close() / a with
block. Tensors exchange memory with NumPy and PyTorch through DLPack
(tessera.from_dlpack, numpy.from_dlpack(t), torch.from_dlpack(t)).
"""
from . import _core
from .errors import *  # noqa: F401,F403  (registers the classes with _core first)
from . import errors
from ._dtypes import dtype, memory_format, device, DeviceType
from ._tensor import Tensor
from ._handles import Storage
from ._random import Generator, default_generator, manual_seed, rand, randn, randperm, dropout
from ._factories import (empty, empty_strided, zeros, ones, full, arange, tensor, empty_like,
                         zeros_like, ones_like, full_like)
from ._functions import *  # noqa: F401,F403
from ._grad import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,
                    is_inference_mode_enabled, detect_anomaly, set_detect_anomaly,
                    is_anomaly_enabled)
from ._autograd import autograd_grad
from ._checkpoint import (checkpoint, checkpoint_sequential, checkpoint_begin, checkpoint_end,
                          checkpoint_depth)
from ._memory import (memory_stats, memory_allocated, max_memory_allocated, memory_reserved,
                      max_memory_reserved, reset_peak_memory_stats,
                      reset_accumulated_memory_stats, empty_cache, set_memory_limit,
                      memory_limit)
from ._serialization import save, load, LoadedTensors, Saver, File, open_file
from ._dlpack import from_dlpack, from_numpy
from . import _areas, _tensor
from . import optim, nn, profiler  # torch.optim, torch.nn (init, functional, utils), torch.profiler
from . import utils                 # torch.utils.checkpoint, torch.utils.data
from . import autograd              # torch.autograd (grad, backward, modes, profiler)
from . import amp                   # torch.amp / torch.cuda.amp (GradScaler)
from . import _cuda as cuda         # torch.cuda
from . import backends              # torch.backends.cudnn (benchmark, deterministic, allow_tf32)
from ._autocast import (autocast, is_autocast_enabled, is_autocast_cpu_enabled,  # torch.autocast
                        get_autocast_gpu_dtype, get_autocast_cpu_dtype, is_autocast_cache_enabled,
                        set_autocast_cache_enabled, clear_autocast_cache)
from . import cpu                   # torch.cpu.amp.autocast
from . import distributed           # torch.distributed (process groups over Gloo)
from . import linalg                # torch.linalg (the norms, matmul)
from ._tensor import Size
import sys as _sys
_sys.modules[__name__ + ".cuda"] = cuda
_sys.modules[__name__ + ".cuda.memory"] = cuda.memory
cuda.amp.GradScaler = amp.GradScaler  # torch.cuda.amp.GradScaler is tessera.amp.GradScaler
_sys.modules[__name__ + ".cuda.amp"] = cuda.amp

# The ops of each area module (indexing, sorting, losses, ...): tessera.X,
# and their Tensor methods (Tensor.X).
_areas.install(globals(), _tensor.AreaMethods)

__version__ = _core.version_string()
version_number = _core.version_number  # major*10000 + minor*100 + patch of the loaded library
set_num_threads = _core.set_num_threads  # torch.set_num_threads: the kernels' threads (n >= 1)
get_num_threads = _core.get_num_threads

# torch-style module attributes: tessera.float32, tessera.channels_last, ...
globals().update({d.name: d for d in dtype})
globals().update({alias: d for alias, d in _dtypes.ALIASES.items()})
globals().update({f.name: f for f in memory_format})
