package tessera

import "strings"

// Module is torch.nn.Module: a layer or model that owns its parameters,
// buffers and child modules. A module type embeds ModuleBase, registers its
// tensors and children in its constructor (RegisterParameter,
// RegisterBuffer, RegisterModule) and implements Forward; the rest comes
// from ModuleBase. The functions StateDict, LoadStateDict, ZeroGrad,
// Parameters and Buffers work on any Module.
//
// Names follow torch: a child's tensors are reached through dotted names
// ("0.weight"), in registration order. Close releases every tensor
// registered with the module and closes its children; the tensors the
// accessors return are the module's own, not to be closed by the caller.
// Not safe for concurrent use, like torch modules.
type Module interface {
	// Forward is the output for input, a new tensor the caller closes.
	Forward(input *Tensor) (*Tensor, error)
	// NamedParameters is torch's named_parameters(): every parameter with
	// its dotted name, depth first, each tensor once.
	NamedParameters() []NamedTensor
	// NamedBuffers is torch's named_buffers(), persistent or not.
	NamedBuffers() []NamedTensor
	// NamedChildren is torch's named_children(), in registration order.
	NamedChildren() []NamedModule
	// Train is torch's train(mode): here and in every descendant;
	// Train(false) is torch's eval().
	Train(mode bool)
	// IsTraining is torch's Module.training (true for a new module).
	IsTraining() bool
	// Close releases the registered tensors and closes the children.
	Close() error
	// base gives the package the registrations; only types embedding
	// ModuleBase implement Module.
	base() *ModuleBase
}

// NamedTensor is one entry of a name -> tensor listing in torch's order.
type NamedTensor struct {
	Name   string
	Tensor *Tensor
}

// NamedModule is one child of a module.
type NamedModule struct {
	Name   string
	Module Module
}

// ModuleBase holds what a module registered; embed it to implement Module.
// Its zero value is a module in training mode with nothing registered.
type ModuleBase struct {
	parameters []NamedTensor
	buffers    []NamedTensor
	// nonPersistent buffers are left out of the state_dict
	// (register_buffer(persistent=False)).
	nonPersistent map[string]bool
	children      []NamedModule
	// eval rather than training, so that the zero value is in training mode.
	eval bool
}

func (b *ModuleBase) base() *ModuleBase { return b }

// RegisterParameter is torch's register_parameter: the module takes
// ownership of t and marks it as requiring grad, as nn.Parameter does. A nil
// t registers no tensor under the name (torch's None, e.g. a Linear without
// bias). Registering a name again replaces (and closes) the previous
// parameter, keeping its place. InvalidArgument with torch's message for a
// bad or taken name.
func (b *ModuleBase) RegisterParameter(name string, t *Tensor) error {
	if err := b.checkName("parameter", name, indexOf(b.parameters, name) >= 0); err != nil {
		return err
	}
	if t != nil {
		if err := t.SetRequiresGrad(true); err != nil {
			return err
		}
	}
	b.parameters = put(b.parameters, name, t)
	return nil
}

// RegisterBuffer is torch's register_buffer(name, t, persistent): state
// that is not trained (BatchNorm's running statistics), owned by the module;
// only persistent buffers are in the state_dict.
func (b *ModuleBase) RegisterBuffer(name string, t *Tensor, persistent bool) error {
	if err := b.checkName("buffer", name, indexOf(b.buffers, name) >= 0); err != nil {
		return err
	}
	b.buffers = put(b.buffers, name, t)
	if b.nonPersistent == nil {
		b.nonPersistent = map[string]bool{}
	}
	b.nonPersistent[name] = !persistent
	return nil
}

// RegisterModule is torch's register_module / add_module: m becomes a
// child, owned by this module (a name registered again closes the old one).
func (b *ModuleBase) RegisterModule(name string, m Module) error {
	at := -1
	for i, c := range b.children {
		if c.Name == name {
			at = i
		}
	}
	if err := b.checkName("module", name, at >= 0); err != nil {
		return err
	}
	if m == nil {
		return newError(InvalidArgument, "module \""+name+"\" is nil")
	}
	if at < 0 {
		b.children = append(b.children, NamedModule{name, m})
		return nil
	}
	old := b.children[at].Module
	b.children[at].Module = m
	if old != m {
		old.Close()
	}
	return nil
}

