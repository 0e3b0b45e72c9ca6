"""bench/amp_conv, torch's side: the channels_last conv2d step of
amp_conv_bench.c (same shapes, same step) in PyTorch 1.13, bfloat16 as
torch.autocast("cpu") runs it (checked: under autocast conv2d casts input
and weight to bfloat16 and returns bfloat16) and float32.
usage: torch_amp_conv.py THREADS REPS; prints lines as amp_conv_bench."""
import statistics
import sys
import time

import torch
import torch.nn.functional as F

CASES = [("resnet 3x3 64->64 56x56", 16, 64, 64, 56, 3, 1),
         ("resnet 3x3 128->128 28x28", 16, 128, 128, 28, 3, 1),
         ("resnet 3x3 256->256 14x14", 16, 256, 256, 14, 3, 1),
         ("resnet 1x1 64->256 56x56", 16, 64, 256, 56, 1, 1),
         ("resnet 3x3 128->256 28x28 stride 2", 16, 128, 256, 28, 3, 2)]


def step_ms(n, c, k, h, kernel, stride, dtype, reps):
    pad = kernel // 2
    x = torch.randn(n, c, h, h).to(dtype).contiguous(memory_format=torch.channels_last).requires_grad_()
    w = (torch.randn(k, c, kernel, kernel) * 0.05).to(dtype).requires_grad_()
    oh = (h + 2 * pad - kernel) // stride + 1
    g = torch.randn(n, k, oh, oh).to(dtype).contiguous(memory_format=torch.channels_last)
    times = []
    for r in range(-2, reps):
        t0 = time.perf_counter()
        y = F.conv2d(x, w, None, stride, pad)
        y.backward(g)
        t1 = time.perf_counter()
        x.grad = None
        w.grad = None
        if r >= 0:
            times.append((t1 - t0) * 1e3)
    return statistics.median(times)


def main():
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    torch.set_num_threads(threads)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = F.conv2d(torch.randn(1, 2, 4, 4), torch.randn(2, 2, 3, 3))
    assert y.dtype == torch.bfloat16, y.dtype
    for name, n, c, k, h, kernel, stride in CASES:
        oh = (h + 2 * (kernel // 2) - kernel) // stride + 1
        gflop = 3.0 * 2.0 * n * k * oh * oh * c * kernel * kernel / 1e9
        for dtype, dn in ((torch.bfloat16, "bf16"), (torch.float32, "f32")):
            print(f"case {name} dtype {dn} ms {step_ms(n, c, k, h, kernel, stride, dtype, reps):.3f} "
                  f"gflop {gflop:.3f}", flush=True)


if __name__ == "__main__":
    main()
