package tessera

import (
	"runtime"
	"sort"
	"strings"

	"tessera.dev/tessera/internal/capi"
)

// Training utilities: gradient clipping (torch.nn.utils), parameter groups
// and state_dict of Optimizer, and LR schedulers (torch.optim.lr_scheduler),
// over include/tessera/clip_grad.h, optim.h and lr_scheduler.h.

// paramList runs f with a wrapper TensorList holding params.
func paramList(params []*Tensor, f func(list uintptr)) {
	list := capi.SwigcptrTensorList(capi.NewTensorList().Swigcptr())
	defer capi.DeleteTensorList(list)
	fillList(list, params, false)
	f(uintptr(list))
}

// ClipGradNorm is torch.nn.utils.clip_grad_norm_(params, maxNorm, normType,
// errorIfNonfinite): every gradient scaled in place so that their total norm
// is at most maxNorm; returns the total norm (a 0-dim tensor). normType may
// be math.Inf(1); torch's default is 2. A non-finite total with
// errorIfNonfinite is InvalidArgument with torch's message, nothing changed.
func ClipGradNorm(params []*Tensor, maxNorm, normType float64, errorIfNonfinite bool) (out *Tensor, err error) {
	defer recoverFailure(&err)
	var h uintptr
	paramList(params, func(list uintptr) { h = capi.Clip_grad_norm(list, maxNorm, normType, errorIfNonfinite) })
	return newTensor(h), nil
}

// ClipGradValue is torch.nn.utils.clip_grad_value_(params, clipValue): every
// gradient clamped in place to [-clipValue, clipValue].
func ClipGradValue(params []*Tensor, clipValue float64) (err error) {
	defer recoverFailure(&err)
	paramList(params, func(list uintptr) { capi.Clip_grad_value(list, clipValue) })
	return nil
}

