package tessera_test

import (
	"strings"
	"testing"

	"tessera.dev/tessera"
)

// The ops added for ported training scripts (issue 33) in their Go forms,
// against PyTorch 1.13 (testdata/torch_golden.json's op_* cases, from
// bindings/support/training_ops_golden_cases.py, which holds the torch
// expression of each case).

type namedOp struct {
	name string
	op   func() (*tessera.Tensor, error)
}

func matchAll(t *testing.T, ops []namedOp) {
	t.Helper()
	for _, c := range ops {
		nnMatches(t, "op_"+c.name, got(c.op()).ok(t))
	}
}

func opIn(t *testing.T, name string) *tessera.Tensor { return nnTensor(t, "op_"+name, false) }

func TestTrainingPointwiseAndLinalgMatchPyTorch(t *testing.T) {
	x, p, r := opIn(t, "x"), opIn(t, "p"), opIn(t, "r")
	lo, hi := opIn(t, "lo"), opIn(t, "hi")
	ba, bb, bc := opIn(t, "ba"), opIn(t, "bb"), opIn(t, "bc")
	u, v := opIn(t, "u"), opIn(t, "v")
	matchAll(t, []namedOp{
		{"silu", func() (*tessera.Tensor, error) { return tessera.Silu(x) }},                       // F.silu(x)
		{"leaky_relu", func() (*tessera.Tensor, error) { return tessera.LeakyRelu(x, 0.01) }},      // F.leaky_relu(x)
		{"leaky_relu_02", func() (*tessera.Tensor, error) { return tessera.LeakyRelu(x, 0.2) }},    // F.leaky_relu(x, 0.2)
		{"elu", func() (*tessera.Tensor, error) { return tessera.Elu(x, 1.0) }},                    // F.elu(x)
		{"elu_05", func() (*tessera.Tensor, error) { return tessera.Elu(x, 0.5) }},                 // F.elu(x, 0.5)
		{"softplus", func() (*tessera.Tensor, error) { return tessera.Softplus(x, 1, 20) }},        // F.softplus(x)
		{"softplus_2_1", func() (*tessera.Tensor, error) { return tessera.Softplus(x, 2, 1) }},     // F.softplus(x, 2.0, 1.0)
		{"hardtanh", func() (*tessera.Tensor, error) { return tessera.Hardtanh(x, -1, 1) }},        // F.hardtanh(x)
		{"hardtanh_05_1", func() (*tessera.Tensor, error) { return tessera.Hardtanh(x, -0.5, 1) }}, // F.hardtanh(x, -0.5, 1.0)
		{"sin", x.Sin},
		{"cos", x.Cos},
		{"rsqrt", p.Rsqrt},
		{"reciprocal", x.Reciprocal},
		{"floor", r.Floor},
		{"ceil", r.Ceil},
		{"round", r.Round},
		{"trunc", r.Trunc},
		{"trunc", r.Fix}, // torch.fix(r)
		{"sign", r.Sign},
		{"clamp_tensor", func() (*tessera.Tensor, error) { return x.ClampTensor(lo, hi) }},      // torch.clamp(x, lo, hi)
		{"clamp_tensor_min", func() (*tessera.Tensor, error) { return x.ClampTensor(lo, nil) }}, // torch.clamp(x, min=lo)
		{"clamp_tensor_max", func() (*tessera.Tensor, error) { return x.ClampTensor(nil, hi) }}, // torch.clamp(x, max=hi)
		{"bmm", func() (*tessera.Tensor, error) { return ba.Bmm(bb) }},                          // torch.bmm(ba, bb)
		{"baddbmm", func() (*tessera.Tensor, error) { return bc.Baddbmm(ba, bb, 1, 1) }},        // torch.baddbmm(bc, ba, bb)
		{"baddbmm_05_2", func() (*tessera.Tensor, error) { return bc.Baddbmm(ba, bb, 0.5, 2) }}, // beta=0.5, alpha=2.0
		{"outer", func() (*tessera.Tensor, error) { return u.Outer(v) }},                        // torch.outer(u, v)
	})
}

