package tessera

import "math"

// resetParameters is the default initialisation torch's Linear and Conv2d
// share (their reset_parameters): kaiming_uniform_(weight, a = sqrt(5)),
// which makes the weight uniform in [-1/sqrt(fanIn), 1/sqrt(fanIn)), and the
// bias (if any) uniform in the same range, 0 for fanIn 0 as in torch.
func resetParameters(weight, bias *Tensor, fanIn int64, g *Generator) error {
	if err := InitKaimingUniform(weight, math.Sqrt(5), "fan_in", "leaky_relu", g); err != nil {
		return err
	}
	if bias == nil {
		return nil
	}
	bound := 0.0
	if fanIn > 0 {
		bound = 1 / math.Sqrt(float64(fanIn))
	}
	return InitUniform(bias, -bound, bound, g)
}

// newParameter registers an uninitialised float32 tensor of sizes as the
// parameter name of b.
func newParameter(b *ModuleBase, name string, sizes ...int64) (*Tensor, error) {
	t, err := Empty(sizes, Float32)
	if err != nil {
		return nil, err
	}
	if err := b.RegisterParameter(name, t); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}
