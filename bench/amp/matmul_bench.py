"""bench/amp: bfloat16 and float16 matmul, tessera against torch 1.13 side by
side in one process (tessera through its Python binding: one call per
product, whose overhead is microseconds against milliseconds), in
interleaved rounds so that a load on the machine falls on both.

torch 1.13 has no CPU float16 matmul: float16 is compared with torch's
bfloat16 (the other 16-bit type) and with tessera's own float32 (float16 is
computed as float32 sums of exact products). Every figure is the median of
the rounds; ratios are tessera's time over the other's (below 1: tessera
faster). With the machine's bfloat16 peak (bf16_peak.c) each product is also
given as a fraction of it.

usage: matmul_bench.py [--peak GFLOPS] [--threads N] [--rounds R]
"""
import argparse
import statistics
import time

import tessera as ts
import torch

SIZES = [(1024, 1024, 1024), (4096, 4096, 1024)]  # M, N, K


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peak", type=float, default=0.0, help="bfloat16 peak of the threads used, GFLOP/s")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    ts.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; tessera {ts.get_num_threads()} threads; "
          f"median of {args.rounds} interleaved rounds")
    print(f"{'M x N x K':>18} {'contender':<22} {'median ms':>10} {'GFLOP/s':>9} {'of bf16 peak':>13}")
    for m, n, k in SIZES:
        g = torch.Generator().manual_seed(0)
        a32, b32 = torch.randn(m, k, generator=g), torch.randn(k, n, generator=g)
        a16, b16 = a32.bfloat16(), b32.bfloat16()
        ah, bh = a32.half(), b32.half()
        t = {name: (ts.from_dlpack(x), ts.from_dlpack(y)) for name, (x, y) in
             {"bf16": (a16, b16), "f16": (ah, bh), "f32": (a32, b32)}.items()}
        runs = {
            "tessera bfloat16": lambda: ts.matmul(*t["bf16"]),
            "torch bfloat16": lambda: torch.matmul(a16, b16),
            "tessera float16": lambda: ts.matmul(*t["f16"]),
            "tessera float32": lambda: ts.matmul(*t["f32"]),
            "torch float32": lambda: torch.matmul(a32, b32),
        }
        for fn in runs.values():  # warm-up: primitive caches, pages
            fn()
        times = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, fn in runs.items():
                times[name].append(timed(fn))
        med = {name: statistics.median(v) for name, v in times.items()}
        flops = 2.0 * m * n * k
        for name, s in med.items():
            gf = flops / s / 1e9
            frac = f"{gf / args.peak:12.2f}" if args.peak > 0 else f"{'-':>12}"
            print(f"{f'{m} x {n} x {k}':>18} {name:<22} {s * 1e3:10.2f} {gf:9.0f} {frac:>13}")
        for num, den in [("tessera bfloat16", "torch bfloat16"), ("tessera float16", "torch bfloat16"),
                         ("tessera float16", "tessera float32"), ("tessera float32", "torch float32")]:
            print(f"{'':>18} ratio {num} / {den}: {med[num] / med[den]:.2f}x")


if __name__ == "__main__":
    main()
