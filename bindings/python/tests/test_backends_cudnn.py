"""tessera.backends.cudnn's flags as torch.backends.cudnn's: the same
defaults, attributes that read back what was assigned, flags() restoring
them; no GPU needed (the flags are process-wide settings of the C API)."""
import unittest

import torch as real_torch

import tessera


class CudnnFlags(unittest.TestCase):
    def tearDown(self):
        tessera.backends.cudnn.benchmark = False
        tessera.backends.cudnn.deterministic = False
        tessera.backends.cudnn.allow_tf32 = True

    def test_defaults_as_torch(self):
        for name in ("benchmark", "deterministic", "allow_tf32"):
            self.assertEqual(getattr(tessera.backends.cudnn, name), getattr(real_torch.backends.cudnn, name), name)
        import tessera.backends.cudnn as by_import
        self.assertIs(by_import, tessera.backends.cudnn)

    def test_assignment_reads_back(self):
        cudnn = tessera.backends.cudnn
        cudnn.benchmark = True
        cudnn.deterministic = 1
        cudnn.allow_tf32 = False
        self.assertEqual((cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32), (True, True, False))

    def test_flags_restores(self):
        cudnn = tessera.backends.cudnn
        cudnn.benchmark = True
        with cudnn.flags(benchmark=False, deterministic=True, allow_tf32=False):
            self.assertEqual((cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32), (False, True, False))
        self.assertEqual((cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32), (True, False, True))
        with self.assertRaises(RuntimeError):
            with cudnn.flags(deterministic=True):
                raise RuntimeError("inside")
        self.assertFalse(cudnn.deterministic)

    def test_is_available_follows_the_plugin(self):
        self.assertEqual(tessera.backends.cudnn.is_available(), tessera.cuda.is_available())


if __name__ == "__main__":
    unittest.main()
