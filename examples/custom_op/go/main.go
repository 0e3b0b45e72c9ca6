// Command custom_op defines a fused swish (y = x * sigmoid(x)) as a custom
// differentiable function (tessera.Function, torch.autograd.Function's
// form), checks its gradient against the same function composed of tessera
// ops, then uses it inside a checkpointed block of a small network and
// checks that block's gradients against the uncheckpointed run. It prints
// the results and exits non-zero if a gradient differs by more than 1e-12.
package main

import (
	"fmt"
	"math"
	"os"

	"tessera.dev/tessera"
)

const tolerance = 1e-12

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "custom_op:", err)
		os.Exit(1)
	}
}

func run() error {
	g, err := tessera.NewGenerator(20240611)
	if err != nil {
		return err
	}
	defer g.Close()
	if err := checkGradient(g); err != nil {
		return err
	}
	return checkCheckpointedBlock(g)
}

// checkGradient compares d sum(swish(x)) / dx, custom against composed.
func checkGradient(g *tessera.Generator) error {
	x, err := tessera.Randn([]int64{4, 5}, tessera.Float64, g)
	if err != nil {
		return err
	}
	defer x.Close()
	var forwards, backwards int64
	custom, err := gradient(x, func(x *tessera.Tensor) (*tessera.Tensor, error) {
		return apply(Swish{&forwards, &backwards}, x)
	})
	if err != nil {
		return err
	}
	composed, err := gradient(x, composedSwish)
	if err != nil {
		return err
	}
	diff := maxDiff(custom, composed)
	fmt.Printf("swish gradient, custom vs composed: max |difference| %.3g over %d elements\n", diff, len(custom))
	if diff > tolerance {
		return fmt.Errorf("the custom gradient differs from the composed one by %g", diff)
	}
	return nil
}

// checkCheckpointedBlock runs loss = sum((swish(x W1) W2)^2) with the swish
// block checkpointed, and without, and compares W1's gradients.
func checkCheckpointedBlock(g *tessera.Generator) error {
	x, err := tessera.Randn([]int64{8, 6}, tessera.Float64, g)
	if err != nil {
		return err
	}
	defer x.Close()
	w1, err := tessera.Randn([]int64{6, 16}, tessera.Float64, g)
	if err != nil {
		return err
	}
	defer w1.Close()
	w2, err := tessera.Randn([]int64{16, 3}, tessera.Float64, g)
	if err != nil {
		return err
	}
	defer w2.Close()
	var forwards, backwards int64
	net := network{x: x, w2: w2, swish: Swish{&forwards, &backwards}}
	checkpointed, loss, err := net.gradient(w1, true)
	if err != nil {
		return err
	}
	fmt.Printf("checkpointed block: loss %.6f; Swish ran forward %d times (once more in backward), backward %d\n",
		loss, forwards, backwards)
	plain, _, err := net.gradient(w1, false)
	if err != nil {
		return err
	}
	diff := maxDiff(checkpointed, plain)
	fmt.Printf("W1 gradient, checkpointed vs not: max |difference| %.3g\n", diff)
	if diff > tolerance {
		return fmt.Errorf("checkpointing changed W1's gradient by %g", diff)
	}
	if forwards != 3 || backwards != 2 {
		return fmt.Errorf("Swish ran forward %d and backward %d times; want 3 (with the replay) and 2", forwards, backwards)
	}
	return nil
}

func maxDiff(a, b []float64) float64 {
	worst := 0.0
	for i := range a {
		worst = math.Max(worst, math.Abs(a[i]-b[i]))
	}
	return worst
}
