#!/usr/bin/python3
"""bench/bindings/python/call_bench.py — what one call through the Python
binding costs, as a Python user writes it, on a float32 [4, 4] tensor:

  view            t.transpose(0, 1) and close() of the result
  shape           t.shape (the sizes as a tuple)
  ndim            t.ndim
  create_release  tessera.empty((4, 4), dtype=tessera.float32) and close()
  error           t.view(7) raising tessera.ShapeMismatchError, caught

Same protocol as the C baseline (bench/bindings/c/call_bench.c): for each
case the median over BATCHES batches of CALLS calls, timed with a monotonic
clock (time.perf_counter_ns), loop overhead included. One line per case:
  tessera-bench python CASE MEDIAN_NS
Needs the package on PYTHONPATH (bench/bindings/python/run does that)."""
import argparse
import statistics
import time

import tessera as ts


def case_view(t, calls):
    for _ in range(calls):
        t.transpose(0, 1).close()


def case_shape(t, calls):
    for _ in range(calls):
        t.shape


def case_ndim(t, calls):
    for _ in range(calls):
        t.ndim


def case_create_release(t, calls):
    empty, float32 = ts.empty, ts.float32
    for _ in range(calls):
        empty((4, 4), dtype=float32).close()


def case_error(t, calls):
    error = ts.Error
    for _ in range(calls):
        try:
            t.view(7)
        except error:
            pass


CASES = [("view", case_view), ("shape", case_shape), ("ndim", case_ndim),
         ("create_release", case_create_release), ("error", case_error)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batches", type=int, default=15)
    parser.add_argument("--calls", type=int, default=200_000)
    args = parser.parse_args()
    with ts.empty((4, 4), dtype=ts.float32) as subject:
        for name, case in CASES:
            case(subject, args.calls // 10)  # warm-up
            per_call = []
            for _ in range(args.batches):
                start = time.perf_counter_ns()
                case(subject, args.calls)
                per_call.append((time.perf_counter_ns() - start) / args.calls)
            print(f"tessera-bench python {name} {statistics.median(per_call):.1f}", flush=True)


if __name__ == "__main__":
    main()
