"""torch 1.13's side of bench/fashion/autocast: milliseconds per training
step of the Fashion CNN (torch_fashion.py's network, AdamW, batch 64,
channels_last), in float32 and under torch.autocast("cpu", bfloat16), with
the protocol of examples/fashion's compare_autocast: one untimed warm-up
step, then STEPS steps on the batches at (i * 64) % (n - 63) of the first
4,000 training images, from the same initial weights for both modes.

    python3 torch_autocast_steps.py DATA_DIR STEPS THREADS

Prints "torch float32 <ms> bfloat16 <ms>".
"""
import sys
import time

import torch
from torch import nn

import torch_fashion


def ms_per_step(initial, x, y, steps, autocast):
    m = torch_fashion.model()
    m.load_state_dict(initial.state_dict())
    m = m.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3, weight_decay=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    t0 = 0.0
    for i in range(steps + 1):
        if i == 1:
            t0 = time.perf_counter()
        first = (i * torch_fashion.BATCH) % (len(y) - torch_fashion.BATCH + 1)
        xb = x[first:first + torch_fashion.BATCH].contiguous(memory_format=torch.channels_last)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            loss = loss_fn(m(xb), y[first:first + torch_fashion.BATCH])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return (time.perf_counter() - t0) * 1e3 / steps


def main():
    data_dir, steps, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    torch.set_num_threads(threads)
    torch.manual_seed(20241126)
    x, y = torch_fashion.load(data_dir, "train", 4000)
    initial = torch_fashion.model()
    f32 = ms_per_step(initial, x, y, steps, False)
    bf16 = ms_per_step(initial, x, y, steps, True)
    print(f"torch float32 {f32:.2f} bfloat16 {bf16:.2f}", flush=True)


if __name__ == "__main__":
    main()