// checkName applies torch's checks on a new attribute name, with its
// messages: no ".", not empty, not taken by another kind of attribute.
func (b *ModuleBase) checkName(kind, name string, ownKind bool) error {
	if strings.Contains(name, ".") {
		return newError(InvalidArgument, kind+" name can't contain \".\", got: "+name)
	}
	if name == "" {
		return newError(InvalidArgument, kind+" name can't be empty string \"\"")
	}
	taken := indexOf(b.parameters, name) >= 0 || indexOf(b.buffers, name) >= 0
	for _, c := range b.children {
		taken = taken || c.Name == name
	}
	if taken && !ownKind {
		return newError(InvalidArgument, "attribute '"+name+"' already exists")
	}
	return nil
}

func indexOf(list []NamedTensor, name string) int {
	for i, e := range list {
		if e.Name == name {
			return i
		}
	}
	return -1
}

// put sets name to t, keeping name's place as a Python dict does, and closes
// the tensor it replaces.
func put(list []NamedTensor, name string, t *Tensor) []NamedTensor {
	i := indexOf(list, name)
	if i < 0 {
		return append(list, NamedTensor{name, t})
	}
	if old := list[i].Tensor; old != t {
		old.Close()
	}
	list[i].Tensor = t
	return list
}

// NamedParameters is torch's named_parameters().
func (b *ModuleBase) NamedParameters() []NamedTensor {
	var out []NamedTensor
	b.collect(&out, "", true, map[*Tensor]bool{})
	return out
}

// NamedBuffers is torch's named_buffers().
func (b *ModuleBase) NamedBuffers() []NamedTensor {
	var out []NamedTensor
	b.collect(&out, "", false, map[*Tensor]bool{})
	return out
}

// collect walks depth first, own entries before the children's, as torch's
// named_modules.
func (b *ModuleBase) collect(out *[]NamedTensor, prefix string, parameters bool, seen map[*Tensor]bool) {
	own := b.buffers
	if parameters {
		own = b.parameters
	}
	for _, e := range own {
		if e.Tensor != nil && !seen[e.Tensor] {
			seen[e.Tensor] = true
			*out = append(*out, NamedTensor{prefix + e.Name, e.Tensor})
		}
	}
	for _, c := range b.children {
		c.Module.base().collect(out, prefix+c.Name+".", parameters, seen)
	}
}

// NamedChildren is torch's named_children().
func (b *ModuleBase) NamedChildren() []NamedModule {
	return append([]NamedModule(nil), b.children...)
}

// Train is torch's train(mode), recursive.
func (b *ModuleBase) Train(mode bool) {
	b.eval = !mode
	for _, c := range b.children {
		c.Module.Train(mode)
	}
}

// IsTraining is torch's Module.training.
func (b *ModuleBase) IsTraining() bool { return !b.eval }

// Close releases every parameter and buffer registered here and closes the
// children. Closing twice does nothing more. It returns nil.
func (b *ModuleBase) Close() error {
	for _, e := range b.parameters {
		e.Tensor.Close()
	}
	for _, e := range b.buffers {
		e.Tensor.Close()
	}
	for _, c := range b.children {
		c.Module.Close()
	}
	return nil
}

// localState is this module's own state_dict entries, undotted (torch's
// local_state): parameters, then persistent buffers, None left out.
func (b *ModuleBase) localState() []NamedTensor {
	var out []NamedTensor
	for _, e := range b.parameters {
		if e.Tensor != nil {
			out = append(out, e)
		}
	}
	for _, e := range b.buffers {
		if e.Tensor != nil && !b.nonPersistent[e.Name] {
			out = append(out, e)
		}
	}
	return out
}

// Parameters is torch's parameters(): what an optimizer or ClipGradNorm takes.
func Parameters(m Module) []*Tensor { return tensorsOf(m.NamedParameters()) }

// Buffers is torch's buffers().
func Buffers(m Module) []*Tensor { return tensorsOf(m.NamedBuffers()) }

func tensorsOf(list []NamedTensor) []*Tensor {
	out := make([]*Tensor, len(list))
	for i, e := range list {
		out[i] = e.Tensor
	}
	return out
}

// ZeroGrad is torch 1.13's Module.zero_grad() (set_to_none=False): every
// parameter's gradient filled with zeros.
func ZeroGrad(m Module) error {
	for _, p := range Parameters(m) {
		if err := p.ZeroGrad(); err != nil {
			return err
		}
	}
	return nil
}
