#!/usr/bin/python3
"""charlm — a GPT-style character-level language model trained on English
text (Debian's fortunes), written as a plain PyTorch script whose one
tessera line is `import tessera as torch` (here and in gpt.py).
bench/charlm/torch_charlm.py runs this very file under PyTorch 1.13.

    charlm.py [--steps N] [--checkpoint] [--autocast bf16|f16] [--device cpu|cuda]
              [--seed S] [--time-limit SECONDS] [--dropout P] [--losses FILE]
              [--modes] [model and training options, see --help]

Trains gpt.GPT (default 4 layers, 4 heads, d_model 128, context 128, batch
32) with AdamW (weight decay on matrices only), a linear warmup then cosine
learning-rate schedule (LambdaLR), gradient clipping (clip_grad_norm_), and
optionally per-block gradient checkpointing (torch.utils.checkpoint) and
autocast around forward and loss. The weights start from NumPy draws and
the batches come from a NumPy generator, both from --seed, so tessera and
PyTorch start alike and see the same batches (dropout draws from each
library's own generator, so with dropout the runs differ in those draws).

Prints the training loss every --log-every steps, `held-out bits per
character: X` (mean cross-entropy over held-out batches / ln 2),
tokens/s (median step), the most memory a training step allocates beyond
the weights and optimizer state (step_memory.py), and --sample-chars
characters sampled from the trained model. --modes instead trains --steps
steps in each of plain / checkpoint / autocast / both and prints a table
of tokens/s and step memory.

--time-limit bounds the whole run: after a few steps it shortens the
schedule to the steps that fit, leaving time for evaluation and sampling.

Exits 1 when the held-out loss is not finite, 2 for a bad command line or a
mode the library cannot run (f16 autocast under PyTorch 1.13's CPU
autocast, autocast where the library lacks it), 77 when the fortunes
package is not installed (a skipped test for ctest).
"""
import argparse
import contextlib
import math
import os
import statistics
import sys
import time

import numpy

import tessera as torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fortunes  # noqa: E402
import gpt  # noqa: E402
import step_memory  # noqa: E402

F = torch.nn.functional
SKIP_NO_DATA = 77
PLAN_AFTER = 5           # steps timed before --time-limit fixes the schedule's length
MEASURED_STEP = 2        # the step whose memory is measured (its time is left out)
MiB = 1 << 20


class Unavailable(Exception):
    """A mode this library cannot run."""


