package tessera

import (
	"runtime"

	"tessera.dev/tessera/internal/capi"
)

// GradScaler is torch.cuda.amp.GradScaler of PyTorch 1.13: Scale multiplies
// the loss by the scale factor, Step unscales the optimizer's gradients and
// skips its step when one holds an inf or NaN, Update backs the scale off
// after a skip or grows it after GrowthInterval clean updates:
//
//	scaler, err := tessera.NewGradScaler(tessera.DefaultGradScalerOptions())
//	...
//	scaled, err := scaler.Scale(loss)
//	err = scaled.Backward()
//	stepped, err := scaler.Step(opt)
//	err = scaler.Update()
//
// Every check of a call is made before anything changes. It keeps a
// reference to each optimizer it saw since the last Update. Close releases
// it; a finalizer does if you do not. Use it from one goroutine at a time.
type GradScaler struct {
	handle capi.SwigcptrGradScaler // 0 once closed
}

// GradScalerOptions are GradScaler's arguments; start from
// DefaultGradScalerOptions (torch's defaults).
type GradScalerOptions struct {
	InitScale      float64
	GrowthFactor   float64 // > 1 when enabled
	BackoffFactor  float64 // < 1 when enabled
	GrowthInterval int64
	Enabled        bool // false: Scale passes tensors through, Step just steps
}

// DefaultGradScalerOptions are torch's: init_scale 2^16, growth_factor 2,
// backoff_factor 0.5, growth_interval 2000, enabled.
func DefaultGradScalerOptions() GradScalerOptions {
	return GradScalerOptions{InitScale: 65536, GrowthFactor: 2, BackoffFactor: 0.5, GrowthInterval: 2000, Enabled: true}
}

// NewGradScaler is GradScaler(**opts). InvalidArgument, when enabled, for a
// growth factor <= 1 ("The growth factor must be > 1.0.") or a backoff
// factor >= 1.
func NewGradScaler(opts GradScalerOptions) (s *GradScaler, err error) {
	defer recoverFailure(&err)
	h := capi.GradScalerCreate(opts.InitScale, opts.GrowthFactor, opts.BackoffFactor, opts.GrowthInterval, opts.Enabled)
	return own(&GradScaler{handle: capi.SwigcptrGradScaler(h)}, (*GradScaler).Close), nil
}

// Close releases the scaler and its references to optimizers; idempotent,
// and nil is fine.
func (s *GradScaler) Close() error {
	if s != nil {
		release(s, &s.handle, func(h capi.SwigcptrGradScaler) { capi.DeleteGradScaler(h) })
	}
	return nil
}

func (s *GradScaler) c() capi.SwigcptrGradScaler {
	if s == nil {
		return 0
	}
	return s.handle
}

// Scale is scaler.scale(outputs): outputs times the scale, a new tensor
// (float32 by torch's promotion, grad_fn MulBackward0); outputs itself (a new
// handle) when disabled.
func (s *GradScaler) Scale(outputs *Tensor) (*Tensor, error) {
	defer runtime.KeepAlive(s)
	defer runtime.KeepAlive(outputs)
	h, err := call(func() uintptr { return s.c().Scale(outputs.cptr()) })
	if err != nil {
		return nil, err
	}
	return newTensor(h), nil
}

// Unscale_ is scaler.unscale_(optimizer): the optimizer's gradients divided
// by the scale in place, and whether any holds an inf/NaN recorded (once per
// optimizer per Update).
func (s *GradScaler) Unscale_(opt *Optimizer) error {
	defer runtime.KeepAlive(s)
	defer runtime.KeepAlive(opt)
	return do(func() { s.c().Unscale_(opt.ptr()) })
}

// Step is scaler.step(optimizer): unscales (unless done since the last
// Update), then steps the optimizer unless an inf/NaN was found; stepped
// says whether it did.
func (s *GradScaler) Step(opt *Optimizer) (stepped bool, err error) {
	defer runtime.KeepAlive(s)
	defer runtime.KeepAlive(opt)
	return call(func() bool { return s.c().Step(opt.ptr()) })
}

// Update is scaler.update(): the scale backed off or grown.
func (s *GradScaler) Update() error {
	defer runtime.KeepAlive(s)
	return do(func() { s.c().Update() })
}

// UpdateScale is scaler.update(new_scale): the scale set (rounded to
// float32).
func (s *GradScaler) UpdateScale(newScale float64) error {
	defer runtime.KeepAlive(s)
	return do(func() { s.c().Update_scale(newScale) })
}

// GetScale is scaler.get_scale(): init_scale before the first Scale, 1 when
// disabled.
func (s *GradScaler) GetScale() (float64, error) {
	defer runtime.KeepAlive(s)
	return call(func() float64 { return s.c().Get_scale() })
}

// GrowthFactor is scaler.get_growth_factor().
func (s *GradScaler) GrowthFactor() (float64, error) {
	defer runtime.KeepAlive(s)
	return call(func() float64 { return s.c().Get_growth_factor() })
}

// SetGrowthFactor is scaler.set_growth_factor(v).
func (s *GradScaler) SetGrowthFactor(v float64) error {
	defer runtime.KeepAlive(s)
	return do(func() { s.c().Set_growth_factor(v) })
}

// BackoffFactor is scaler.get_backoff_factor().
func (s *GradScaler) BackoffFactor() (float64, error) {
	defer runtime.KeepAlive(s)
	return call(func() float64 { return s.c().Get_backoff_factor() })
}

// SetBackoffFactor is scaler.set_backoff_factor(v).
func (s *GradScaler) SetBackoffFactor(v float64) error {
	defer runtime.KeepAlive(s)
	return do(func() { s.c().Set_backoff_factor(v) })
}

// GrowthInterval is scaler.get_growth_interval().
func (s *GradScaler) GrowthInterval() (int64, error) {
	defer runtime.KeepAlive(s)
	return call(func() int64 { return s.c().Get_growth_interval() })
}

// SetGrowthInterval is scaler.set_growth_interval(v).
func (s *GradScaler) SetGrowthInterval(v int64) error {
	defer runtime.KeepAlive(s)
	return do(func() { s.c().Set_growth_interval(v) })
}

// GrowthTracker is scaler._get_growth_tracker(): clean updates counted since
// the scale last changed.
func (s *GradScaler) GrowthTracker() (int64, error) {
	defer runtime.KeepAlive(s)
	return call(func() int64 { return s.c().Get_growth_tracker() })
}

// IsEnabled is scaler.is_enabled().
func (s *GradScaler) IsEnabled() (bool, error) {
	defer runtime.KeepAlive(s)
	return call(func() bool { return s.c().Is_enabled() })
}

// StateDict is scaler.state_dict(): "scale", "growth_factor",
// "backoff_factor" (0-dim float64) and "growth_interval", "_growth_tracker"
// (0-dim int64), new tensors the caller closes; empty when disabled.
func (s *GradScaler) StateDict() (out map[string]*Tensor, err error) {
	defer recoverFailure(&err)
	m := capi.SwigcptrTensorMap(s.c().State_dict())
	runtime.KeepAlive(s)
	return namedTensors(m), nil
}

// LoadStateDict is scaler.load_state_dict from StateDict's tensors (or a
// Checkpoint's Tensors: other names are skipped). On error nothing changes.
func (s *GradScaler) LoadStateDict(stateDict map[string]*Tensor) (err error) {
	defer recoverFailure(&err)
	list, err := namedTensorList(stateDict)
	if err != nil {
		return err
	}
	defer capi.DeleteTensorList(list)
	s.c().Load_state_dict(uintptr(list))
	runtime.KeepAlive(s)
	return nil
}
