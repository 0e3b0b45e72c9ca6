#!/usr/bin/env python3
"""PyTorch doing tsr_cuda_bench's work on cuda:0, for its ratios.

Usage: python3 bench/cuda/torch_reference.py [--quick]

Same cases, sizes and timing as bench/cuda (copy.cpp, train_step.cpp, ops.cpp):
GPU milliseconds from CUDA events, medians over rounds, GB/s counting bytes
read + written, a device-to-device copy of the same bytes beside each copy.
Needs a CUDA build of PyTorch (any version; it prints which). Without a GPU
it says so and exits 0: a benchmark, not a test.
"""
import statistics
import sys

import torch


def gpu_ms(fn, reps=1):
    """GPU time of reps calls of fn, from events on the current stream."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / reps


def row(name, ms, nbytes=None):
    rate = f"{2 * nbytes / ms / 1e6:9.1f} GB/s" if nbytes else ""
    print(f"  {name:<48} {ms:8.3f} ms  {rate}")


def copy_case(name, src, make, rounds):
    """Times make() (a copy of src) and a device-to-device copy of its bytes."""
    nbytes = src.numel() * src.element_size()
    flat = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(flat)
    d2d = lambda: dst.copy_(flat)
    make(), d2d()  # warm-up
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(gpu_ms(make))
        theirs.append(gpu_ms(d2d))
    t, m = statistics.median(ours), statistics.median(theirs)
    print(f"  {name} ({nbytes / 2**20:.1f} MiB)")
    row(f"torch {torch.__version__}", t, nbytes)
    row("device-to-device copy_", m, nbytes)


def train_step_case(rounds, steps=50):
    """The digits MLP step (64-128-10, batch 64, cross entropy, SGD 0.1)."""
    g = torch.Generator().manual_seed(7)
    w1 = torch.randn(64, 128, generator=g).cuda().requires_grad_()
    b1 = torch.zeros(128, device="cuda", requires_grad=True)
    w2 = torch.randn(128, 10, generator=g).cuda().requires_grad_()
    b2 = torch.zeros(10, device="cuda", requires_grad=True)
    x = torch.randn(64, 64, generator=g).cuda()
    y = (torch.arange(64) % 10).cuda()
    params = [w1, b1, w2, b2]

    def step():
        loss = torch.nn.functional.cross_entropy(torch.relu(x @ w1 + b1) @ w2 + b2, y)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p.add_(p.grad, alpha=-0.1)
                p.grad = None

    gpu_ms(step, steps)
    times = [gpu_ms(step, steps) for _ in range(rounds)]
    row(f"torch {torch.__version__} on cuda:0 (GPU time, events)", statistics.median(times))


def ops_case(rounds):
    """Part 4: elementwise ops and reductions on float32 [4096, 4096]."""
    g = torch.Generator(device="cuda").manual_seed(3)
    a = torch.randn(4096, 4096, device="cuda", generator=g)
    b = torch.randn(4096, 4096, device="cuda", generator=g)
    m, row_bytes = a.numel() * 4, 4096 * 4
    cases = [
        ("a + b", 3 * m, lambda: a + b),
        ("a + b.t()", 3 * m, lambda: a + b.t()),
        ("relu(a)", 2 * m, lambda: torch.relu(a)),
        ("a.to(float16)", 1.5 * m, lambda: a.to(torch.float16)),
        ("a.sum(0)", m + row_bytes, lambda: a.sum(0)),
        ("a.sum(1)", m + row_bytes, lambda: a.sum(1)),
        ("a.max(0) (values, indices)", m + 3 * row_bytes, lambda: a.max(0)),
        ("a.max(1) (values, indices)", m + 3 * row_bytes, lambda: a.max(1)),
        ("softmax(a, 0)", 2 * m, lambda: torch.softmax(a, 0)),
        ("softmax(a, 1)", 2 * m, lambda: torch.softmax(a, 1)),
    ]
    for name, nbytes, fn in cases:
        fn()
        t = statistics.median(gpu_ms(fn) for _ in range(rounds))
        print(f"  {name:<40} {t:8.3f} ms  {nbytes / t / 1e6:7.1f} GB/s")


def main():
    quick = "--quick" in sys.argv[1:]
    if not torch.cuda.is_available():
        print("no CUDA device: torch.cuda.is_available() is False")
        return
    rounds = 3 if quick else 21
    print(f"GPU: {torch.cuda.get_device_name(0)}; torch {torch.__version__}, CUDA {torch.version.cuda}")
    print("medians over rounds, GPU milliseconds")
    print("\n2. strided copies on the GPU")
    m = torch.empty(4096, 4096, device="cuda").normal_()
    dense = torch.empty_like(m)
    copy_case("transpose(4096x4096).contiguous()", m, lambda: m.t().contiguous(), rounds)
    copy_case("copy_ of the transpose into a preallocated matrix", m,
              lambda: dense.copy_(m.t()), rounds)
    x = torch.empty(32, 64, 56, 56, device="cuda").normal_()
    copy_case("NCHW [32,64,56,56] -> channels_last", x,
              lambda: x.contiguous(memory_format=torch.channels_last), rounds)
    print("\n3. digits training step, MLP 64-128-10, batch 64 (milliseconds per step)")
    train_step_case(rounds)
    print("\n4. elementwise ops and reductions on the GPU, float32 [4096,4096]")
    ops_case(rounds)


if __name__ == "__main__":
    main()
