#!/usr/bin/python3
"""same_start_check — examples/charlm/charlm.py end to end, small (a tiny
GPT, 30 steps), under tessera and under PyTorch 1.13
(bench/charlm/torch_charlm.py: the same file with torch as `tessera`), from
the same NumPy-drawn weights on the same batches, dropout 0: once in
float32, once with per-block checkpointing and bfloat16 autocast.

    same_start_check.py WORK_DIR

PYTHONPATH must make `import tessera` work. Checks, for each of the two:
- both runs finish and print `held-out bits per character`;
- tessera's training loss decreases: the mean of the last 5 steps' losses
  is below 0.85 of the first step's;
- the first step's loss agrees with PyTorch's (relative: the same weights on
  the same batch; float32 within 1e-5, only summation orders differ;
  bfloat16 within 1e-4, the products' roundings too), each of the first 5
  steps' within 1e-3 and every step's within 1e-2 (AdamW lets small
  differences grow a little each step);
- the held-out bits per character agree within 0.01.
Exits 1 when a check fails, 77 when the fortunes package is not installed.
"""
import os
import re
import subprocess
import sys

PYTHON = "/usr/bin/python3"
HERE = os.path.dirname(os.path.abspath(__file__))
CHARLM = os.path.join(HERE, "charlm.py")
UNDER_TORCH = os.path.join(HERE, "..", "..", "bench", "charlm", "torch_charlm.py")
SKIP = 77
STEPS = 30
OPTIONS = ["--steps", str(STEPS), "--n-layer", "2", "--n-head", "2", "--d-model", "32", "--block-size", "32",
           "--batch-size", "8", "--dropout", "0", "--eval-batches", "2", "--sample-chars", "20",
           "--log-every", "10", "--seed", "7"]


# (name, extra options, tolerance of the first step's relative difference)
CONFIGS = [("float32", [], 1e-5),
           ("checkpoint + autocast bf16", ["--checkpoint", "--autocast", "bf16"], 1e-4)]


def run(script, options, losses):
    result = subprocess.run([PYTHON, script] + OPTIONS + options + ["--losses", losses],
                            capture_output=True, text=True, timeout=300)
    if result.returncode == SKIP:
        print(result.stderr, end="")
        sys.exit(SKIP)
    if result.returncode != 0:
        sys.exit(f"{script} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    bits = re.search(r"^held-out bits per character: (\S+)$", result.stdout, re.MULTILINE)
    if not bits:
        sys.exit(f"{script} printed no held-out bits per character:\n{result.stdout}")
    with open(losses) as f:
        return result.stdout, [float(line) for line in f if line.strip()], float(bits.group(1))


def check(work_dir, name, options, first_tolerance):
    """The two runs of one configuration; its failures."""
    tag = name.replace(" ", "").replace("+", "-")
    out_a, a, bits_a = run(CHARLM, options, os.path.join(work_dir, f"losses-tessera-{tag}.txt"))
    out_b, b, bits_b = run(UNDER_TORCH, options, os.path.join(work_dir, f"losses-torch-{tag}.txt"))
    print(f"==== {name}")
    print("tessera:", out_a.strip().replace("\n", "\n         "))
    print("torch:  ", out_b.strip().replace("\n", "\n         "))
    failures = []
    if len(a) != STEPS or len(b) != STEPS:
        return [f"{name}: {len(a)} tessera and {len(b)} torch losses, expected {STEPS}"]
    last = sum(a[-5:]) / 5
    print(f"tessera's loss: {a[0]:.4f} at step 1, {last:.4f} over the last 5 steps")
    if not last < 0.85 * a[0]:
        failures.append(f"{name}: the loss did not decrease enough: {a[0]:.4f} -> {last:.4f}")
    errors = [abs(x - y) / abs(y) for x, y in zip(a, b)]
    worst = max(range(STEPS), key=errors.__getitem__)
    print(f"relative loss difference from torch: {errors[0]:.2e} at step 1 (tolerance {first_tolerance:.0e}), "
          f"at most {max(errors[:5]):.2e} over steps 1-5 (1e-03), {errors[worst]:.2e} at step "
          f"{worst + 1} over all (1e-02)")
    if errors[0] > first_tolerance or max(errors[:5]) > 1e-3 or errors[worst] > 1e-2:
        failures.append(f"{name}: the losses differ from torch's beyond the tolerance")
    print(f"held-out bits per character: {bits_a:.4f} (tessera), {bits_b:.4f} (torch) (tolerance 0.01)")
    if abs(bits_a - bits_b) > 0.01:
        failures.append(f"{name}: the held-out bits per character differ")
    return failures


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} WORK_DIR")
    os.makedirs(sys.argv[1], exist_ok=True)
    failures = [f for name, options, tolerance in CONFIGS for f in check(sys.argv[1], name, options, tolerance)]
    for f in failures:
        print(f"FAILED: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
