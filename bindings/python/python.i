/* bindings/python/python.i — Python specifics of bindings/tessera.i:
 * exceptions, array typemaps. Included by tessera.i before the declarations. */

%{
/* Exception classes by status, registered by the package's __init__.py
 * (tessera/errors.py) so they are plain Python classes. */
static PyObject* tsr_py_error_classes[16];

static void tsr_py_raise(tsr_status status, const char* message) {
  PyObject* cls = NULL;
  if ((int)status >= 0 && (int)status < 16) cls = tsr_py_error_classes[status];
  if (!cls) cls = PyExc_RuntimeError;
  PyObject* args = Py_BuildValue("(is)", (int)status, message);
  if (args) {
    PyObject* exc = PyObject_Call(cls, args, NULL);
    Py_DECREF(args);
    if (exc) {
      PyErr_SetObject(cls, exc);
      Py_DECREF(exc);
    }
  }
}
%}

%exception {
  tsr_bind_clear();
  $action
  {
    const char* tsr_message;
    tsr_status tsr_code = tsr_bind_error(&tsr_message);
    if (tsr_code != TSR_OK) {
      tsr_py_raise(tsr_code, tsr_message);
      SWIG_fail;
    }
  }
}

%inline %{
/* Called once by tessera/errors.py: classes[i] is raised for status i. */
static void _set_error_classes(PyObject* classes) {
  Py_ssize_t n = PySequence_Size(classes);
  for (Py_ssize_t i = 0; i < n && i < 16; ++i) {
    PyObject* c = PySequence_GetItem(classes, i);
    Py_XDECREF(tsr_py_error_classes[i]);
    tsr_py_error_classes[i] = (c == Py_None) ? (Py_XDECREF(c), (PyObject*)NULL) : c;
  }
}
%}

/* ---- arrays in --------------------------------------------------------- */
%typemap(in) (const tsr_i64* array, int64_t length) (int64_t tsr_small[8], int64_t* tsr_heap = NULL) {
  PyObject* seq = PySequence_Fast($input, "expected a sequence of ints");
  if (!seq) SWIG_fail;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  int64_t* buf = tsr_small;
  if (n > 8) {
    tsr_heap = (int64_t*)malloc((size_t)n * sizeof(int64_t));
    if (!tsr_heap) { Py_DECREF(seq); PyErr_NoMemory(); SWIG_fail; }
    buf = tsr_heap;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(seq, i);
    PyObject* index = PyNumber_Index(item); /* accepts NumPy integers, refuses floats */
    if (!index) { Py_DECREF(seq); SWIG_fail; }
    buf[i] = (int64_t)PyLong_AsLongLong(index);
    Py_DECREF(index);
    if (PyErr_Occurred()) { Py_DECREF(seq); SWIG_fail; }
  }
  Py_DECREF(seq);
  $1 = (tsr_i64*)buf;
  $2 = (int64_t)n;
}
%typemap(freearg) (const tsr_i64* array, int64_t length) { free(tsr_heap$argnum); }
%typemap(typecheck, precedence=SWIG_TYPECHECK_INT64_ARRAY) (const tsr_i64* array, int64_t length) {
  $1 = PySequence_Check($input) && !PyUnicode_Check($input) && !PyBytes_Check($input);
}

%typemap(in) (const double* darray, int64_t dlength) (double* tsr_values = NULL) {
  PyObject* seq = PySequence_Fast($input, "expected a sequence of numbers");
  if (!seq) SWIG_fail;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  tsr_values = (double*)malloc((size_t)(n ? n : 1) * sizeof(double));
  if (!tsr_values) { Py_DECREF(seq); PyErr_NoMemory(); SWIG_fail; }
  for (Py_ssize_t i = 0; i < n; ++i) {
    tsr_values[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
    if (PyErr_Occurred()) { Py_DECREF(seq); SWIG_fail; }
  }
  Py_DECREF(seq);
  $1 = tsr_values;
  $2 = (int64_t)n;
}
%typemap(freearg) (const double* darray, int64_t dlength) { free(tsr_values$argnum); }

/* Any object with the buffer protocol (bytes, bytearray, memoryview, NumPy). */
%typemap(in) (const void* bytes, size_t nbytes) (Py_buffer tsr_view, int tsr_have_view = 0) {
  if (PyObject_GetBuffer($input, &tsr_view, PyBUF_C_CONTIGUOUS) != 0) SWIG_fail;
  tsr_have_view = 1;
  $1 = tsr_view.buf;
  $2 = (size_t)tsr_view.len;
}
%typemap(freearg) (const void* bytes, size_t nbytes) {
  if (tsr_have_view$argnum) PyBuffer_Release(&tsr_view$argnum);
}

/* ---- arrays out -------------------------------------------------------- */
%typemap(out) tsr_i64_array {
  if ($1.length < 0) {
    $result = NULL;
  } else {
    $result = PyTuple_New((Py_ssize_t)$1.length);
    for (int64_t i = 0; $result && i < $1.length; ++i)
      PyTuple_SET_ITEM($result, (Py_ssize_t)i, PyLong_FromLongLong((long long)$1.data[i]));
  }
  if ($1.owned) free((void*)$1.data);
  if (!$result) SWIG_fail;
}
%typemap(out) tsr_f64_array {
  if ($1.length < 0) {
    $result = NULL;
  } else {
    $result = PyList_New((Py_ssize_t)$1.length);
    for (int64_t i = 0; $result && i < $1.length; ++i)
      PyList_SET_ITEM($result, (Py_ssize_t)i, PyFloat_FromDouble($1.data[i]));
  }
  free($1.data);
  if (!$result) SWIG_fail;
}
%typemap(out) tsr_bytes {
  $result = $1.length < 0 ? NULL : PyBytes_FromStringAndSize($1.data, (Py_ssize_t)$1.length);
  free($1.data);
  if (!$result) SWIG_fail;
}