func TestTrainingScansAndStatisticsMatchPyTorch(t *testing.T) {
	x, mask := opIn(t, "x"), opIn(t, "mask")
	matchAll(t, []namedOp{
		{"cumsum", func() (*tessera.Tensor, error) { return x.Cumsum(1) }},                           // torch.cumsum(x, 1)
		{"cumsum_f64", func() (*tessera.Tensor, error) { return x.CumsumDType(0, tessera.Float64) }}, // dtype=torch.float64
		{"cumprod", func() (*tessera.Tensor, error) { return x.Cumprod(1) }},                         // torch.cumprod(x, 1)
		{"prod", x.Prod}, // torch.prod(x)
		{"prod_dim", func() (*tessera.Tensor, error) { return x.ProdDim(1, true) }},                  // torch.prod(x, 1, keepdim=True)
		{"var", func() (*tessera.Tensor, error) { return x.Var(nil, 1, false) }},                     // torch.var(x)
		{"var_dim_biased", func() (*tessera.Tensor, error) { return x.Var([]int64{1}, 0, false) }},   // unbiased=False
		{"var_correction", func() (*tessera.Tensor, error) { return x.Var([]int64{0, 1}, 2, true) }}, // correction=2, keepdim
		{"std", func() (*tessera.Tensor, error) { return x.Std(nil, 1, false) }},                     // torch.std(x)
		{"std_dim", func() (*tessera.Tensor, error) { return x.Std([]int64{0}, 1, false) }},          // torch.std(x, 0)
		{"logsumexp", func() (*tessera.Tensor, error) { return x.Logsumexp([]int64{1}, false) }},     // torch.logsumexp(x, 1)
		{"logsumexp_all", func() (*tessera.Tensor, error) { return x.Logsumexp([]int64{0, 1}, true) }},
		{"any", mask.Any}, // torch.any(mask)
		{"all", mask.All}, // torch.all(mask)
		{"any_dim", func() (*tessera.Tensor, error) { return mask.AnyDim(1, false) }}, // torch.any(mask, 1)
		{"all_dim", func() (*tessera.Tensor, error) { return mask.AllDim(0, true) }},  // torch.all(mask, 0, keepdim=True)
		{"min", x.Min}, // torch.min(x)
		{"argmin", func() (*tessera.Tensor, error) { return x.Argmin(0, false) }}, // torch.argmin(x, 0)
	})

	variance, mean, err := tessera.VarMean(x, []int64{1}, 1, false) // torch.var_mean(x, 1)
	noErr(t, err)
	nnMatches(t, "op_var_mean_var", variance)
	nnMatches(t, "op_var_mean_mean", mean)
	std, mean, err := tessera.StdMean(x, []int64{0}, 0, false) // torch.std_mean(x, 0, unbiased=False)
	noErr(t, err)
	nnMatches(t, "op_std_mean_std", std)
	nnMatches(t, "op_std_mean_mean", mean)
	values, indices, err := x.MinDim(1, false) // torch.min(x, 1)
	noErr(t, err)
	nnMatches(t, "op_min_dim_values", values)
	nnMatches(t, "op_min_dim_indices", indices)
	values, indices, err = x.MinDim(0, true) // torch.min(x, 0, keepdim=True)
	noErr(t, err)
	indices.Close()
	nnMatches(t, "op_min_keepdim_values", values)
}

func TestTrainingLossesMatchPyTorch(t *testing.T) {
	x, target := opIn(t, "x"), opIn(t, "t")
	logits, labels, ignored := opIn(t, "logits"), opIn(t, "labels"), opIn(t, "labels_ignored")
	classWeight, probs := opIn(t, "class_weight"), opIn(t, "probs")
	logp, q := opIn(t, "logp"), opIn(t, "q")
	pr, bt, bw, posWeight := opIn(t, "pr"), opIn(t, "bt"), opIn(t, "bw"), opIn(t, "pos_weight")
	logq := got(q.Log()).ok(t)
	defer logq.Close()
	logSoftmax := got(logits.LogSoftmax(1)).ok(t)
	defer logSoftmax.Close()
	const mean, sum, none = tessera.ReductionMean, tessera.ReductionSum, tessera.ReductionNone
	matchAll(t, []namedOp{
		{"mse_loss", func() (*tessera.Tensor, error) { return tessera.MSELoss(x, target, mean) }}, // F.mse_loss(x, t)
		{"mse_loss_none", func() (*tessera.Tensor, error) { return tessera.MSELoss(x, target, none) }},
		{"mse_loss_sum", func() (*tessera.Tensor, error) { return tessera.MSELoss(x, target, sum) }},
		{"l1_loss", func() (*tessera.Tensor, error) { return tessera.L1Loss(x, target, mean) }},
		{"smooth_l1_loss", func() (*tessera.Tensor, error) { return tessera.SmoothL1Loss(x, target, mean, 0.5) }},
		{"smooth_l1_loss_default", func() (*tessera.Tensor, error) { return tessera.SmoothL1Loss(x, target, mean, 1) }},
		{"huber_loss", func() (*tessera.Tensor, error) { return tessera.HuberLoss(x, target, sum, 0.5) }},
		{"huber_loss_default", func() (*tessera.Tensor, error) { return tessera.HuberLoss(x, target, mean, 1) }},
		{"kl_div", func() (*tessera.Tensor, error) { return tessera.KLDiv(logp, q, sum, false) }},
		{"kl_div_log_target", func() (*tessera.Tensor, error) { return tessera.KLDiv(logp, logq, none, true) }},
		{"nll_loss", func() (*tessera.Tensor, error) { return tessera.NLLLoss(logSoftmax, labels, nil, mean, -100) }},
		// F.nll_loss(log_softmax(logits, 1), labels_ignored, weight=class_weight, reduction="sum")
		{"nll_loss_weight", func() (*tessera.Tensor, error) {
			return tessera.NLLLoss(logSoftmax, ignored, classWeight, sum, -100)
		}},
		{"cross_entropy", func() (*tessera.Tensor, error) { return tessera.CrossEntropy(logits, labels, nil, mean, -100, 0) }},
		// weight=class_weight, ignore_index=-100, label_smoothing=0.1
		{"cross_entropy_full", func() (*tessera.Tensor, error) {
			return tessera.CrossEntropy(logits, ignored, classWeight, mean, -100, 0.1)
		}},
		{"cross_entropy_none", func() (*tessera.Tensor, error) {
			return tessera.CrossEntropy(logits, labels, nil, none, -100, 0)
		}},
		{"cross_entropy_probs", func() (*tessera.Tensor, error) {
			return tessera.CrossEntropy(logits, probs, nil, mean, -100, 0.2)
		}},
		{"binary_cross_entropy", func() (*tessera.Tensor, error) { return tessera.BinaryCrossEntropy(pr, bt, nil, mean) }},
		{"binary_cross_entropy_weight", func() (*tessera.Tensor, error) {
			return tessera.BinaryCrossEntropy(pr, bt, bw, sum)
		}},
		{"bce_with_logits", func() (*tessera.Tensor, error) {
			return tessera.BinaryCrossEntropyWithLogits(x, bt, nil, nil, mean)
		}},
		{"bce_with_logits_full", func() (*tessera.Tensor, error) {
			return tessera.BinaryCrossEntropyWithLogits(x, bt, bw, posWeight, none)
		}},
	})
}

