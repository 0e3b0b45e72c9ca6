// Command digits is examples/digits in Go: tessera end to end on real data.
//
//	digits [DATA.csv.gz [CHECKPOINT]]
//
// It reads the UCI handwritten digits (8x8 grey images), shuffles them with a
// seeded generator and splits 80/20, shows how the images are laid out in
// memory, trains a 64-128-10 perceptron with minibatch SGD and autograd,
// reports held-out accuracy and the allocator's statistics, saves a
// zstd-compressed checkpoint, loads it back and checks that the reloaded model
// predicts exactly the same classes. It exits non-zero if any call fails, if
// accuracy is below 0.95, if the reloaded model differs, or if tensor memory
// is still allocated once every tensor is closed.
//
// Every tensor is closed where it stops being needed (defer x.Close()): the
// garbage collector would release them too, but only when Go's heap grows,
// and it does not see the native memory they hold.
package main

import (
	"bytes"
	"fmt"
	"os"

	"tessera.dev/tessera"
)

const (
	seed         = 20240611
	epochs       = 25
	batch        = 64
	learningRate = 0.1
	minAccuracy  = 0.95
)

func main() {
	dataPath, checkpointPath := "examples/data/digits.csv.gz", "digits-checkpoint.tsr"
	switch len(os.Args) {
	case 3:
		checkpointPath = os.Args[2]
		fallthrough
	case 2:
		dataPath = os.Args[1]
	case 1:
	default:
		fmt.Fprintf(os.Stderr, "usage: %s [DATA.csv.gz [CHECKPOINT]]\n", os.Args[0])
		os.Exit(2)
	}
	accuracy, err := run(dataPath, checkpointPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAILED:", err)
		os.Exit(1)
	}
	// Every tensor is closed by now: no tensor memory is in use (the
	// allocator keeps its segments cached; that is reserved, not allocated).
	left, err := tessera.MemoryAllocated(tessera.CPU)
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAILED:", err)
		os.Exit(1)
	}
	fmt.Printf("after closing every tensor: %d bytes allocated\n", left)
	if accuracy < minAccuracy {
		fmt.Fprintf(os.Stderr, "FAILED: accuracy %.4f below %.2f\n", accuracy, minAccuracy)
		os.Exit(1)
	}
	if left != 0 {
		fmt.Fprintln(os.Stderr, "FAILED: tensor memory still allocated after closing every tensor")
		os.Exit(1)
	}
}

func run(dataPath, checkpointPath string) (float64, error) {
	fmt.Printf("tessera %s\n", tessera.Version())
	data, err := loadDigits(dataPath)
	if err != nil {
		return 0, err
	}
	fmt.Printf("read %d images of %dx%d pixels from %s\n", data.n(), side, side, dataPath)

	gen, err := tessera.NewGenerator(seed)
	if err != nil {
		return 0, err
	}
	defer gen.Close()
	X, y, err := shuffled(data, gen)
	if err != nil {
		return 0, err
	}
	defer X.Close()
	defer y.Close()
	if err := layoutTour(X); err != nil {
		return 0, err
	}

	// The MLP sees each image as 64 inputs: a view, [N, 1, 8, 8] -> [N, 64];
	// the split is two narrow views of it. No data is copied.
	n := int64(data.n())
	nTrain := n * 8 / 10
	nTest := n - nTrain
	flat, err := X.View(n, pixels)
	if err != nil {
		return 0, err
	}
	defer flat.Close()
	var xTrain, xTest, yTrain, yTest *tessera.Tensor
	for _, s := range []struct {
		out           **tessera.Tensor
		from          *tessera.Tensor
		start, length int64
	}{{&xTrain, flat, 0, nTrain}, {&xTest, flat, nTrain, nTest}, {&yTrain, y, 0, nTrain}, {&yTest, y, nTrain, nTest}} {
		if *s.out, err = s.from.Narrow(0, s.start, s.length); err != nil {
			return 0, err
		}
		defer (*s.out).Close()
	}
	fmt.Printf("\nsplit: %d training images, %d held out\n", nTrain, nTest)

	model, err := newMLP(gen)
	if err != nil {
		return 0, err
	}
	defer model.Close()
	fmt.Printf("training MLP %d-%d-%d, SGD lr %.2f, batch %d, %d epochs\n",
		pixels, hidden, classes, learningRate, batch, epochs)
	for epoch := 1; epoch <= epochs; epoch++ {
		loss, err := trainEpoch(model, xTrain, yTrain)
		if err != nil {
			return 0, err
		}
		fmt.Printf("  epoch %2d  loss %.4f\n", epoch, loss)
	}

	predicted, err := model.predict(xTest)
	if err != nil {
		return 0, err
	}
	truth, err := yTest.Int64s()
	if err != nil {
		return 0, err
	}
	right := 0
	for i := range truth {
		if predicted[i] == truth[i] {
			right++
		}
	}
	accuracy := float64(right) / float64(len(truth))
	fmt.Printf("test accuracy: %.4f\n", accuracy)
	if err := printAllocatorStats(); err != nil {
		return 0, err
	}

	if err := saveCheckpoint(model, checkpointPath); err != nil {
		return 0, err
	}
	reloaded, err := loadCheckpoint(checkpointPath)
	if err != nil {
		return 0, err
	}
	defer reloaded.Close()
	paramsSame := true
	theirs := tessera.StateDictMap(reloaded.net)
	for _, e := range tessera.StateDict(model.net) {
		same, err := sameContents(e.Tensor, theirs[e.Name])
		if err != nil {
			return 0, err
		}
		paramsSame = paramsSame && same
	}
	again, err := reloaded.predict(xTest)
	if err != nil {
		return 0, err
	}
	predictionsSame := len(again) == len(predicted)
	for i := range again {
		predictionsSame = predictionsSame && again[i] == predicted[i]
	}
	fmt.Printf("reloaded parameters bit-identical: %s\n", yesNo(paramsSame))
	fmt.Printf("reloaded predictions identical: %s\n", yesNo(predictionsSame))
	if !paramsSame || !predictionsSame {
		return accuracy, fmt.Errorf("the reloaded model differs from the trained one")
	}
	return accuracy, nil
}

