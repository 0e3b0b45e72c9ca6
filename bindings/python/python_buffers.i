/* bindings/python/python_buffers.i — tensors over memory Python or a
 * storage owns, without copying: tessera.frombuffer (torch.frombuffer) and
 * the element views behind Tensor.storage() / untyped_storage(). Included
 * by bindings/device.i for Python only. The Python layer checks the
 * arguments first and raises torch's ValueErrors; the checks here only
 * keep a bad call from reading out of bounds. */

%{
/* The deleter of a frombuffer tensor: gives the buffer back to its
 * exporter. It may run on any thread (the last release of the storage), so
 * it takes the GIL; after the interpreter has finalized there is nothing to
 * give back to. */
static void tsr_py_release_buffer(void* data, void* ctx) {
  (void)data;
  Py_buffer* view = (Py_buffer*)ctx;
  if (Py_IsInitialized()) {
    PyGILState_STATE gil = PyGILState_Ensure();
    PyBuffer_Release(view);
    PyGILState_Release(gil);
  }
  free(view);
}

/* The deleter of a storage's element view: drops the storage reference. */
static void tsr_py_release_storage(void* data, void* ctx) {
  (void)data;
  tsr_storage_release((tsr_storage*)ctx);
}
%}

%newobject _frombuffer;
%newobject _storage_elements;
%inline %{
/* count elements of dtype from byte offset of buffer's memory (a
 * C-contiguous buffer, read-only ones too: the caller warns), shared: the
 * tensor keeps the buffer exported until its storage dies. */
/* itemsize: dtype's element size in bytes (the Python layer knows it). */
static TsrTensor* _frombuffer(PyObject* buffer, int64_t offset, int64_t count, tsr_dtype dtype,
                              int64_t itemsize) {
  Py_buffer* view = (Py_buffer*)malloc(sizeof *view);
  if (!view) {
    tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "frombuffer: out of memory");
    return NULL;
  }
  if (PyObject_GetBuffer(buffer, view, PyBUF_SIMPLE) != 0) {
    PyErr_Clear();
    free(view);
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "frombuffer: the object does not expose a contiguous buffer");
    return NULL;
  }
  if (itemsize <= 0 || offset < 0 || count <= 0 || offset > (int64_t)view->len ||
      count > ((int64_t)view->len - offset) / itemsize) {
    PyBuffer_Release(view);
    free(view);
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "frombuffer: offset and count reach past the buffer");
    return NULL;
  }
  tsr_tensor* out = NULL;
  /* on failure from_blob runs the deleter itself */
  tsr_from_blob((char*)view->buf + offset, 1, &count, NULL, dtype, TSR_DEVICE_CPU,
                tsr_py_release_buffer, view, &out);
  return out;
}

/* The whole storage as a 1-d tensor of dtype (its bytes / the element
 * size, rounded down), sharing the memory and holding the storage alive. */
static TsrTensor* _storage_elements(TsrStorage* s, tsr_dtype dtype, int64_t itemsize) {
  if (!s) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "storage: the storage is closed");
    return NULL;
  }
  int64_t n = itemsize > 0 ? tsr_storage_nbytes(s) / itemsize : 0;
  tsr_tensor* out = NULL;
  if (n == 0 || !tsr_storage_data_ptr(s)) {
    const int64_t zero = 0;
    tsr_empty(1, &zero, dtype, TSR_CONTIGUOUS_FORMAT, tsr_storage_device_type(s), 0, &out);
    return out;
  }
  tsr_storage_retain(s);
  tsr_from_blob(tsr_storage_data_ptr(s), 1, &n, NULL, dtype, tsr_storage_device_type(s),
                tsr_py_release_storage, s, &out);
  return out;
}
%}
