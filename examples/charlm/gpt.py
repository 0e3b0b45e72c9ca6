"""gpt — a GPT-style character-level language model written against
PyTorch's API. Its one tessera line is the import: under tessera it is
tessera's; bench/charlm/torch_charlm.py sets sys.modules["tessera"] to torch
before importing it, so PyTorch 1.13 runs this very definition.

    model = GPT(GPTConfig(vocab_size=113))
    init_weights(model, seed=0)          # NumPy-drawn: the same in both libraries
    logits = model(idx)                  # idx int64 [B, T], logits [B, T, vocab]

Token and position embeddings, n_layer pre-norm blocks (causal
self-attention, then a gelu MLP, each added back to the residual stream),
a final layer norm, and the output projection tied to the token embedding
(F.linear with its weight, so one Parameter serves both).
"""
import math
from dataclasses import dataclass

import numpy

import tessera as torch

nn = torch.nn
F = torch.nn.functional


@dataclass
class GPTConfig:
    vocab_size: int
    block_size: int = 128   # context length: the most characters the model sees
    n_layer: int = 4
    n_head: int = 4
    d_model: int = 128
    dropout: float = 0.1
    checkpoint: bool = False  # torch.utils.checkpoint around each block while training


def causal_attention(q, k, v, dropout_p):
    """softmax(q k^T / sqrt(head_dim) + causal mask) v, with dropout on the
    probabilities. q, k, v [B, heads, T, head_dim]. Through
    F.scaled_dot_product_attention where the library has it (torch 2.x's,
    and tessera's); PyTorch 1.13 lacks it, so there the same thing composed.
    """
    sdpa = getattr(F, "scaled_dot_product_attention", None)
    if sdpa is not None:
        return sdpa(q, k, v, dropout_p=dropout_p, is_causal=True)
    T = q.size(-2)
    scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))
    # True above the diagonal: a position may not look at later ones.
    future = torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1)
    probs = F.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    if dropout_p > 0:
        probs = F.dropout(probs, p=dropout_p)
    return probs @ v


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        assert cfg.d_model % cfg.n_head == 0, "d_model must be a multiple of n_head"
        self.n_head = cfg.n_head
        self.dropout = cfg.dropout
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.proj = nn.Linear(cfg.d_model, cfg.d_model)
        self.resid_drop = nn.Dropout(cfg.dropout)

    def forward(self, x):
        B, T, C = x.shape
        heads = lambda t: t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # noqa: E731
        q, k, v = (heads(t) for t in self.qkv(x).split(C, dim=2))
        y = causal_attention(q, k, v, self.dropout if self.training else 0.0)
        y = y.transpose(1, 2).reshape(B, T, C)
        return self.resid_drop(self.proj(y))


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.fc = nn.Linear(cfg.d_model, 4 * cfg.d_model)
        self.proj = nn.Linear(4 * cfg.d_model, cfg.d_model)
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, x):
        return self.drop(self.proj(F.gelu(self.fc(x))))


class Block(nn.Module):
    """Pre-norm: x + attn(ln1(x)), then + mlp(ln2(.))."""

    def __init__(self, cfg):
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.attn = CausalSelfAttention(cfg)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.mlp = MLP(cfg)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos_emb = nn.Embedding(cfg.block_size, cfg.d_model)
        self.drop = nn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList([Block(cfg) for _ in range(cfg.n_layer)])
        self.ln_f = nn.LayerNorm(cfg.d_model)

    def forward(self, idx):
        """idx int64 [B, T] (T <= block_size) -> logits [B, T, vocab_size]."""
        T = idx.size(1)
        if T > self.cfg.block_size:
            raise ValueError(f"sequence of {T} characters, the context is {self.cfg.block_size}")
        pos = torch.arange(T, device=idx.device)
        x = self.drop(self.tok_emb(idx) + self.pos_emb(pos))
        for block in self.blocks:
            if self.cfg.checkpoint and self.training:
                x = torch.utils.checkpoint.checkpoint(block, x)
            else:
                x = block(x)
        return F.linear(self.ln_f(x), self.tok_emb.weight)


def init_weights(model, seed):
    """GPT-2's initialization drawn with NumPy from seed, so that tessera and
    PyTorch start from the very same weights: linear and embedding weights
    N(0, 0.02), the projections back into the residual stream (attn.proj,
    mlp.proj) N(0, 0.02 / sqrt(2 n_layer)), biases 0, layer norms 1 and 0.
    Drawn in sorted name order (names are the same in both libraries)."""
    rng = numpy.random.default_rng(seed)
    residual_std = 0.02 / math.sqrt(2 * model.cfg.n_layer)
    norms = {name for name, m in model.named_modules() if isinstance(m, nn.LayerNorm)}
    params = dict(model.named_parameters())
    with torch.no_grad():
        for name in sorted(params):
            p = params[name]
            owner, kind = name.rsplit(".", 1)
            if kind == "bias":
                value = numpy.zeros(tuple(p.shape))
            elif owner in norms:
                value = numpy.ones(tuple(p.shape))
            else:
                std = residual_std if owner.endswith(".proj") else 0.02
                value = rng.normal(0.0, std, size=tuple(p.shape))
            p.copy_(torch.from_numpy(value.astype(numpy.float32)))


def parameter_groups(model, weight_decay):
    """AdamW groups as GPT-2's: decay on matrices (linear and embedding
    weights), none on biases and layer norms."""
    params = [p for p in model.parameters() if p.requires_grad]
    return [{"params": [p for p in params if p.dim() >= 2], "weight_decay": weight_decay},
            {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
