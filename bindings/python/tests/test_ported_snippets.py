"""The first things a training script reaches for after tensors and views
(issue 33's snippets), each written once against a module named `torch` and
run twice: with PyTorch 1.13 and with tessera in its place (what
`import tessera as torch` does to a user's script). The two runs must agree
in values, dtypes and shapes. Inputs come from fixed numbers, not from
either library's random generator."""
import unittest

import numpy as np
import torch as real_torch

import tessera


def data(*shape, seed=0):
    """Fixed float32 values of the given shape, as a nested list."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(np.float32).tolist()


def as_numpy(result):
    if isinstance(result, (tuple, list)):
        return [as_numpy(r) for r in result]
    if isinstance(result, (int, float, bool)):
        return np.array(result)
    return np.array(result.tolist())


# ---- the snippets: each takes the module to use as `torch` -----------------------

def causal_mask(torch):
    T = 5
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    scores = torch.tensor(data(T, T, seed=1))
    return mask, scores.masked_fill(mask, float("-inf")).softmax(-1)


def indexing_by_tensors_and_masks(torch):
    x = torch.tensor(data(4, 5, seed=2))
    rows = torch.tensor([3, 0, 3])
    picked = x[rows]
    positive = x[x > 0]
    y = x.clone()
    y[y < 0] = 0.0
    return picked, positive, y, x[rows, 1:3]


def scatter_add_histogram(torch):
    bins = torch.zeros(6)
    idx = torch.tensor([0, 2, 2, 5, 1, 0, 2])
    bins.scatter_add_(0, idx, torch.ones(7))
    return bins


def sort_and_topk(torch):
    x = torch.tensor(data(3, 7, seed=3))
    values, indices = torch.sort(x, dim=1, descending=True)
    top_values, top_indices = torch.topk(x, 3, dim=1)
    return values, indices, top_values, top_indices


def scans_and_statistics(torch):
    x = torch.tensor(data(4, 6, seed=4))
    return x.cumsum(1), x.var(dim=0), x.var(dim=1, unbiased=False), torch.logsumexp(x, dim=1)


def factories(torch):
    return torch.linspace(0, 1, steps=7), torch.eye(3), torch.eye(2, 4)


def losses(torch):
    F = torch.nn.functional
    pred, target = torch.tensor(data(4, 3, seed=5)), torch.tensor(data(4, 3, seed=6))
    logits = torch.tensor(data(4, 5, seed=7), requires_grad=True)
    labels = torch.tensor([1, 0, 4, 2])
    ce = F.cross_entropy(logits, labels, label_smoothing=0.1)
    ce.backward()
    return F.mse_loss(pred, target), ce, logits.grad


def silu_activation(torch):
    x = torch.tensor(data(3, 4, seed=8))
    return torch.nn.functional.silu(x)


def batched_products(torch):
    a, b = torch.tensor(data(2, 3, 4, seed=9)), torch.tensor(data(2, 4, 5, seed=10))
    return torch.bmm(a, b), torch.einsum("bij,bjk->bik", a, b), torch.einsum("bij->bj", a)


def gradient_clipping(torch):
    w = torch.tensor(data(3, 3, seed=11), requires_grad=True)
    (w * w * 10).sum().backward()
    total = torch.nn.utils.clip_grad_norm_([w], max_norm=1.0)
    return total, w.grad


def parameter_groups_and_schedulers(torch):
    a = torch.tensor(data(2, 2, seed=12), requires_grad=True)
    b = torch.tensor(data(2, seed=13), requires_grad=True)
    opt = torch.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.01}], lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    lrs = []
    for _ in range(4):
        opt.zero_grad()
        ((a * a).sum() + (b * b).sum()).backward()
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
    state = opt.state_dict()
    return a, b, np.array(lrs), len(state["param_groups"]), sorted(state["state"].keys())


SNIPPETS = [scans_and_statistics, losses, silu_activation, indexing_by_tensors_and_masks, scatter_add_histogram, sort_and_topk,
            causal_mask, factories, batched_products, gradient_clipping, parameter_groups_and_schedulers]
# Snippets whose ops tessera does not have yet: each is skipped, naming what
# it waits for, until that lands and it moves above (none left).
PENDING = {}


class PortedSnippets(unittest.TestCase):
    def compare(self, mine, ref, path):
        if isinstance(ref, (tuple, list)) and not isinstance(ref, np.ndarray):
            self.assertEqual(len(mine), len(ref), path)
            for k, (m, r) in enumerate(zip(mine, ref)):
                self.compare(m, r, f"{path}[{k}]")
            return
        if isinstance(ref, (int, str)) and not isinstance(ref, bool):
            self.assertEqual(mine, ref, path)
            return
        if isinstance(ref, real_torch.Tensor):
            self.assertEqual(tuple(mine.shape), tuple(ref.shape), path)
            self.assertEqual(str(mine.dtype).split(".")[-1], str(ref.dtype).split(".")[-1], path)
            ref = ref.detach()
        np.testing.assert_allclose(as_numpy(mine).astype(np.float64), as_numpy(ref).astype(np.float64),
                                   rtol=1e-5, atol=1e-6, err_msg=path)

    def test_snippets(self):
        for snippet in SNIPPETS:
            with self.subTest(snippet.__name__):
                self.compare(snippet(tessera), snippet(real_torch), snippet.__name__)

    def test_pending_snippets(self):
        for snippet, missing in PENDING.items():
            with self.subTest(snippet.__name__):
                self.skipTest(f"{snippet.__name__}: tessera has no {missing} yet")


if __name__ == "__main__":
    unittest.main()