// AddParamGroup is optimizer.add_param_group({"params": params, **options}):
// options by torch's names ("lr", "momentum", "beta1"/"beta2" for betas,
// "nesterov" 0/1, ...); the others take the optimizer's defaults. Parameters
// are numbered after the earlier groups'.
func (o *Optimizer) AddParamGroup(params []*Tensor, options map[string]float64) (err error) {
	defer recoverFailure(&err)
	keys := make([]string, 0, len(options))
	for k := range options {
		if strings.ContainsAny(k, ",\x00") {
			return newError(InvalidArgument, "AddParamGroup: option name with a comma or NUL: "+k)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	values := make([]float64, len(keys))
	for i, k := range keys {
		values[i] = options[k]
	}
	paramList(params, func(list uintptr) { o.c().Add_param_group(list, strings.Join(keys, ","), values) })
	runtime.KeepAlive(o)
	return nil
}

// ParamGroupCount is len(optimizer.param_groups).
func (o *Optimizer) ParamGroupCount() (int64, error) {
	n, err := call(func() int64 { return o.c().Param_group_count() })
	runtime.KeepAlive(o)
	return n, err
}

// GroupOption is optimizer.param_groups[group][key] (betas as "beta1" /
// "beta2").
func (o *Optimizer) GroupOption(group int, key string) (float64, error) {
	if err := refuseNUL("GroupOption: key", key); err != nil {
		return 0, err
	}
	v, err := call(func() float64 { return o.c().Get_group_option(int64(group), key) })
	runtime.KeepAlive(o)
	return v, err
}

// SetGroupOption is optimizer.param_groups[group][key] = value: the next Step
// uses it. The optimizer's own options are checked as its constructor does.
func (o *Optimizer) SetGroupOption(group int, key string, value float64) error {
	if err := refuseNUL("SetGroupOption: key", key); err != nil {
		return err
	}
	err := do(func() { o.c().Set_group_option(int64(group), key, value) })
	runtime.KeepAlive(o)
	return err
}

// StateDict is optimizer.state_dict() as named tensors ("state.<i>.<key>",
// "param_groups.<g>.<option>", "param_groups.<g>.params"): pass them to Save
// with the model's. The state tensors are the optimizer's own; close the
// returned tensors when done.
func (o *Optimizer) StateDict() (out map[string]*Tensor, err error) {
	defer recoverFailure(&err)
	m := capi.SwigcptrTensorMap(o.c().State_dict())
	runtime.KeepAlive(o)
	return namedTensors(m), nil
}

// namedTensors moves a native state dict's tensors into a Go map (new
// tensors the caller closes) and deletes the native map.
func namedTensors(m capi.SwigcptrTensorMap) map[string]*Tensor {
	defer capi.DeleteTensorMap(m)
	out := map[string]*Tensor{}
	for i, n := int64(0), m.Size(); i < n; i++ {
		out[m.Name(i)] = newTensor(m.Get(i))
	}
	return out
}

// LoadStateDict is optimizer.load_state_dict from StateDict's tensors (or a
// Checkpoint's Tensors: names of other forms are skipped). On error nothing
// changes.
func (o *Optimizer) LoadStateDict(stateDict map[string]*Tensor) (err error) {
	defer recoverFailure(&err)
	list, err := namedTensorList(stateDict)
	if err != nil {
		return err
	}
	defer capi.DeleteTensorList(list)
	o.c().Load_state_dict(uintptr(list))
	runtime.KeepAlive(o)
	return nil
}

// namedTensorList is a state dict as a native list of named tensors, for a
// load_state_dict; the caller deletes it. Names holding NUL are refused.
func namedTensorList(stateDict map[string]*Tensor) (capi.SwigcptrTensorList, error) {
	list := capi.SwigcptrTensorList(capi.NewTensorList().Swigcptr())
	for name, t := range stateDict {
		if err := refuseNUL("LoadStateDict: name", name); err != nil {
			capi.DeleteTensorList(list)
			return list, err
		}
		list.Append(t.cptr(), name)
		runtime.KeepAlive(t)
	}
	return list, nil
}

// LRScheduler is a torch.optim.lr_scheduler scheduler: each Step writes the
// next lr into every parameter group of its optimizer (torch 1.13's
// arithmetic, bit for bit). It keeps its own reference to the optimizer.
// Close releases it; a finalizer does if you do not.
type LRScheduler struct {
	handle capi.SwigcptrLrScheduler // 0 once closed
}

func newScheduler(create func() uintptr) (s *LRScheduler, err error) {
	defer recoverFailure(&err)
	h := create()
	return own(&LRScheduler{handle: capi.SwigcptrLrScheduler(h)}, (*LRScheduler).Close), nil
}

func (o *Optimizer) ptr() uintptr { return uintptr(o.c()) }

// NewStepLR is StepLR(opt, stepSize, gamma).
func NewStepLR(opt *Optimizer, stepSize int64, gamma float64) (*LRScheduler, error) {
	defer runtime.KeepAlive(opt)
	return newScheduler(func() uintptr { return capi.LrSchedulerStep_lr(opt.ptr(), stepSize, gamma, -1) })
}

// NewMultiStepLR is MultiStepLR(opt, milestones, gamma).
func NewMultiStepLR(opt *Optimizer, milestones []int64, gamma float64) (*LRScheduler, error) {
	defer runtime.KeepAlive(opt)
	return newScheduler(func() uintptr { return capi.LrSchedulerMulti_step_lr(opt.ptr(), milestones, gamma, -1) })
}

// NewExponentialLR is ExponentialLR(opt, gamma).
func NewExponentialLR(opt *Optimizer, gamma float64) (*LRScheduler, error) {
	defer runtime.KeepAlive(opt)
	return newScheduler(func() uintptr { return capi.LrSchedulerExponential_lr(opt.ptr(), gamma, -1) })
}

// NewCosineAnnealingLR is CosineAnnealingLR(opt, tMax, etaMin).
func NewCosineAnnealingLR(opt *Optimizer, tMax int64, etaMin float64) (*LRScheduler, error) {
	defer runtime.KeepAlive(opt)
	return newScheduler(func() uintptr { return capi.LrSchedulerCosine_annealing_lr(opt.ptr(), tMax, etaMin, -1) })
}

// NewLinearLR is LinearLR(opt, startFactor, endFactor, totalIters) (torch's
// defaults: 1/3, 1, 5).
func NewLinearLR(opt *Optimizer, startFactor, endFactor float64, totalIters int64) (*LRScheduler, error) {
	defer runtime.KeepAlive(opt)
	return newScheduler(func() uintptr {
		return capi.LrSchedulerLinear_lr(opt.ptr(), startFactor, endFactor, totalIters, -1)
	})
}

// OneCycleOptions are OneCycleLR's arguments; start from
// DefaultOneCycleOptions (torch's defaults) and set MaxLR and TotalSteps (or
// Epochs and StepsPerEpoch).
type OneCycleOptions struct {
	MaxLR                     []float64 // one value, or one per group
	TotalSteps                int64
	Epochs, StepsPerEpoch     int64
	PctStart                  float64
	AnnealStrategy            string // "cos" or "linear"
	CycleMomentum             bool
	BaseMomentum              []float64
	MaxMomentum               []float64
	DivFactor, FinalDivFactor float64
	ThreePhase                bool
}

// DefaultOneCycleOptions are torch's: pct_start 0.3, "cos", cycle_momentum,
// momenta 0.85..0.95, div_factor 25, final_div_factor 1e4.
func DefaultOneCycleOptions() OneCycleOptions {
	return OneCycleOptions{PctStart: 0.3, AnnealStrategy: "cos", CycleMomentum: true,
		BaseMomentum: []float64{0.85}, MaxMomentum: []float64{0.95}, DivFactor: 25, FinalDivFactor: 1e4}
}

// NewOneCycleLR is OneCycleLR(opt, **o).
func NewOneCycleLR(opt *Optimizer, o OneCycleOptions) (*LRScheduler, error) {
	if o.AnnealStrategy != "cos" && o.AnnealStrategy != "linear" {
		return nil, newError(InvalidArgument,
			"anneal_strategy must by one of 'cos' or 'linear', instead got "+o.AnnealStrategy)
	}
	defer runtime.KeepAlive(opt)
	return newScheduler(func() uintptr {
		return capi.LrSchedulerOne_cycle_lr(opt.ptr(), o.MaxLR, o.TotalSteps, o.Epochs, o.StepsPerEpoch, o.PctStart,
			o.AnnealStrategy == "linear", o.CycleMomentum, o.BaseMomentum, o.MaxMomentum, o.DivFactor,
			o.FinalDivFactor, o.ThreePhase, -1)
	})
}

// NewSequentialLR is SequentialLR(opt, schedulers, milestones): one to four
// schedulers in the bindings (the C API takes any number).
func NewSequentialLR(opt *Optimizer, schedulers []*LRScheduler, milestones []int64) (*LRScheduler, error) {
	var h [4]uintptr
	for i := 0; i < len(schedulers) && i < 4; i++ {
		h[i] = uintptr(schedulers[i].c())
	}
	defer runtime.KeepAlive(opt)
	defer runtime.KeepAlive(schedulers)
	return newScheduler(func() uintptr {
		return capi.LrSchedulerSequential_lr(opt.ptr(), int64(len(schedulers)), h[0], h[1], h[2], h[3], milestones, -1)
	})
}

// Close releases the scheduler and its reference to the optimizer;
// idempotent, and nil is fine.
func (s *LRScheduler) Close() error {
	if s != nil {
		release(s, &s.handle, func(h capi.SwigcptrLrScheduler) { capi.DeleteLrScheduler(h) })
	}
	return nil
}

func (s *LRScheduler) c() capi.SwigcptrLrScheduler {
	if s == nil {
		return 0
	}
	return s.handle
}

// Step is scheduler.step(): the next epoch's lr into the groups.
func (s *LRScheduler) Step() error {
	err := do(func() { s.c().Step() })
	runtime.KeepAlive(s)
	return err
}

// StepTo is scheduler.step(epoch) (deprecated in torch): the closed form at
// epoch where the scheduler has one.
func (s *LRScheduler) StepTo(epoch int64) error {
	err := do(func() { s.c().Step_epoch(epoch) })
	runtime.KeepAlive(s)
	return err
}

// LastLR is scheduler.get_last_lr(): one value per group.
func (s *LRScheduler) LastLR() ([]float64, error) {
	v, err := call(func() []float64 { return s.c().Get_last_lr() })
	runtime.KeepAlive(s)
	return v, err
}

// LastEpoch is scheduler.last_epoch.
func (s *LRScheduler) LastEpoch() (int64, error) {
	v, err := call(func() int64 { return s.c().Last_epoch() })
	runtime.KeepAlive(s)
	return v, err
}
