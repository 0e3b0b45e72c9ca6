package tessera

import (
	"runtime"

	"tessera.dev/tessera/internal/capi"
)

// Storage is the memory tensors view (torch.UntypedStorage). Close releases
// this handle; a finalizer does if you do not.
type Storage struct {
	handle capi.SwigcptrStorage // 0 once closed
}

func newStorage(h uintptr) *Storage {
	if h == 0 {
		return nil
	}
	return own(&Storage{handle: capi.SwigcptrStorage(h)}, (*Storage).Close)
}

// Close releases the handle; idempotent, and nil is fine.
func (s *Storage) Close() error {
	if s != nil {
		release(s, &s.handle, func(h capi.SwigcptrStorage) { capi.DeleteStorage(h) })
	}
	return nil
}

func (s *Storage) c() capi.SwigcptrStorage {
	if s == nil {
		return 0
	}
	return s.handle
}

func storageQuery[T any](s *Storage, f func(capi.SwigcptrStorage) T) (T, error) {
	out, err := call(func() T { return f(s.c()) })
	runtime.KeepAlive(s)
	return out, err
}

// Nbytes is the storage's size in bytes.
func (s *Storage) Nbytes() (int64, error) { return storageQuery(s, capi.SwigcptrStorage.Nbytes) }

// DataPtr is the address of the storage's first byte.
func (s *Storage) DataPtr() (uintptr, error) {
	return storageQuery(s, func(h capi.SwigcptrStorage) uintptr { return uintptr(h.Data_ptr()) })
}

// DeviceType is where the storage lives.
func (s *Storage) DeviceType() (DeviceType, error) {
	return storageQuery(s, func(h capi.SwigcptrStorage) DeviceType { return DeviceType(h.Device_type()) })
}

// UseCount is how many handles (tensors, storages) hold the storage.
func (s *Storage) UseCount() (int64, error) { return storageQuery(s, capi.SwigcptrStorage.Use_count) }
