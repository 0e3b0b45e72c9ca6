package tessera

import (
	"runtime"
	"sort"

	"tessera.dev/tessera/internal/capi"
)

// Saver is a streaming save (tessera/saver.h): tensors are written as they
// are added and the file appears at its path atomically at Commit. Close
// without Commit (or after a failure) abandons the save: any file at the path
// stays as it was and no temporary file is left. The usual shape:
//
//	s, err := tessera.OpenSaver(path, &tessera.SaveOptions{Compression: tessera.ZstdPlanes})
//	if err != nil { ... }
//	defer s.Close()
//	for ... { if err := s.Add(name, t); err != nil { return err } }
//	return s.Commit()
//
// A Saver must be used by one goroutine at a time.
type Saver struct {
	handle   capi.SwigcptrSaver // 0 once closed
	progress *progress
}

// OpenSaver starts a save to path (tsr_saver_open). opts as for Save (nil:
// defaults); a nonzero MaxShardSize is Unsupported. Progress is called once
// here with (0, 0).
func OpenSaver(path string, opts *SaveOptions) (s *Saver, err error) {
	if opts == nil {
		opts = &SaveOptions{}
	}
	if err := refuseNUL("OpenSaver: path", path); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(opts.Metadata))
	for key := range opts.Metadata {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if err := refuseNUL("OpenSaver: metadata", key+opts.Metadata[key]); err != nil {
			return nil, err
		}
	}
	p := newProgress(opts.Progress)
	defer func() {
		if err != nil {
			p.unregister()
			err = p.explain(err)
		}
	}()
	defer recoverFailure(&err)
	list := capi.SwigcptrTensorList(capi.NewTensorList().Swigcptr())
	defer capi.DeleteTensorList(list)
	for _, key := range keys {
		list.Set_metadata(key, opts.Metadata[key])
	}
	h := capi.SaverOpen(path, uintptr(list), capi.Enum_SS_tsr_compression(opts.Compression),
		int(opts.Level), opts.SkipChecksums, opts.MaxShardSize, p.handle())
	return own(&Saver{handle: capi.SwigcptrSaver(h), progress: p}, (*Saver).Close), nil
}

// Add writes t's contents under name now; t may change or be closed
// afterwards. A duplicate or bad name is InvalidArgument and the save goes on;
// an I/O failure or a cancel abandons it (later calls fail).
func (s *Saver) Add(name string, t *Tensor) (err error) {
	if err := refuseNUL("Saver.Add: name", name); err != nil {
		return err
	}
	h, p := s.c()
	defer runtime.KeepAlive(s)
	defer runtime.KeepAlive(t)
	defer func() { err = p.explain(err) }()
	defer recoverFailure(&err)
	h.Add(name, t.cptr())
	return nil
}

// Commit finishes the file and renames it over the path; once only.
func (s *Saver) Commit() (err error) {
	h, p := s.c()
	defer runtime.KeepAlive(s)
	defer func() { err = p.explain(err) }()
	defer recoverFailure(&err)
	h.Commit()
	return nil
}

// Close releases the saver, abandoning the save unless it was committed.
// Closing twice, or closing nil, does nothing; it always returns nil.
func (s *Saver) Close() error {
	if s != nil {
		release(s, &s.handle, func(h capi.SwigcptrSaver) {
			capi.DeleteSaver(h)
			s.progress.unregister()
		})
	}
	return nil
}

func (s *Saver) c() (capi.SwigcptrSaver, *progress) {
	if s == nil {
		return 0, nil
	}
	return s.handle, s.progress
}
