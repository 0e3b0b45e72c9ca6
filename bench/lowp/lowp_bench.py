"""bfloat16/float16 ops, tessera against torch 1.13 (bench/lowp/run).

Each op on a [256, 4096] input (1 Mi elements, 2 MiB in a 16-bit dtype), 2
threads for both libraries, the two measured alternately in one process.
Prints the median of 31 calls for each, their ratio (tessera / torch; below 1
is faster) and a floor: the median of a plain copy of the input (clone), the
memory traffic every op needs at least. float32 rows are there to show the
16-bit paths cost about what float32 does. "refuses": torch 1.13 has no CPU
kernel for that dtype (tessera follows torch 2.x there)."""
import time

import torch
import torch.nn.functional as F

import tessera as ts
import tessera.nn.functional as TF

torch.set_num_threads(2)
ts.set_num_threads(2)
REPS = 31


def medians(fa, fb):
    fa(), fb()
    a, b = [], []
    for _ in range(REPS):
        t = time.perf_counter(); fa(); a.append(time.perf_counter() - t)  # noqa: E702
        t = time.perf_counter(); fb(); b.append(time.perf_counter() - t)  # noqa: E702
    a.sort(), b.sort()
    return a[REPS // 2] * 1e3, b[REPS // 2] * 1e3


OPS = [
    ("gelu", TF.gelu, F.gelu),
    ("gelu tanh", lambda x: TF.gelu(x, approximate="tanh"), lambda x: F.gelu(x, approximate="tanh")),
    ("silu", TF.silu, F.silu),
    ("tanh", ts.tanh, torch.tanh),
    ("exp", ts.exp, torch.exp),
    ("softmax", lambda x: ts.softmax(x, 1), lambda x: torch.softmax(x, 1)),
    ("log_softmax", lambda x: ts.log_softmax(x, 1), lambda x: torch.log_softmax(x, 1)),
    ("layer_norm", lambda x: TF.layer_norm(x, [4096]), lambda x: F.layer_norm(x, [4096])),
    ("sum", ts.sum, torch.sum),
    ("mse_loss", lambda x: TF.mse_loss(x, x), lambda x: F.mse_loss(x, x)),
]


def main():
    base = torch.randn(256, 4096)
    print(f"{'op':12s} {'dtype':9s} {'tessera ms':>10s} {'torch ms':>9s} {'ratio':>6s} {'floor ms':>9s}")
    for dt, tdt in [(torch.float32, ts.float32), (torch.bfloat16, ts.bfloat16), (torch.float16, ts.float16)]:
        xt = base.to(dt)
        xm = ts.from_dlpack(xt.clone())
        floor, _ = medians(lambda: xm.clone(), lambda: None)
        for name, mine, theirs in OPS:
            try:
                theirs(xt)
                m, t = medians(lambda: mine(xm), lambda: theirs(xt))
                ratio = f"{m / t:6.2f}"
                ts_ = f"{t:9.3f}"
            except RuntimeError:
                m, _ = medians(lambda: mine(xm), lambda: None)
                ratio, ts_ = "     -", "  refuses"
            print(f"{name:12s} {str(dt)[6:]:9s} {m:10.3f} {ts_} {ratio} {floor:9.3f}", flush=True)


if __name__ == "__main__":
    main()