# ---- options --------------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(description="Train a character-level GPT on fortunes (PyTorch script).")
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--block-size", type=int, default=128, help="context length in characters")
    p.add_argument("--n-layer", type=int, default=4)
    p.add_argument("--n-head", type=int, default=4)
    p.add_argument("--d-model", type=int, default=128)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--lr", type=float, default=2e-3, help="peak learning rate")
    p.add_argument("--warmup", type=int, default=None, help="warmup steps (default: 10%% of --steps, at most 100)")
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--clip", type=float, default=1.0, help="max gradient norm")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--checkpoint", action="store_true", help="torch.utils.checkpoint around each block")
    p.add_argument("--autocast", choices=["bf16", "f16"], help="autocast around forward and loss")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--time-limit", type=float, default=0, help="seconds for the whole run (0: none)")
    p.add_argument("--eval-batches", type=int, default=16)
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--sample-chars", type=int, default=200)
    p.add_argument("--temperature", type=float, default=0.8)
    p.add_argument("--losses", help="write each step's loss to this file, one per line")
    p.add_argument("--modes", action="store_true",
                   help="train --steps steps in each of plain/checkpoint/autocast/both and print a table")
    p.add_argument("--data-dir", default=fortunes.FORTUNE_DIR)
    a = p.parse_args(argv)
    if a.steps < 1 or a.batch_size < 1 or a.block_size < 1 or a.eval_batches < 1 or a.threads < 1:
        p.error("--steps, --batch-size, --block-size, --eval-batches and --threads must be >= 1")
    if not 0 <= a.dropout < 1:
        p.error("--dropout must be in [0, 1)")
    if a.warmup is None:
        a.warmup = min(100, max(1, a.steps // 10))
    return a


def autocast(args, dtype_name):
    """torch.autocast(device, dtype) for "bf16" / "f16", a no-op for None."""
    if dtype_name is None:
        return contextlib.nullcontext()
    if not hasattr(torch, "autocast"):
        raise Unavailable(f"{torch.__name__} {torch.__version__} has no autocast")
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[dtype_name]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch warns, then disables, for a dtype it lacks
        ctx = torch.autocast(args.device, dtype=dtype)
    if getattr(ctx, "_enabled", True) is False:
        raise Unavailable(f"{torch.__name__} {torch.__version__}'s {args.device} autocast has no {dtype}")
    return ctx


# ---- one training run -------------------------------------------------------------------

class Trainer:
    """A fresh model (weights from --seed), AdamW, the schedule and the
    batches of one run."""

    def __init__(self, args, corpus, checkpoint, autocast_dtype):
        self.args, self.corpus, self.autocast_dtype = args, corpus, autocast_dtype
        autocast(args, autocast_dtype)  # refuse an unavailable mode before building anything
        torch.manual_seed(args.seed)   # dropout's draws
        cfg = gpt.GPTConfig(vocab_size=len(corpus.chars), block_size=args.block_size, n_layer=args.n_layer,
                            n_head=args.n_head, d_model=args.d_model, dropout=args.dropout,
                            checkpoint=checkpoint)
        self.model = gpt.GPT(cfg)
        gpt.init_weights(self.model, args.seed)
        if args.device != "cpu":
            self.model = self.model.to(args.device)
        self.optimizer = torch.optim.AdamW(gpt.parameter_groups(self.model, args.weight_decay),
                                           lr=args.lr, betas=(0.9, 0.95))
        self.total_steps, self.warmup = args.steps, args.warmup
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, self.lr_factor)
        self.offsets = fortunes.training_offsets(args.seed, args.steps, args.batch_size,
                                                 len(corpus.train), args.block_size)

    def lr_factor(self, step):
        """Linear warmup to 1, then a cosine down to 0.1 at total_steps."""
        warmup = min(self.warmup, self.total_steps)
        if step < warmup:
            return (step + 1) / warmup
        progress = min(1.0, (step - warmup) / max(1, self.total_steps - warmup))
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress))

    def batch(self, data, offsets):
        x, y = fortunes.windows(data, offsets, self.args.block_size)
        x, y = torch.from_numpy(x), torch.from_numpy(y)
        if self.args.device != "cpu":
            x, y = x.to(self.args.device), y.to(self.args.device)
        return x, y

    def loss(self, x, y):
        with autocast(self.args, self.autocast_dtype):
            logits = self.model(x)
            return F.cross_entropy(logits.float().view(-1, logits.size(-1)), y.view(-1))

    def step(self, step):
        """One optimizer step; its loss. The grads are set to None first, so
        the step frees nothing allocated before it (see step_memory)."""
        self.optimizer.zero_grad(set_to_none=True)
        x, y = self.batch(self.corpus.train, self.offsets[step])
        result = []

        def work():
            loss = self.loss(x, y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip)
            self.optimizer.step()
            result.append(loss.item())

        if step == MEASURED_STEP:
            self.step_bytes, self.memory_how = step_memory.peak_bytes(work, torch, self.args.device)
        else:
            work()
        self.scheduler.step()
        return result[0]

    def train(self, deadline=None, log=None):
        """Runs the schedule (cut short to what fits before deadline, a
        time.perf_counter() value, with evaluation and sampling after it);
        returns each step's loss and the timed steps' seconds."""
        losses, times = [], []
        step = 0
        while step < self.total_steps:
            start = time.perf_counter()
            losses.append(self.step(step))
            if step != MEASURED_STEP:
                times.append(time.perf_counter() - start)
            step += 1
            if log and (step % self.args.log_every == 0 or step == self.total_steps):
                log(f"step {step}/{self.total_steps}: loss {losses[-1]:.4f}, "
                    f"lr {self.scheduler.get_last_lr()[0]:.2e}, {statistics.median(times):.3f} s/step")
            if deadline is not None and step == PLAN_AFTER:
                step_s = statistics.median(times[1:] or times)
                fits = int((deadline - time.perf_counter() - self.after_training_s()) / step_s)
                if step + fits < self.total_steps:
                    self.total_steps = max(step + 1, step + fits)
                    self.warmup = min(self.warmup, max(1, self.total_steps // 10))
                    if log:
                        log(f"--time-limit: the schedule shortened to {self.total_steps} steps")
        return losses, times

    def after_training_s(self):
        """Seconds evaluation and sampling will take, from one held-out batch
        and one sampling forward timed now, plus a second's margin."""
        a = self.args
        offsets = fortunes.held_out_offsets(1, a.batch_size, len(self.corpus.held_out), a.block_size)
        x = self.batch(self.corpus.held_out, offsets[0])[0]
        self.model.eval()
        with torch.no_grad(), autocast(a, self.autocast_dtype):
            start = time.perf_counter()
            self.model(x).sum().item()
            middle = time.perf_counter()
            self.model(x[:1]).sum().item()
            end = time.perf_counter()
        self.model.train()
        return 1.0 + a.eval_batches * (middle - start) + a.sample_chars * (end - middle)

    def held_out_bits(self):
        """Mean cross-entropy over the held-out batches, in bits per character."""
        a = self.args
        offsets = fortunes.held_out_offsets(a.eval_batches, a.batch_size, len(self.corpus.held_out), a.block_size)
        self.model.eval()
        with torch.no_grad():
            total = sum(self.loss(*self.batch(self.corpus.held_out, o)).item() for o in offsets)
        self.model.train()
        return total / len(offsets) / math.log(2)

    def sample(self, count, prompt="\n"):
        """count characters drawn one at a time (NumPy's generator from --seed)
        at --temperature, after prompt."""
        a = self.args
        rng = numpy.random.default_rng(a.seed)
        ids = list(self.corpus.encode(prompt))
        self.model.eval()
        with torch.no_grad(), autocast(a, self.autocast_dtype):
            for _ in range(count):
                x = torch.from_numpy(numpy.array([ids[-a.block_size:]], dtype=numpy.int64))
                if a.device != "cpu":
                    x = x.to(a.device)
                logits = self.model(x)[0, -1].float() / a.temperature
                p = F.softmax(logits, dim=-1).cpu().numpy().astype(numpy.float64)
                ids.append(int(rng.choice(len(p), p=p / p.sum())))
        self.model.train()
        return self.corpus.decode(ids[len(prompt):])


# ---- the two ways to run ----------------------------------------------------------------

def describe(args, corpus, trainer):
    n_params = sum(p.numel() for p in trainer.model.parameters())
    print(f"{torch.__name__} {torch.__version__}, {args.threads} threads, device {args.device}: "
          f"{len(corpus.train)} training and {len(corpus.held_out)} held-out characters, "
          f"vocabulary {len(corpus.chars)}")
    print(f"model: {args.n_layer} layers, {args.n_head} heads, d_model {args.d_model}, context "
          f"{args.block_size}, dropout {args.dropout}, {n_params} parameters; batch {args.batch_size}, "
          f"checkpoint {'on' if args.checkpoint else 'off'}, autocast {args.autocast or 'off'}, "
          f"attention {'F.scaled_dot_product_attention' if hasattr(F, 'scaled_dot_product_attention') else 'composed (no F.scaled_dot_product_attention)'}")


def train_and_report(args, corpus, started):
    try:
        trainer = Trainer(args, corpus, args.checkpoint, args.autocast)
    except Unavailable as e:
        print(f"charlm: {e}", file=sys.stderr)
        return 2
    describe(args, corpus, trainer)
    deadline = started + args.time_limit if args.time_limit > 0 else None
    losses, times = trainer.train(deadline, log=print)
    # tessera's CPU allocator also tells the whole peak (PyTorch's keeps no
    # statistics); its counter was last reset at the measured step.
    total_peak = torch.max_memory_allocated() if hasattr(torch, "max_memory_allocated") else None
    if args.losses:
        with open(args.losses, "w") as f:
            f.write("".join(f"{v!r}\n" for v in losses))
    bits = trainer.held_out_bits()
    step_s = statistics.median(times)
    print(f"held-out bits per character: {bits:.4f}")
    print(f"tokens/s: {args.batch_size * args.block_size / step_s:.0f} (median step {step_s * 1000:.1f} ms "
          f"over {len(times)} steps)")
    if hasattr(trainer, "step_bytes"):
        print(f"training step peak memory: {trainer.step_bytes / MiB:.2f} MiB beyond the weights and "
              f"optimizer state (step {MEASURED_STEP + 1}, {trainer.memory_how})")
    if total_peak is not None and args.device == "cpu" and len(losses) > MEASURED_STEP:
        print(f"peak allocated memory of training: {total_peak / MiB:.2f} MiB, weights and optimizer state "
              f"included ({torch.__name__}.max_memory_allocated, steps {MEASURED_STEP + 1}-{len(losses)})")
    if args.sample_chars > 0:
        print(f"sample ({args.sample_chars} characters):\n{trainer.sample(args.sample_chars)}")
    print(f"total time: {time.perf_counter() - started:.1f} s")
    return 0 if math.isfinite(bits) else 1


def compare_modes(args, corpus):
    """--steps steps in each mode from the same weights and batches: a table."""
    dtype = args.autocast or "bf16"
    modes = [("plain", False, None), ("checkpoint", True, None), (f"autocast {dtype}", False, dtype),
             (f"checkpoint + autocast {dtype}", True, dtype)]
    print(f"{torch.__name__} {torch.__version__}, {args.threads} threads: {args.steps} steps per mode, "
          f"batch {args.batch_size}, context {args.block_size}, {args.n_layer} layers, d_model {args.d_model}")
    print(f"{'mode':32} {'tokens/s':>10} {'step ms':>9} {'step MiB':>9} {'last loss':>10}")
    for name, checkpoint, autocast_dtype in modes:
        try:
            trainer = Trainer(args, corpus, checkpoint, autocast_dtype)
        except Unavailable as e:
            print(f"{name:32} unavailable: {e}")
            continue
        losses, times = trainer.train()
        step_s = statistics.median(times) if times else float("nan")
        mem = getattr(trainer, "step_bytes", float("nan")) / MiB
        print(f"{name:32} {args.batch_size * args.block_size / step_s:10.0f} {step_s * 1000:9.1f} "
              f"{mem:9.2f} {losses[-1]:10.4f}", flush=True)
        del trainer
    return 0


def main(argv):
    started = time.perf_counter()
    args = parse_args(argv[1:])
    torch.set_num_threads(args.threads)
    if args.device == "cuda" and not torch.cuda.is_available():
        print(f"charlm: --device cuda, but {torch.__name__}.cuda.is_available() is False", file=sys.stderr)
        return 2
    try:
        corpus = fortunes.Corpus(args.data_dir)
    except fortunes.Missing as e:
        print(e, file=sys.stderr)
        return SKIP_NO_DATA
    if args.modes:
        return compare_modes(args, corpus)
    return train_and_report(args, corpus, started)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