// shuffled is X [N, 1, 8, 8] float32 and y [N] int64, rows in the order of a
// seeded random permutation (torch.randperm with a generator).
func shuffled(d *digits, g *tessera.Generator) (X, y *tessera.Tensor, err error) {
	perm, err := tessera.Randperm(int64(d.n()), g)
	if err != nil {
		return nil, nil, err
	}
	defer perm.Close()
	order, err := perm.Int64s()
	if err != nil {
		return nil, nil, err
	}
	px := make([]float64, 0, len(d.pixels))
	labels := make([]int64, 0, d.n())
	for _, i := range order {
		px = append(px, d.pixels[i*pixels:(i+1)*pixels]...)
		labels = append(labels, d.labels[i])
	}
	n := int64(d.n())
	if X, err = tessera.FromFloat64s(px, []int64{n, 1, side, side}, tessera.Float32); err != nil {
		return nil, nil, err
	}
	if y, err = tessera.FromInt64s(labels, []int64{n}, tessera.Int64); err != nil {
		X.Close()
		return nil, nil, err
	}
	return X, y, nil
}

// trainEpoch runs one pass of minibatch SGD and returns the mean batch loss.
func trainEpoch(m *mlp, X, y *tessera.Tensor) (float64, error) {
	n, err := y.Numel()
	if err != nil {
		return 0, err
	}
	var sum float64
	batches := 0
	for start := int64(0); start < n; start += batch {
		loss, err := trainBatch(m, X, y, start, min(batch, n-start))
		if err != nil {
			return 0, err
		}
		sum += loss
		batches++
	}
	return sum / float64(batches), nil
}

// trainBatch is one SGD step on rows [start, start+length); minibatches are
// views (narrow), and every intermediate is closed when the step ends.
func trainBatch(m *mlp, X, y *tessera.Tensor, start, length int64) (float64, error) {
	xb, err := X.Narrow(0, start, length)
	if err != nil {
		return 0, err
	}
	defer xb.Close()
	yb, err := y.Narrow(0, start, length)
	if err != nil {
		return 0, err
	}
	defer yb.Close()
	logits, err := m.forward(xb)
	if err != nil {
		return 0, err
	}
	defer logits.Close()
	loss, err := logits.CrossEntropy(yb)
	if err != nil {
		return 0, err
	}
	defer loss.Close()
	if err := loss.Backward(); err != nil {
		return 0, err
	}
	if err := m.sgdStep(learningRate); err != nil {
		return 0, err
	}
	return loss.Item()
}

func min(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}

// yesNo shouts a failed check.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}

// sameContents: same dtype, sizes and bytes.
func sameContents(a, b *tessera.Tensor) (bool, error) {
	da, err := a.DType()
	if err != nil {
		return false, err
	}
	db, err := b.DType()
	if err != nil {
		return false, err
	}
	ba, err := a.Bytes()
	if err != nil {
		return false, err
	}
	bb, err := b.Bytes()
	if err != nil {
		return false, err
	}
	return da == db && fmt.Sprint(a.Sizes()) == fmt.Sprint(b.Sizes()) && bytes.Equal(ba, bb), nil
}
