package tessera

// LinearLayer is torch.nn.Linear(in_features, out_features, bias): y = x W^T
// + b with Weight [out, in] and Bias [out] (nil without bias). (Linear is the
// functional form; messages name the module "Linear", as torch.)
type LinearLayer struct {
	ModuleBase
	InFeatures, OutFeatures int64
	Weight, Bias            *Tensor // the module's own: not to be closed
}

// NewLinear initialises as torch's reset_parameters: kaiming_uniform_(
// weight, a = sqrt(5)), bias uniform in [-1/sqrt(in), 1/sqrt(in)), drawn
// from g (nil: InitGenerator()); torch's distributions, not torch's numbers.
func NewLinear(inFeatures, outFeatures int64, bias bool, g *Generator) (*LinearLayer, error) {
	l := &LinearLayer{InFeatures: inFeatures, OutFeatures: outFeatures}
	err := l.init(bias, g)
	if err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

func (l *LinearLayer) init(bias bool, g *Generator) (err error) {
	if l.Weight, err = newParameter(&l.ModuleBase, "weight", l.OutFeatures, l.InFeatures); err != nil {
		return err
	}
	if bias {
		if l.Bias, err = newParameter(&l.ModuleBase, "bias", l.OutFeatures); err != nil {
			return err
		}
	} else if err = l.RegisterParameter("bias", nil); err != nil {
		return err
	}
	return resetParameters(l.Weight, l.Bias, l.InFeatures, g)
}

// Forward is Linear(input, Weight, Bias).
func (l *LinearLayer) Forward(input *Tensor) (*Tensor, error) { return Linear(input, l.Weight, l.Bias) }

func (l *LinearLayer) torchName() string { return "Linear" }
