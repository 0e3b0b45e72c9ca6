package tessera

import (
	"runtime"

	"tessera.dev/tessera/internal/capi"
)

// File is a checkpoint opened without reading its tensors (tessera/file.h),
// like safetensors' safe_open: names, dtypes, shapes and metadata at once,
// each tensor on Get. A plain file's tensors are read-only views of a memory
// mapping of the file (Clone gives a writable copy); a compressed file's are
// decoded one by one. The mapping lives while the File or any tensor from it
// does. Safe for concurrent Gets.
type File struct {
	handle capi.SwigcptrFile // 0 once closed
}

// OpenFile reads and checks path's header and maps a plain file
// (tsr_open_file). opts: MaxBytes and SkipChecksums (nil: defaults).
func OpenFile(path string, opts *LoadOptions) (f *File, err error) {
	if opts == nil {
		opts = &LoadOptions{}
	}
	if err := refuseNUL("OpenFile: path", path); err != nil {
		return nil, err
	}
	defer recoverFailure(&err)
	h := capi.FileOpen(path, opts.MaxBytes, opts.SkipChecksums)
	return own(&File{handle: capi.SwigcptrFile(h)}, (*File).Close), nil
}

// Close drops this handle's reference; tensors from the file stay valid.
// Closing twice, or closing nil, does nothing; it always returns nil.
func (f *File) Close() error {
	if f != nil {
		release(f, &f.handle, func(h capi.SwigcptrFile) { capi.DeleteFile(h) })
	}
	return nil
}

func (f *File) c() capi.SwigcptrFile {
	if f == nil {
		return 0
	}
	return f.handle
}

// fileCall runs one wrapper call on f, keeping f reachable until it returned.
func fileCall[T any](f *File, fn func(capi.SwigcptrFile) T) (T, error) {
	out, err := call(func() T { return fn(f.c()) })
	runtime.KeepAlive(f)
	return out, err
}

// Names are the tensor names in file order.
func (f *File) Names() ([]string, error) {
	return fileCall(f, func(h capi.SwigcptrFile) []string {
		n := h.Size()
		names := make([]string, n)
		for i := int64(0); i < n; i++ {
			names[i] = h.Name(i)
		}
		return names
	})
}

// index is the position of name; InvalidArgument when there is none.
func (f *File) index(name string) (int64, error) {
	if err := refuseNUL("File: name", name); err != nil {
		return -1, err
	}
	i, err := fileCall(f, func(h capi.SwigcptrFile) int64 { return h.Find(name) })
	if err == nil && i < 0 {
		err = newError(InvalidArgument, "no tensor named '"+name+"' in the file")
	}
	return i, err
}

// DType is the dtype of the tensor called name, without reading it.
func (f *File) DType(name string) (DType, error) {
	i, err := f.index(name)
	if err != nil {
		return 0, err
	}
	return fileCall(f, func(h capi.SwigcptrFile) DType { return DType(h.Dtype(i)) })
}

// Shape is the sizes of the tensor called name, without reading it.
func (f *File) Shape(name string) ([]int64, error) {
	i, err := f.index(name)
	if err != nil {
		return nil, err
	}
	return fileCall(f, func(h capi.SwigcptrFile) []int64 { return h.Shape(i) })
}

// Get is the tensor called name, a new handle to close.
func (f *File) Get(name string) (*Tensor, error) {
	if err := refuseNUL("File.Get: name", name); err != nil {
		return nil, err
	}
	return fileCall(f, func(h capi.SwigcptrFile) *Tensor { return newTensor(h.Get_by_name(name)) })
}

// GetSlice is rows [start, stop) of dim 0 of the tensor called name, a new
// handle to close, reading only what they need (tsr_file_get_slice;
// safetensors' get_slice(name)[start:stop]): a read-only view of the mapping
// for a plain file, a new tensor decoded from just the chunks holding those
// rows for a zstd-planes file. InvalidArgument for an absent name, a 0-dim
// tensor, a negative start or stop (not counted from the end), start > stop
// or stop > its first size.
func (f *File) GetSlice(name string, start, stop int64) (*Tensor, error) {
	i, err := f.index(name)
	if err != nil {
		return nil, err
	}
	return fileCall(f, func(h capi.SwigcptrFile) *Tensor { return newTensor(h.Get_slice(i, start, stop)) })
}

// Metadata is the file's "__metadata__" (the checksum entry left out).
func (f *File) Metadata() (map[string]string, error) {
	return fileCall(f, func(h capi.SwigcptrFile) map[string]string {
		out := map[string]string{}
		for i, n := int64(0), h.Metadata_size(); i < n; i++ {
			out[h.Metadata_key(i)] = h.Metadata_value(i)
		}
		return out
	})
}
