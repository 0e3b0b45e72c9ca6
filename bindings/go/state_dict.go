package tessera

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// StateDict is torch's state_dict(): parameters and persistent buffers by
// dotted name, in torch's order (own parameters, own buffers, then each
// child's entries). The tensors are the module's own.
func StateDict(m Module) []NamedTensor {
	var out []NamedTensor
	addState(m, "", &out)
	return out
}

func addState(m Module, prefix string, out *[]NamedTensor) {
	b := m.base()
	for _, e := range b.localState() {
		*out = append(*out, NamedTensor{prefix + e.Name, e.Tensor})
	}
	for _, c := range b.children {
		addState(c.Module, prefix+c.Name+".", out)
	}
}

// StateDictMap is StateDict as a map, the form Save takes.
func StateDictMap(m Module) map[string]*Tensor {
	out := map[string]*Tensor{}
	for _, e := range StateDict(m) {
		out[e.Name] = e.Tensor
	}
	return out
}

// IncompatibleKeys is what LoadStateDict did not match, torch's
// _IncompatibleKeys: the module's keys the state_dict lacked and the
// state_dict's keys the module does not have.
type IncompatibleKeys struct {
	MissingKeys    []string
	UnexpectedKeys []string
}

// LoadStateDict is torch's load_state_dict(stateDict, strict): copies each
// entry into the parameter or buffer of that name. Keys the module lacks are
// unexpected, entries stateDict lacks missing; with strict either is an
// error, and a shape mismatch always is. The error is InvalidArgument with
// torch's message ("Error(s) in loading state_dict for Linear:\n\tMissing
// key(s) in state_dict: \"weight\". ..."), returned before anything is
// copied (torch copies what fits first). Missing keys come in torch's order;
// a Go map has none, so the unexpected keys of each module come sorted. The
// map's tensors stay the caller's.
func LoadStateDict(m Module, stateDict map[string]*Tensor, strict bool) (IncompatibleKeys, error) {
	keys := make([]string, 0, len(stateDict))
	for k, t := range stateDict {
		if t == nil {
			return IncompatibleKeys{}, newError(InvalidArgument, "state_dict[\""+k+"\"] is nil")
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	w := stateDictLoad{stateDict: stateDict, keys: keys}
	if err := w.visit(m, ""); err != nil {
		return IncompatibleKeys{}, err
	}
	// torch puts the key lists first: missing, then unexpected, then the size mismatches.
	var messages []string
	if strict && len(w.missing) > 0 {
		messages = append(messages, "Missing key(s) in state_dict: "+quoted(w.missing)+". ")
	}
	if strict && len(w.unexpected) > 0 {
		messages = append(messages, "Unexpected key(s) in state_dict: "+quoted(w.unexpected)+". ")
	}
	messages = append(messages, w.errors...)
	if len(messages) > 0 {
		return IncompatibleKeys{}, newError(InvalidArgument, "Error(s) in loading state_dict for "+
			typeName(m)+":\n\t"+strings.Join(messages, "\n\t"))
	}
	// Under no_grad, as torch: the targets are parameters that require grad.
	err := NoGrad(func() error {
		for _, c := range w.copies {
			if err := c[0].CopyFrom(c[1]); err != nil {
				return err
			}
		}
		return nil
	})
	return IncompatibleKeys{w.missing, w.unexpected}, err
}

// stateDictLoad is LoadStateDict's walk, torch 1.13's: each module in
// pre-order checks its own entries (missing, size mismatch) and the keys
// under its prefix that name neither one of its entries nor a child
// (unexpected).
type stateDictLoad struct {
	stateDict  map[string]*Tensor
	keys       []string // sorted
	missing    []string
	unexpected []string
	errors     []string
	copies     [][2]*Tensor // target, source: copied once every check passed
}

func (w *stateDictLoad) visit(m Module, prefix string) error {
	b := m.base()
	local := b.localState()
	for _, e := range local {
		key := prefix + e.Name
		source, found := w.stateDict[key]
		if !found {
			w.missing = append(w.missing, key)
			continue
		}
		want, got := e.Tensor.Sizes(), source.Sizes()
		if want == nil || got == nil {
			return newError(InvalidArgument, "LoadStateDict: "+key+" is closed")
		}
		if !sameSizes(want, got) {
			w.errors = append(w.errors, "size mismatch for "+key+": copying a param with shape "+torchSize(got)+
				" from checkpoint, the shape in current model is "+torchSize(want)+".")
			continue
		}
		w.copies = append(w.copies, [2]*Tensor{e.Tensor, source})
	}
	for _, key := range w.keys {
		if !strings.HasPrefix(key, prefix) {
			continue
		}
		first, _, _ := strings.Cut(key[len(prefix):], ".")
		known := indexOf(local, first) >= 0
		for _, c := range b.children {
			known = known || c.Name == first
		}
		if !known {
			w.unexpected = append(w.unexpected, key)
		}
	}
	for _, c := range b.children {
		if err := w.visit(c.Module, prefix+c.Name+"."); err != nil {
			return err
		}
	}
	return nil
}

func sameSizes(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func quoted(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = "\"" + k + "\""
	}
	return strings.Join(q, ", ")
}

// torchSize is a shape as torch prints it: torch.Size([2, 3]).
func torchSize(sizes []int64) string {
	s := make([]string, len(sizes))
	for i, n := range sizes {
		s[i] = fmt.Sprint(n)
	}
	return "torch.Size([" + strings.Join(s, ", ") + "])"
}

// typeName is the name torch's messages give, type(module).__name__: the Go
// type's name without the pointer, or torch's name for the layers whose Go
// name differs (LinearLayer, beside the function Linear).
func typeName(m Module) string {
	if named, ok := m.(interface{ torchName() string }); ok {
		return named.torchName()
	}
	t := reflect.TypeOf(m)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// SaveStateDict writes m's state_dict to path as Save does (torch.save(
// m.state_dict(), path)); opts nil: defaults.
func SaveStateDict(path string, m Module, opts *SaveOptions) error {
	return Save(path, StateDictMap(m), opts)
}

// LoadStateDictFile reads path and loads it into m as LoadStateDict
// (m.load_state_dict(torch.load(path), strict)); the tensors read are
// closed before it returns.
func LoadStateDictFile(path string, m Module, strict bool) (IncompatibleKeys, error) {
	c, err := Load(path, nil)
	if err != nil {
		return IncompatibleKeys{}, err
	}
	defer c.Close()
	return LoadStateDict(m, c.Tensors, strict)
}
