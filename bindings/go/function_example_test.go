package tessera_test

import (
	"fmt"

	"tessera.dev/tessera"
)

// expFunction is README.md's example: exp with its saved output.
type expFunction struct{}

func (expFunction) Name() string { return "Exp" }

func (expFunction) Forward(ctx *tessera.FunctionContext, in []*tessera.Tensor) ([]*tessera.Tensor, error) {
	y, err := in[0].Exp()
	if err == nil {
		err = ctx.SaveForBackward(y)
	}
	return []*tessera.Tensor{y}, err
}

func (expFunction) Backward(ctx *tessera.FunctionContext, grads []*tessera.Tensor) ([]*tessera.Tensor, error) {
	saved, err := ctx.SavedTensors()
	if err != nil {
		return nil, err
	}
	g, err := grads[0].Mul(saved[0])
	return []*tessera.Tensor{g}, err
}

func ExampleApply() {
	x, _ := tessera.FromFloat64s([]float64{0, 1}, []int64{2}, tessera.Float64)
	defer x.Close()
	_ = x.SetRequiresGrad(true)
	ys, err := tessera.Apply(expFunction{}, x)
	if err != nil {
		fmt.Println(err)
		return
	}
	y := ys[0]
	defer y.Close()
	name, _ := y.GradFnName()
	s, _ := y.Sum(nil, false)
	defer s.Close()
	_ = s.Backward()
	g, _ := x.Grad()
	defer g.Close()
	values, _ := g.Float64s()
	fmt.Printf("%s %.4f\n", name, values)
	// Output: ExpBackward [1.0000 2.7183]
}
