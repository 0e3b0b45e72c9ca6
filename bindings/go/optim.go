package tessera

import (
	"runtime"
	"sync"

	"tessera.dev/tessera/internal/capi"
)

// Optimizer is a torch.optim optimizer (SGD, Adam or AdamW) over one
// parameter group: NewSGD, NewAdam, NewAdamW. It keeps its own reference to
// every parameter tensor (closing the caller's handles is fine). Close
// releases it with its state; a finalizer does if you do not. Use it from one
// goroutine at a time, as a torch optimizer.
type Optimizer struct {
	handle capi.SwigcptrOptimizer // 0 once closed
}

// SGDOptions are torch.optim.SGD's arguments. LR has no default (torch's
// `required`): the zero value is a learning rate of 0.
type SGDOptions struct {
	LR          float64
	Momentum    float64 // 0 keeps no momentum_buffer
	Dampening   float64
	WeightDecay float64 // L2 penalty added to the gradient
	Nesterov    bool    // needs Momentum > 0 and Dampening == 0
}

// AdamOptions are torch.optim.Adam / AdamW's arguments; start from
// DefaultAdamOptions or DefaultAdamWOptions (torch's defaults).
type AdamOptions struct {
	LR          float64
	Betas       [2]float64
	Eps         float64
	WeightDecay float64
	AMSGrad     bool
}

// DefaultAdamOptions are torch.optim.Adam's defaults: lr 1e-3, betas (0.9,
// 0.999), eps 1e-8, weight_decay 0, amsgrad false.
func DefaultAdamOptions() AdamOptions {
	return AdamOptions{LR: 1e-3, Betas: [2]float64{0.9, 0.999}, Eps: 1e-8}
}

// DefaultAdamWOptions are torch.optim.AdamW's defaults: Adam's with
// weight_decay 1e-2.
func DefaultAdamWOptions() AdamOptions {
	o := DefaultAdamOptions()
	o.WeightDecay = 1e-2
	return o
}

func newOptimizer(params []*Tensor, create func(list uintptr) uintptr) (opt *Optimizer, err error) {
	defer recoverFailure(&err)
	list := capi.SwigcptrTensorList(capi.NewTensorList().Swigcptr())
	defer capi.DeleteTensorList(list)
	fillList(list, params, false)
	h := create(uintptr(list))
	return own(&Optimizer{handle: capi.SwigcptrOptimizer(h)}, (*Optimizer).Close), nil
}

// NewSGD is torch.optim.SGD(params, lr, momentum, dampening, weight_decay,
// nesterov). InvalidArgument with torch's messages ("Invalid learning rate:
// -0.1", "optimizer got an empty parameter list", ...), DTypeMismatch for a
// non-floating parameter.
func NewSGD(params []*Tensor, opts SGDOptions) (*Optimizer, error) {
	return newOptimizer(params, func(list uintptr) uintptr {
		return capi.OptimizerSgd(list, opts.LR, opts.Momentum, opts.Dampening, opts.WeightDecay, opts.Nesterov)
	})
}

// NewAdam is torch.optim.Adam(params, lr, betas, eps, weight_decay, amsgrad).
func NewAdam(params []*Tensor, opts AdamOptions) (*Optimizer, error) {
	return newOptimizer(params, func(list uintptr) uintptr {
		return capi.OptimizerAdam(list, opts.LR, opts.Betas[0], opts.Betas[1], opts.Eps, opts.WeightDecay, opts.AMSGrad)
	})
}

// NewAdamW is torch.optim.AdamW: Adam with decoupled weight decay.
func NewAdamW(params []*Tensor, opts AdamOptions) (*Optimizer, error) {
	return newOptimizer(params, func(list uintptr) uintptr {
		return capi.OptimizerAdamw(list, opts.LR, opts.Betas[0], opts.Betas[1], opts.Eps, opts.WeightDecay, opts.AMSGrad)
	})
}

// Close releases the optimizer, its state and its references to the
// parameters; idempotent, and nil is fine.
func (o *Optimizer) Close() error {
	if o != nil {
		release(o, &o.handle, func(h capi.SwigcptrOptimizer) { capi.DeleteOptimizer(h) })
	}
	return nil
}

func (o *Optimizer) c() capi.SwigcptrOptimizer {
	if o == nil {
		return 0
	}
	return o.handle
}

// Step is optimizer.step(): one update of every parameter that has a
// gradient.
func (o *Optimizer) Step() error {
	err := do(func() { o.c().Step() })
	runtime.KeepAlive(o)
	return err
}

// ZeroGrad is optimizer.zero_grad(set_to_none) (torch 1.13's semantics): setToNone drops
// every gradient (Grad then returns nil); otherwise they are zeroed in place.
func (o *Optimizer) ZeroGrad(setToNone bool) error {
	err := do(func() { o.c().Zero_grad(setToNone) })
	runtime.KeepAlive(o)
	return err
}

