"""Golden cases of the ops added for ported training scripts (issue 33:
pointwise, bmm/baddbmm/outer, scans and statistics, losses), shared by the
Java, C# and Go golden generators (bindings/java/tests/make_goldens.py,
bindings/csharp/tests/make_goldens.py, bindings/go/testdata/gen_torch_golden.py),
which write them beside nn_cases() / nn_errors() (nn_golden_cases.py) in their
own format. Every name starts with "op_" so the two sets never collide.
Run the generators with Debian's /usr/bin/python3 (python3-torch 1.13).
"""
import torch


def training_ops_cases():
    """name -> tensor: the inputs (op_x, op_lo, ...) and PyTorch's results; the
    tests rebuild the inputs from here and replay the torch expression written
    beside each result."""
    F = torch.nn.functional
    x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    p = torch.tensor([[0.25, 1.0, 2.0], [4.0, 0.5, 9.0]])
    r = torch.tensor([[0.5, -1.5, 2.5], [-0.4, 1.6, -2.7]])
    lo = torch.tensor([-0.5, 0.0, 1.0])
    hi = torch.tensor([1.0, 0.5, 1.5])
    t = torch.tensor([[1.0, 0.0, 2.5], [0.5, 0.5, -1.0]])
    ba = torch.tensor([[[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]], [[0.5, 0.5, 1.0], [2.0, -2.0, 1.0]]])
    bb = torch.tensor([[[1.0, 0.0], [0.5, -1.0], [2.0, 1.0]], [[-1.0, 2.0], [0.0, 1.0], [1.5, 0.5]]])
    bc = torch.tensor([[[1.0, -1.0], [0.0, 2.0]], [[0.5, 0.5], [-1.0, 1.0]]])
    u = torch.tensor([1.0, -2.0, 0.5])
    v = torch.tensor([3.0, 0.25])
    mask = torch.tensor([[True, False, False], [False, False, False]])
    logits = torch.tensor([[1.0, 2.0, 0.5, -1.0], [0.0, -0.5, 1.5, 2.0], [0.3, 0.2, -0.1, 0.9]])
    labels = torch.tensor([1, 3, 0])
    labels_ignored = torch.tensor([1, -100, 0])
    class_weight = torch.tensor([1.0, 2.0, 0.5, 1.5])
    probs = torch.tensor([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25], [0.7, 0.1, 0.1, 0.1]])
    logp = torch.log_softmax(x, 1)
    q = torch.tensor([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
    pr = torch.tensor([[0.2, 0.9, 0.5], [0.7, 0.1, 0.4]])
    bt = torch.tensor([[0.0, 1.0, 1.0], [1.0, 0.0, 0.5]])
    bw = torch.tensor([1.0, 2.0, 0.5])
    pos_weight = torch.tensor([2.0, 1.0, 0.5])

    cases = {
        "op_x": x, "op_p": p, "op_r": r, "op_lo": lo, "op_hi": hi, "op_t": t,
        "op_ba": ba, "op_bb": bb, "op_bc": bc, "op_u": u, "op_v": v, "op_mask": mask,
        "op_logits": logits, "op_labels": labels, "op_labels_ignored": labels_ignored,
        "op_class_weight": class_weight, "op_probs": probs, "op_logp": logp, "op_q": q,
        "op_pr": pr, "op_bt": bt, "op_bw": bw, "op_pos_weight": pos_weight,
        # pointwise
        "op_silu": F.silu(x),
        "op_leaky_relu": F.leaky_relu(x),
        "op_leaky_relu_02": F.leaky_relu(x, 0.2),
        "op_elu": F.elu(x),
        "op_elu_05": F.elu(x, 0.5),
        "op_softplus": F.softplus(x),
        "op_softplus_2_1": F.softplus(x, 2.0, 1.0),
        "op_hardtanh": F.hardtanh(x),
        "op_hardtanh_05_1": F.hardtanh(x, -0.5, 1.0),
        "op_sin": torch.sin(x),
        "op_cos": torch.cos(x),
        "op_rsqrt": torch.rsqrt(p),
        "op_reciprocal": torch.reciprocal(x),
        "op_floor": torch.floor(r),
        "op_ceil": torch.ceil(r),
        "op_round": torch.round(r),
        "op_trunc": torch.trunc(r),
        "op_sign": torch.sign(r),
        "op_clamp_tensor": torch.clamp(x, lo, hi),
        "op_clamp_tensor_min": torch.clamp(x, min=lo),
        "op_clamp_tensor_max": torch.clamp(x, max=hi),
        # linalg
        "op_bmm": torch.bmm(ba, bb),
        "op_baddbmm": torch.baddbmm(bc, ba, bb),
        "op_baddbmm_05_2": torch.baddbmm(bc, ba, bb, beta=0.5, alpha=2.0),
        "op_outer": torch.outer(u, v),
        # scans and statistics
        "op_cumsum": torch.cumsum(x, 1),
        "op_cumsum_f64": torch.cumsum(x, 0, dtype=torch.float64),
        "op_cumprod": torch.cumprod(x, 1),
        "op_prod": torch.prod(x),
        "op_prod_dim": torch.prod(x, 1, keepdim=True),
        "op_var": torch.var(x),
        "op_var_dim_biased": torch.var(x, 1, unbiased=False),
        "op_var_correction": torch.var(x, [0, 1], correction=2, keepdim=True),
        "op_std": torch.std(x),
        "op_std_dim": torch.std(x, 0),
        "op_var_mean_var": torch.var_mean(x, 1)[0],
        "op_var_mean_mean": torch.var_mean(x, 1)[1],
        "op_std_mean_std": torch.std_mean(x, 0, unbiased=False)[0],
        "op_std_mean_mean": torch.std_mean(x, 0, unbiased=False)[1],
        "op_logsumexp": torch.logsumexp(x, 1),
        "op_logsumexp_all": torch.logsumexp(x, [0, 1], keepdim=True),
        "op_any": torch.any(mask),
        "op_all": torch.all(mask),
        "op_any_dim": torch.any(mask, 1),
        "op_all_dim": torch.all(mask, 0, keepdim=True),
        "op_min": torch.min(x),
        "op_min_dim_values": torch.min(x, 1).values,
        "op_min_dim_indices": torch.min(x, 1).indices,
        "op_min_keepdim_values": torch.min(x, 0, keepdim=True).values,
        "op_argmin": torch.argmin(x, 0),
        # losses
        "op_mse_loss": F.mse_loss(x, t),
        "op_mse_loss_none": F.mse_loss(x, t, reduction="none"),
        "op_mse_loss_sum": F.mse_loss(x, t, reduction="sum"),
        "op_l1_loss": F.l1_loss(x, t),
        "op_smooth_l1_loss": F.smooth_l1_loss(x, t, beta=0.5),
        "op_smooth_l1_loss_default": F.smooth_l1_loss(x, t),
        "op_huber_loss": F.huber_loss(x, t, reduction="sum", delta=0.5),
        "op_huber_loss_default": F.huber_loss(x, t),
        "op_kl_div": F.kl_div(logp, q, reduction="sum"),
        "op_kl_div_log_target": F.kl_div(logp, q.log(), reduction="none", log_target=True),
        "op_nll_loss": F.nll_loss(torch.log_softmax(logits, 1), labels),
        "op_nll_loss_weight": F.nll_loss(torch.log_softmax(logits, 1), labels_ignored,
                                         weight=class_weight, reduction="sum"),
        "op_cross_entropy": F.cross_entropy(logits, labels),
        "op_cross_entropy_full": F.cross_entropy(logits, labels_ignored, weight=class_weight,
                                                 ignore_index=-100, label_smoothing=0.1),
        "op_cross_entropy_none": F.cross_entropy(logits, labels, reduction="none"),
        "op_cross_entropy_probs": F.cross_entropy(logits, probs, label_smoothing=0.2),
        "op_binary_cross_entropy": F.binary_cross_entropy(pr, bt),
        "op_binary_cross_entropy_weight": F.binary_cross_entropy(pr, bt, weight=bw, reduction="sum"),
        "op_bce_with_logits": F.binary_cross_entropy_with_logits(x, bt),
        "op_bce_with_logits_full": F.binary_cross_entropy_with_logits(
            x, bt, weight=bw, pos_weight=pos_weight, reduction="none"),
    }
    # indexing, sorting, extrema, factories and shape ops (the op_ix_ cases)
    idx, cols, rows00, rows11 = torch.tensor([1, 0, 1]), torch.tensor([2, 0]), torch.tensor([0, 0]), torch.tensor([1, 1])
    idx2 = torch.tensor([[0, 0, 2], [1, 1, 1]])
    pos = x > 0
    v3 = torch.tensor([1.0, 2.0, 3.0])
    cases.update({
        "op_ix_idx": idx, "op_ix_cols": cols, "op_ix_rows00": rows00, "op_ix_rows11": rows11, "op_ix_idx2": idx2,
        "op_ix_pos": pos, "op_ix_v3": v3,
        "op_ix_index": x[idx],
        "op_ix_index_mask": x[pos],
        "op_ix_index_cols": x[:, cols],
        "op_ix_index_put": x.index_put((rows00,), v3, accumulate=True),
        "op_ix_masked_fill": x.masked_fill(mask, -1.0),
        "op_ix_masked_select": x.masked_select(pos),
        "op_ix_scatter_add": torch.zeros(2, 3).scatter_add(1, idx2, x),
        "op_ix_scatter_reduce_amax": x.scatter_reduce(1, idx2, r, "amax", include_self=False),
        "op_ix_index_add": x.index_add(0, rows11, p, alpha=0.5),
        "op_ix_take_along_dim": torch.take_along_dim(x, idx2, 1),
        "op_ix_sort_values": x.sort(dim=1, descending=True, stable=True).values,
        "op_ix_sort_indices": x.sort(dim=1, descending=True, stable=True).indices,
        "op_ix_topk_values": x.topk(2, 1).values,
        "op_ix_topk_indices": x.topk(2, 1).indices,
        "op_ix_kthvalue": x.kthvalue(2, 1).values,
        "op_ix_maximum": torch.maximum(x, lo),
        "op_ix_amax": x.amax(1),
        "op_ix_norm": x.norm(1, 1),
        "op_ix_linspace": torch.linspace(0, 1, 5),
        "op_ix_eye": torch.eye(2, 3),
        "op_ix_triu": torch.triu(torch.ones(3, 3, dtype=torch.bool), 1),
        "op_ix_flip": x.flip(1),
        "op_ix_roll": x.roll(1, 1),
        "op_ix_repeat": x.repeat(2, 1),
        "op_ix_einsum": torch.einsum("ij,kj->ik", x, r),
    })
    # One gradient through a loss: d mse_loss(x, t) / dx and d cross_entropy / d logits.
    xg = x.clone().requires_grad_(True)
    F.mse_loss(xg, t).backward()
    cases["op_mse_loss_grad_x"] = xg.grad
    lg = logits.clone().requires_grad_(True)
    F.cross_entropy(lg, labels_ignored, weight=class_weight, label_smoothing=0.1).backward()
    cases["op_cross_entropy_grad_logits"] = lg.grad
    return cases


def training_ops_errors():
    """name -> torch's message for a bad call (tessera's message contains it)."""
    F = torch.nn.functional
    ba = torch.ones(2, 2, 3)
    logits = torch.ones(3, 4)
    attempts = {
        "op_bmm": lambda: torch.bmm(ba, ba),
        "op_nll_loss": lambda: F.nll_loss(logits, torch.tensor([1, 4, 0])),
        "op_cross_entropy": lambda: F.cross_entropy(logits, torch.tensor([1, 4, 0])),
    }
    messages = {}
    for name, attempt in attempts.items():
        try:
            attempt()
        except (RuntimeError, IndexError) as error:
            messages[name] = str(error).splitlines()[0]
        else:
            raise AssertionError(f"torch accepted the {name} case")
    return messages
