package tessera

import (
	"runtime"
	"sort"
	"strings"

	"tessera.dev/tessera/internal/capi"
)

// SaveOptions says how Save (and OpenSaver) write. The zero value writes a
// plain safetensors file with checksums and without metadata, one file,
// views of one storage saved as views.
type SaveOptions struct {
	// Compression: NoCompression, Zstd (a frame per tensor) or ZstdPlanes
	// (byte planes in 1 MiB chunks; smaller on trained weights).
	Compression Compression
	// Level is the zstd level; 0 means the mode's default.
	Level int32
	// Metadata is stored in the file's "__metadata__" (string to string;
	// keys starting with "tessera." are reserved).
	Metadata map[string]string
	// SkipChecksums writes no "tessera.checksum" entry (the file is then
	// byte for byte the reference writer's).
	SkipChecksums bool
	// MaxShardSize, if nonzero, is the most tensor bytes per shard: above
	// it, a path ending in ".safetensors" becomes a Hugging Face sharded
	// checkpoint (model-0000k-of-0000n.safetensors and
	// model.safetensors.index.json, which Load reads). OpenSaver refuses it.
	MaxShardSize int64
	// FlattenViews saves tensors sharing a storage as separate copies
	// instead of views of one saved storage.
	FlattenViews bool
	// Progress, if set, is called as the save goes (see ProgressFunc).
	Progress ProgressFunc
}

// Save writes tensors, by name, to path in the safetensors layout (names in
// sorted order). The file is replaced atomically: a failed or cancelled Save
// leaves any previous file as it was.
func Save(path string, tensors map[string]*Tensor, opts *SaveOptions) (err error) {
	if opts == nil {
		opts = &SaveOptions{}
	}
	names := make([]string, 0, len(tensors))
	for name := range tensors {
		names = append(names, name)
	}
	sort.Strings(names)
	keys := make([]string, 0, len(opts.Metadata))
	for key := range opts.Metadata {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	if err := refuseNUL("Save: path", path); err != nil {
		return err
	}
	for _, s := range append(names, keys...) {
		if err := refuseNUL("Save: tensor name or metadata key", s); err != nil {
			return err
		}
	}
	for _, key := range keys {
		if err := refuseNUL("Save: metadata value", opts.Metadata[key]); err != nil {
			return err
		}
	}

	p := newProgress(opts.Progress)
	defer p.unregister()
	defer func() { err = p.explain(err) }()
	defer recoverFailure(&err)
	list := capi.SwigcptrTensorList(capi.NewTensorList().Swigcptr())
	defer capi.DeleteTensorList(list)
	for _, name := range names {
		t := tensors[name]
		list.Append(t.cptr(), name) // the list holds its own reference
		runtime.KeepAlive(t)
	}
	for _, key := range keys {
		list.Set_metadata(key, opts.Metadata[key])
	}
	capi.Save_with(path, uintptr(list), capi.Enum_SS_tsr_compression(opts.Compression), int(opts.Level),
		opts.SkipChecksums, opts.MaxShardSize, opts.FlattenViews, p.handle())
	return nil
}

// LoadOptions says what Load (and OpenFile) accept. The zero value applies
// the default size cap and verifies checksums.
type LoadOptions struct {
	// MaxBytes caps the tensor bytes a load may allocate; 0 means the default
	// cap (64 times the file's size plus 64 MiB), math.MaxInt64 no cap.
	MaxBytes int64
	// SkipChecksums does not verify the file's checksums (trusted files).
	SkipChecksums bool
	// Progress, if set, is called as Load reads (see ProgressFunc); OpenFile
	// ignores it.
	Progress ProgressFunc
}

// Checkpoint is what Load read: tensors by name, in file order, and the
// file's metadata. Close closes every tensor.
type Checkpoint struct {
	Names    []string           // in the file's order
	Tensors  map[string]*Tensor // each a new tensor (not requiring grad)
	Metadata map[string]string
}

// Load reads a file written by Save (any compression), any safetensors file,
// or a sharded checkpoint through its model.safetensors.index.json. A
// truncated or crafted file is CorruptFile, a missing one IOError, a
// cancelled load Cancelled.
func Load(path string, opts *LoadOptions) (out *Checkpoint, err error) {
	if opts == nil {
		opts = &LoadOptions{}
	}
	if err := refuseNUL("Load: path", path); err != nil {
		return nil, err
	}
	p := newProgress(opts.Progress)
	defer p.unregister()
	defer func() { err = p.explain(err) }()
	defer recoverFailure(&err)
	m := capi.SwigcptrTensorMap(capi.TensorMapLoad_with(path, opts.MaxBytes, opts.SkipChecksums, p.handle()))
	defer capi.DeleteTensorMap(m)
	n := m.Size()
	out = &Checkpoint{
		Names:    make([]string, n),
		Tensors:  make(map[string]*Tensor, n),
		Metadata: map[string]string{},
	}
	for i := int64(0); i < n; i++ {
		name := m.Name(i)
		out.Names[i] = name
		out.Tensors[name] = newTensor(m.Get(i))
	}
	for i, k := int64(0), m.Metadata_size(); i < k; i++ {
		out.Metadata[m.Metadata_key(i)] = m.Metadata_value(i)
	}
	return out, nil
}

// Close closes every tensor of the checkpoint.
func (c *Checkpoint) Close() error {
	for _, t := range c.Tensors {
		t.Close()
	}
	return nil
}

// refuseNUL: C strings end at the first NUL, so a Go string holding one would
// silently name something else.
func refuseNUL(what, s string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return newError(InvalidArgument, what+" contains a NUL byte")
	}
	return nil
}
