"""tessera.backends: torch.backends' namespace. tessera.backends.cudnn holds
torch.backends.cudnn's flags, which decide how the CUDA plugin's cuDNN
convolutions pick their algorithms:

    tessera.backends.cudnn.benchmark = True      # time the candidates once per shape
    tessera.backends.cudnn.deterministic = True  # only algorithms with reproducible bits
    with tessera.backends.cudnn.flags(benchmark=True):
        y = conv(x)

The flags are process-wide (the C API's tsr_cudnn_set_*), as torch's are.
There is no `enabled`: tessera has no CUDA convolution but cuDNN's.
"""
import contextlib
import sys
import types

from . import _core

__all__ = ["cudnn"]


class _CudnnModule(types.ModuleType):
    """torch.backends.cudnn: benchmark, deterministic and allow_tf32 as
    module attributes (read and assigned), is_available(), flags()."""

    @property
    def benchmark(self):
        """Time cuDNN's candidate algorithms the first time a convolution
        shape is met and keep the fastest (default False: cuDNN's heuristics)."""
        return bool(_core.cudnn_benchmark())

    @benchmark.setter
    def benchmark(self, on):
        _core.cudnn_set_benchmark(bool(on))

    @property
    def deterministic(self):
        """Use only algorithms cuDNN marks deterministic (default False)."""
        return bool(_core.cudnn_deterministic())

    @deterministic.setter
    def deterministic(self, on):
        _core.cudnn_set_deterministic(bool(on))

    @property
    def allow_tf32(self):
        """Let float32 convolutions use TF32 tensor cores (default True, as torch's)."""
        return bool(_core.cudnn_allow_tf32())

    @allow_tf32.setter
    def allow_tf32(self, on):
        _core.cudnn_set_allow_tf32(bool(on))

    @staticmethod
    def is_available():
        """torch.backends.cudnn.is_available(): the CUDA plugin, which links
        cuDNN, is loaded and sees a device."""
        return bool(_core.cuda_is_available())

    @staticmethod
    @contextlib.contextmanager
    def flags(benchmark=False, deterministic=False, allow_tf32=True):
        """torch.backends.cudnn.flags(...): sets the flags inside the block
        and restores the previous ones after it."""
        previous = (_core.cudnn_set_benchmark(bool(benchmark)),
                    _core.cudnn_set_deterministic(bool(deterministic)),
                    _core.cudnn_set_allow_tf32(bool(allow_tf32)))
        try:
            yield
        finally:
            _core.cudnn_set_benchmark(previous[0])
            _core.cudnn_set_deterministic(previous[1])
            _core.cudnn_set_allow_tf32(previous[2])


cudnn = _CudnnModule("tessera.backends.cudnn", _CudnnModule.__doc__)
cudnn.__all__ = ["benchmark", "deterministic", "allow_tf32", "is_available", "flags"]
sys.modules[cudnn.__name__] = cudnn