// LR is param_groups[0]["lr"].
func (o *Optimizer) LR() (float64, error) {
	lr, err := call(func() float64 { return o.c().Get_lr() })
	runtime.KeepAlive(o)
	return lr, err
}

// SetLR sets the learning rate the next Step uses (what an LR scheduler
// does); InvalidArgument below 0.
func (o *Optimizer) SetLR(lr float64) error {
	err := do(func() { o.c().Set_lr(lr) })
	runtime.KeepAlive(o)
	return err
}

// NumParams is the number of parameters.
func (o *Optimizer) NumParams() (int64, error) {
	n, err := call(func() int64 { return o.c().Num_params() })
	runtime.KeepAlive(o)
	return n, err
}

// State is optimizer.state[params[paramIndex]][key] itself (writing it
// changes the optimizer's state): nil before that parameter's first step.
// Keys: SGD "momentum_buffer"; Adam/AdamW "step", "exp_avg", "exp_avg_sq",
// "max_exp_avg_sq".
func (o *Optimizer) State(paramIndex int, key string) (*Tensor, error) {
	if err := refuseNUL("State: key", key); err != nil {
		return nil, err
	}
	h, err := call(func() uintptr { return o.c().State(int64(paramIndex), key) })
	runtime.KeepAlive(o)
	if err != nil {
		return nil, err
	}
	return newTensor(h), nil
}

// ---- torch.nn.init ----------------------------------------------------------

var (
	defaultInitGenerator     *Generator
	defaultInitGeneratorOnce sync.Once
)

// InitGenerator is the generator the Init functions draw from when given nil
// (seeded with torch's default seed, 67280421310721).
func InitGenerator() *Generator {
	defaultInitGeneratorOnce.Do(func() {
		defaultInitGenerator, _ = NewGenerator(67280421310721)
	})
	return defaultInitGenerator
}

func initGenerator(g *Generator) *Generator {
	if g == nil {
		return InitGenerator()
	}
	return g
}

// CalculateGain is torch.nn.init.calculate_gain(nonlinearity, param); param
// nil is None (leaky_relu's slope then 0.01).
func CalculateGain(nonlinearity string, param *float64) (float64, error) {
	if err := refuseNUL("CalculateGain: nonlinearity", nonlinearity); err != nil {
		return 0, err
	}
	p := 0.0
	if param != nil {
		p = *param
	}
	return call(func() float64 { return capi.Init_calculate_gain(nonlinearity, param != nil, p) })
}

// InitKaimingUniform is torch.nn.init.kaiming_uniform_(t, a, mode,
// nonlinearity, generator=g): uniform in [-bound, bound), bound = gain *
// sqrt(3 / fan); mode "fan_in" or "fan_out" (torch's defaults: a 0, "fan_in",
// "leaky_relu"). g nil: InitGenerator().
func InitKaimingUniform(t *Tensor, a float64, mode, nonlinearity string, g *Generator) error {
	if err := refuseNUL("InitKaimingUniform: mode", mode); err != nil {
		return err
	}
	if err := refuseNUL("InitKaimingUniform: nonlinearity", nonlinearity); err != nil {
		return err
	}
	g = initGenerator(g)
	err := do(func() { capi.Init_kaiming_uniform(t.cptr(), a, mode, nonlinearity, g.cptr()) })
	runtime.KeepAlive(t)
	runtime.KeepAlive(g)
	return err
}

// InitXavierUniform is torch.nn.init.xavier_uniform_(t, gain): uniform in
// [-b, b), b = gain * sqrt(6 / (fan_in + fan_out)).
func InitXavierUniform(t *Tensor, gain float64, g *Generator) error {
	g = initGenerator(g)
	err := do(func() { capi.Init_xavier_uniform(t.cptr(), gain, g.cptr()) })
	runtime.KeepAlive(t)
	runtime.KeepAlive(g)
	return err
}

// InitZeros is torch.nn.init.zeros_(t).
func InitZeros(t *Tensor) error {
	err := do(func() { capi.Init_zeros(t.cptr()) })
	runtime.KeepAlive(t)
	return err
}

// InitNormal is torch.nn.init.normal_(t, mean, std).
func InitNormal(t *Tensor, mean, std float64, g *Generator) error {
	g = initGenerator(g)
	err := do(func() { capi.Init_normal(t.cptr(), mean, std, g.cptr()) })
	runtime.KeepAlive(t)
	runtime.KeepAlive(g)
	return err
}

// InitUniform is torch.nn.init.uniform_(t, a, b): uniform in [a, b).
func InitUniform(t *Tensor, a, b float64, g *Generator) error {
	g = initGenerator(g)
	err := do(func() { capi.Init_uniform(t.cptr(), a, b, g.cptr()) })
	runtime.KeepAlive(t)
	runtime.KeepAlive(g)
	return err
}