func TestTrainingLossGradientsMatchPyTorch(t *testing.T) {
	x, target := nnTensor(t, "op_x", true), opIn(t, "t")
	loss := got(tessera.MSELoss(x, target, tessera.ReductionMean)).ok(t)
	defer loss.Close()
	if name := got(loss.GradFnName()).ok(t); name != "MseLossBackward0" {
		t.Errorf("mse_loss grad_fn %q", name)
	}
	noErr(t, loss.Backward())
	nnMatches(t, "op_mse_loss_grad_x", got(x.Grad()).ok(t))

	logits, ignored, w := nnTensor(t, "op_logits", true), opIn(t, "labels_ignored"), opIn(t, "class_weight")
	ce := got(tessera.CrossEntropy(logits, ignored, w, tessera.ReductionMean, -100, 0.1)).ok(t)
	defer ce.Close()
	noErr(t, ce.Backward())
	nnMatches(t, "op_cross_entropy_grad_logits", got(logits.Grad()).ok(t))
}

func TestTrainingErrorsMatchPyTorch(t *testing.T) {
	messages := golden(t).NnErrors
	fails := func(name string, status tessera.Status, out *tessera.Tensor, err error) {
		t.Helper()
		out.Close()
		e := wantStatus(t, err, status)
		if !strings.Contains(e.Message(), messages[name]) {
			t.Errorf("%s: %q lacks torch's %q", name, e.Message(), messages[name])
		}
	}
	ba := got(tessera.Ones([]int64{2, 2, 3}, tessera.Float32)).ok(t)
	defer ba.Close()
	logits := got(tessera.Ones([]int64{3, 4}, tessera.Float32)).ok(t)
	defer logits.Close()
	bad := got(tessera.FromFloat64s([]float64{1, 4, 0}, []int64{3}, tessera.Int64)).ok(t)
	defer bad.Close()
	x := opIn(t, "x")

	out, err := ba.Bmm(ba)
	fails("op_bmm", tessera.ShapeMismatch, out, err)
	out, err = tessera.NLLLoss(logits, bad, nil, tessera.ReductionMean, -100)
	fails("op_nll_loss", tessera.IndexOutOfRange, out, err)
	out, err = tessera.CrossEntropy(logits, bad, nil, tessera.ReductionMean, -100, 0)
	fails("op_cross_entropy", tessera.IndexOutOfRange, out, err)

	_, err = x.ClampTensor(nil, nil)
	wantStatus(t, err, tessera.InvalidArgument)
	_, _, err = x.MinDim(2, false)
	wantStatus(t, err, tessera.InvalidArgument)
	_, err = tessera.MSELoss(x, x, tessera.Reduction(7))
	wantStatus(t, err, tessera.InvalidArgument)
	// A closed optional tensor is refused, not read as nil (none).
	closed := got(tessera.Ones([]int64{4}, tessera.Float32)).ok(t)
	closed.Close()
	_, err = tessera.CrossEntropy(logits, bad, closed, tessera.ReductionMean, -100, 0)
	if e := wantStatus(t, err, tessera.InvalidArgument); !strings.Contains(e.Message(), "weight is closed") {
		t.Errorf("closed weight: %q", e.Message())
	}
}
