package tessera

// Conv2dLayer is torch.nn.Conv2d(in_channels, out_channels, kernel_size,
// stride, padding, dilation, groups, bias): Weight [out, in / groups, kH,
// kW], Bias [out] (nil without bias). (Conv2d is the functional form;
// messages name the module "Conv2d", as torch.)
type Conv2dLayer struct {
	ModuleBase
	Stride, Padding, Dilation [2]int64
	Groups                    int64
	Weight, Bias              *Tensor // the module's own: not to be closed
}

// NewConv2d checks groups as torch does (InvalidArgument with torch's
// ValueError messages) and initialises as Linear does, with fan_in = in /
// groups * kH * kW, drawing from g (nil: InitGenerator()). Pairs are {H, W};
// torch's defaults are stride {1, 1}, padding {0, 0}, dilation {1, 1},
// groups 1, bias true.
func NewConv2d(inChannels, outChannels int64, kernelSize, stride, padding, dilation [2]int64, groups int64,
	bias bool, g *Generator) (*Conv2dLayer, error) {
	switch {
	case groups <= 0:
		return nil, newError(InvalidArgument, "groups must be a positive integer")
	case inChannels%groups != 0:
		return nil, newError(InvalidArgument, "in_channels must be divisible by groups")
	case outChannels%groups != 0:
		return nil, newError(InvalidArgument, "out_channels must be divisible by groups")
	}
	c := &Conv2dLayer{Stride: stride, Padding: padding, Dilation: dilation, Groups: groups}
	if err := c.init(inChannels, outChannels, kernelSize, bias, g); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Conv2dLayer) init(in, out int64, kernel [2]int64, bias bool, g *Generator) (err error) {
	if c.Weight, err = newParameter(&c.ModuleBase, "weight", out, in/c.Groups, kernel[0], kernel[1]); err != nil {
		return err
	}
	if bias {
		if c.Bias, err = newParameter(&c.ModuleBase, "bias", out); err != nil {
			return err
		}
	} else if err = c.RegisterParameter("bias", nil); err != nil {
		return err
	}
	return resetParameters(c.Weight, c.Bias, in/c.Groups*kernel[0]*kernel[1], g)
}

// Forward is Conv2d(input, Weight, Bias, Stride, Padding, Dilation, Groups).
func (c *Conv2dLayer) Forward(input *Tensor) (*Tensor, error) {
	return Conv2d(input, c.Weight, c.Bias, c.Stride, c.Padding, c.Dilation, c.Groups)
}

func (c *Conv2dLayer) torchName() string { return "Conv2d" }
