#!/usr/bin/python3
"""same_script_check — runs examples/python/fashion.py (a plain PyTorch
script whose one tessera line is `import tessera as torch`) under PyTorch
1.13 and under tessera from the same initial weights on the same batches,
and compares the training losses step by step.

    same_script_check.py [--steps N] [--rtol R] DATA_DIR WORK_DIR

PYTHONPATH must make `import tessera` work. Under PyTorch the script runs
with sys.modules["tessera"] set to torch (and torch.utils.checkpoint
imported, which `import torch` leaves out), so not one line of it changes.
The initial weights are a fresh Net's under PyTorch (torch.manual_seed(0)),
written as torch.save's file for the torch run and, through NumPy, as
tessera.save's for the tessera run. Shuffling is off (--no-shuffle): the
two libraries' generators draw different numbers, so shuffled batches would
differ.

Tolerance: the first step's loss within 1e-4 of PyTorch's (relative; the
same weights on the same batch, only summation orders differ: about 4e-6
here), every later step's within rtol (default 3e-2), and the mean of all
steps within 3e-3. AdamW amplifies last-bit differences a little each step,
so two correct float32 runs drift apart slowly: PyTorch against itself on 1
and on 2 threads differs by up to 1.25e-2 over these 100 steps (measured
on this machine, AMD EPYC), tessera against PyTorch by about 1e-2. Exits 1
when a step is outside the tolerance (printing the worst), 77 when the data set is not installed.
"""
import argparse
import os
import subprocess
import sys

PYTHON = "/usr/bin/python3"
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fashion.py")
SKIP = 77

# Runs fashion.py with torch standing in for tessera: the script is untouched.
UNDER_TORCH = """
import runpy, sys, torch, torch.utils.checkpoint
sys.modules["tessera"] = torch
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""

# A fresh Net under PyTorch: its state dict as torch.save's file and as .npz.
INITIAL_WEIGHTS = """
import runpy, sys, numpy, torch, torch.utils.checkpoint
sys.modules["tessera"] = torch
script, pt, npz = sys.argv[1:]
torch.manual_seed(0)
state = runpy.run_path(script)["Net"]().state_dict()
torch.save(state, pt)
numpy.savez(npz, **{k: v.numpy() for k, v in state.items()})
"""

# The same weights as a tessera file.
CONVERT = """
import sys, numpy, tessera
npz, tsr = sys.argv[1:]
with numpy.load(npz) as arrays:
    tessera.save({k: tessera.tensor(numpy.require(arrays[k], requirements="C")) for k in arrays.files}, tsr)
"""


def run(args, what):
    result = subprocess.run([PYTHON] + args, capture_output=True, text=True, timeout=600)
    if result.returncode == SKIP:
        print(result.stderr, end="")
        sys.exit(SKIP)
    if result.returncode != 0:
        sys.exit(f"{what} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return result.stdout


def read_losses(path):
    with open(path) as f:
        return [float(line) for line in f if line.strip()]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--rtol", type=float, default=3e-2)
    p.add_argument("data_dir")
    p.add_argument("work_dir")
    opts = p.parse_args()
    os.makedirs(opts.work_dir, exist_ok=True)
    w = lambda name: os.path.join(opts.work_dir, name)  # noqa: E731
    if not os.path.isdir(opts.data_dir):
        print(f"{opts.data_dir}: not found (install dataset-fashion-mnist)")
        return SKIP

    run(["-c", INITIAL_WEIGHTS, SCRIPT, w("initial.pt"), w("initial.npz")], "initial weights (torch)")
    run(["-c", CONVERT, w("initial.npz"), w("initial.tsr")], "converting the weights (tessera)")
    common = ["--epochs", "1", "--no-shuffle", "--max-steps", str(opts.steps),
              "--train-limit", str(64 * opts.steps), "--test-limit", "1000", "--min-accuracy", "0"]
    out_torch = run(["-c", UNDER_TORCH, SCRIPT] + common + [
        "--initial-weights", w("initial.pt"), "--losses", w("losses-torch.txt"),
        opts.data_dir, w("checkpoint.pt")], "fashion.py under torch")
    out_tessera = run([SCRIPT] + common + [
        "--initial-weights", w("initial.tsr"), "--losses", w("losses-tessera.txt"),
        opts.data_dir, w("checkpoint.tsr")], "fashion.py under tessera")
    print("torch:  ", out_torch.strip().replace("\n", "\n         "))
    print("tessera:", out_tessera.strip().replace("\n", "\n         "))

    a, b = read_losses(w("losses-tessera.txt")), read_losses(w("losses-torch.txt"))
    if len(a) != opts.steps or len(b) != opts.steps:
        print(f"FAILED: {len(a)} tessera and {len(b)} torch losses, expected {opts.steps}")
        return 1
    errors = [abs(x - y) / abs(y) for x, y in zip(a, b)]
    worst = max(range(len(errors)), key=errors.__getitem__)
    print(f"{opts.steps} steps: first loss {a[0]:.6f} (tessera) vs {b[0]:.6f} (torch), "
          f"last {a[-1]:.6f} vs {b[-1]:.6f}; largest relative difference {errors[worst]:.2e} "
          f"at step {worst + 1} (tolerance {opts.rtol:.0e})")
    mean_a, mean_b = sum(a) / len(a), sum(b) / len(b)
    mean_error = abs(mean_a - mean_b) / abs(mean_b)
    print(f"mean loss {mean_a:.6f} (tessera) vs {mean_b:.6f} (torch): relative difference "
          f"{mean_error:.2e} (tolerance 3e-03); first step {errors[0]:.2e} (tolerance 1e-04)")
    if errors[0] > 1e-4 or errors[worst] > opts.rtol or mean_error > 3e-3:
        print("FAILED: the losses differ beyond the tolerance")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
