"""Per-call cost of the same small ops through torch's Python API (issue item
13, part 4). Context only: a separate process from tsr_bench, and every call
also pays the CPython interpreter, so compare it with tsr_bench's figures as
"what a Python user of torch pays", not as a like-for-like kernel comparison.

Usage: /usr/bin/python3 bench/torch_python_calls.py [--quick]
Prints ns per call over repeated timeit batches: median and min by wall clock,
and the median by this thread's CPU time (which leaves out time spent
waiting for a core on a loaded machine, like tsr_bench's cpu columns).
"""
import statistics
import sys
import time
import timeit

import torch


def main() -> None:
    quick = "--quick" in sys.argv[1:]
    repeat, number = (5, 2000) if quick else (41, 20000)
    torch.set_num_threads(1)  # same pinning as tsr_bench's main tables
    t = torch.empty(4, 4, dtype=torch.float32)
    with torch.inference_mode():
        t_inf = torch.empty(4, 4, dtype=torch.float32)
    cases = [
        ("t.transpose(0, 1)", "t.transpose(0, 1)", "pass"),
        ("t.transpose(0, 1) under inference_mode", "t_inf.transpose(0, 1)",
         "_g = torch.inference_mode(); _g.__enter__()"),
        ("t.view(16)", "t.view(16)", "pass"),
        ("torch.empty(4, 4)", "torch.empty(4, 4, dtype=torch.float32)", "pass"),
        ("torch.empty(4, 4) under inference_mode",
         "torch.empty(4, 4, dtype=torch.float32)",
         "_g = torch.inference_mode(); _g.__enter__()"),
        ("context: empty loop body (interpreter floor)", "pass", "pass"),
    ]
    env = {"torch": torch, "t": t, "t_inf": t_inf}
    print(f"\n4. torch {torch.__version__} Python API, SEPARATE PROCESS "
          f"(/usr/bin/python3 {sys.version.split()[0]}), torch threads "
          f"{torch.get_num_threads()}; {repeat} batches of {number} calls")
    print(f"  {'call':<52} {'wall med ns':>11} {'wall min ns':>11} {'cpu med ns':>11}")
    print("  " + "-" * 88)
    for name, stmt, setup in cases:
        timer = timeit.Timer(stmt, setup=setup, globals=env)
        timer.timeit(number)  # warm-up
        wall, cpu = [], []
        for _ in range(repeat):
            c0 = time.thread_time()
            wall.append(timer.timeit(number) / number * 1e9)
            cpu.append((time.thread_time() - c0) / number * 1e9)
        print(f"  {name:<52} {statistics.median(wall):>11.1f} {min(wall):>11.1f} "
              f"{statistics.median(cpu):>11.1f}")


if __name__ == "__main__":
    main()
