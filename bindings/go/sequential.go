package tessera

import "strconv"

// Sequential is torch.nn.Sequential: children named "0", "1", ... in
// order, Forward feeding each one's output to the next, so its state_dict
// keys are "0.weight", "1.running_mean", ... as torch's.
type Sequential struct {
	ModuleBase
	n int
}

// NewSequential takes ownership of modules, as its steps in order.
func NewSequential(modules ...Module) (*Sequential, error) {
	s := &Sequential{}
	for _, m := range modules {
		if err := s.Append(m); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// Append is torch's Sequential.append: m becomes the next step, owned by s.
func (s *Sequential) Append(m Module) error {
	if err := s.RegisterModule(strconv.Itoa(s.n), m); err != nil {
		return err
	}
	s.n++
	return nil
}

// Len is the number of steps.
func (s *Sequential) Len() int { return s.n }

// Forward feeds input through every step; the intermediate outputs are
// closed as soon as they are used (autograd keeps what backward needs).
// With no steps: a new handle to input itself, as torch returns input.
func (s *Sequential) Forward(input *Tensor) (*Tensor, error) {
	if s.n == 0 {
		// Dropout that drops nothing (not training) is documented to return
		// a new handle to t itself, drawing nothing.
		return input.Dropout(0, false, InitGenerator())
	}
	h := input
	for _, c := range s.children {
		next, err := c.Module.Forward(h)
		if h != input {
			h.Close()
		}
		if err != nil {
			return nil, err
		}
		h = next
	}
	return h, nil
}

// ReLU is torch.nn.ReLU: max(x, 0), no parameters; a step of a Sequential.
type ReLU struct{ ModuleBase }

// NewReLU is torch.nn.ReLU().
func NewReLU() *ReLU { return &ReLU{} }

// Forward is input.Relu().
func (r *ReLU) Forward(input *Tensor) (*Tensor, error) { return input.Relu() }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
