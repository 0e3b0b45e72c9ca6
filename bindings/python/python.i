/* bindings/python/python.i — Python specifics of bindings/tessera.i:
 * exceptions, array typemaps, handle objects of the package's own classes,
 * close(), DLPack capsules. Included by tessera.i before the declarations.
 *
 * The module is generated with -builtin (handles are C-level types, several
 * times cheaper per call than SWIG's Python proxy classes) as tessera._core;
 * the package (tessera/__init__.py) subclasses those types in Python to add
 * the torch-like surface, and registers the subclasses here (_set_class) so
 * every handle a call returns is already a tessera.Tensor, not a bare
 * _core.Tensor. */

/* Default arguments handled inside one wrapper instead of one overload per
 * count, so that keyword arguments work (t.clone(memory_format=...),
 * t.flatten(start_dim=1)); the names are tessera.i's, which are torch's. */
%feature("compactdefaultargs");
%feature("kwargs");
/* Each wrapper's docstring starts with its C signature, parameter types
 * included: "narrow(Tensor self, int64_t dim, int64_t start, int64_t length)
 * -> Tensor". inspect cannot read a -builtin function's parameters, so
 * make_stubs.py reads this line to give the native functions and methods
 * real signatures in the type stubs (level 1: names and C types, one line). */
%feature("autodoc", "1");

/* Our own SWIG type table, so another SWIG module in the process never
 * shares (and version-clashes with) ours. */
%begin %{
#define SWIG_TYPE_TABLE tessera_python
%}

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

%{
/* Wrong Python types never show SWIG's own wording ("in method
 * 'Tensor_add', argument 2 of type 'TsrTensor *'", SwigPyObject, _p_...):
 * every argument conversion that fails in a generated wrapper ends in
 * SWIG_exception_fail with that message, so SWIG_exception_fail is
 * redefined below to say it as Python does, from the same three facts:
 * "tessera.Tensor.add(): argument 'other' must be a tessera.Tensor, not list".
 * SWIG's exception class for the failure (TypeError, OverflowError, ...)
 * is kept. The handle and number typemaps further down pass the object
 * and the parameter's name too; the few other conversions give neither. */
#include <ctype.h>

static const char* tsr_py_expected(const char* c_type) {
  static const struct { const char* c; const char* py; } names[] = {
      {"TsrTensorList", "a tessera.TensorList"}, {"TsrTensorMap", "a tessera.TensorMap"},
      {"TsrSaver", "a tessera.Saver"},           {"TsrFile", "a tessera.File"},
      {"TsrTensor", "a tessera.Tensor"},         {"TsrStorage", "a tessera.Storage"},
      {"TsrGenerator", "a tessera.Generator"},   {"TsrOptimizer", "a tessera optimizer"},
      {"TsrProfilerResult", "a tessera profiler result"}, {"TsrLrScheduler", "a tessera LR scheduler"},
      {"TsrGradScaler", "a tessera GradScaler"},
      {"TsrProcessGroup", "a tessera.distributed.ProcessGroup"}, {"TsrWork", "a tessera.distributed.Work"},
      {"TsrDdp", "a tessera DistributedDataParallel reducer"},
      {"tsr_dtype", "a tessera.dtype"},          {"tsr_memory_format", "a tessera.memory_format"},
      {"tsr_device_type", "a tessera.DeviceType"},
      {"double", "a number"},                    {"bool", "a bool"},
      {"char", "a str"},                         {"int", "an int"}, /* int, int32_t, int64_t, uint64_t */
      {"struct ", "a tessera object"},           {"tsr_", "an int"}, /* the other enums */
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (strstr(c_type, names[i].c)) return names[i].py;
  return "another type";
}

static void tsr_py_argument_error(int code, const char* swig_message, const char* name,
                                  PyObject* given) {
  char func[128], type[128];
  int argnum = 0;
  PyObject* cls = SWIG_Python_ErrorType(code);
  if (sscanf(swig_message, "in method '%127[^']', argument %d of type '%127[^']'", func, &argnum,
             type) != 3) {
    PyErr_SetString(cls, "invalid argument");
    return;
  }
  /* SWIG's names: Class_method, new_Class, or a module function. */
  static const char* classes[] = {"TensorList", "TensorMap", "Tensor", "Storage", "Generator", "Saver", "File",
                                  "Optimizer", "ProfilerResult", "LrScheduler"};
  char where[160];
  snprintf(where, sizeof where, "tessera.%s", func);
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; ++i) {
    size_t n = strlen(classes[i]);
    if (strncmp(func, classes[i], n) == 0 && func[n] == '_') {
      snprintf(where, sizeof where, "tessera.%s.%s", classes[i], func + n + 1);
      break;
    }
    if (strncmp(func, "new_", 4) == 0 && strcmp(func + 4, classes[i]) == 0) {
      snprintf(where, sizeof where, "tessera.%s", classes[i]);
      break;
    }
  }
  /* By the parameter's name (tessera.i's names are the Python keywords),
   * as C argument numbers differ from Python's (self, two-argument
   * typemaps); "argN" is SWIG's name for an unnamed parameter. */
  char which[96];
  if (name && strcmp(name, "self") == 0)
    snprintf(which, sizeof which, "self");
  else if (name && *name && !(name[0] == 'a' && name[1] == 'r' && name[2] == 'g'
                              && isdigit((unsigned char)name[3])))
    snprintf(which, sizeof which, "argument '%s'", name);
  else
    snprintf(which, sizeof which, "an argument");
  if (code == SWIG_OverflowError)
    PyErr_Format(cls, "%s(): %s is out of range for %s", where, which, type);
  else if (given)
    PyErr_Format(cls, "%s(): %s must be %s, not %s", where, which, tsr_py_expected(type),
                 Py_TYPE(given)->tp_name);
  else
    PyErr_Format(cls, "%s(): %s must be %s", where, which, tsr_py_expected(type));
}
#undef SWIG_exception_fail
#define SWIG_exception_fail(code, msg) \
  do { tsr_py_argument_error(code, msg, NULL, NULL); SWIG_fail; } while (0)
%}

/* Handles and numbers in: SWIG's own conversions, with a failure said in
 * Python's words, naming the parameter and the object's type (see
 * tsr_py_argument_error). */
%define TSR_PY_HANDLE_IN(Type)
%typemap(in, noblock=1) Type (void* argp = 0, int res = 0) {
  res = SWIG_ConvertPtr($input, &argp, $descriptor, $disown | 0);
  if (!SWIG_IsOK(res)) {
    tsr_py_argument_error(SWIG_ArgError(res), "in method '$symname', argument $argnum of type '$type'",
                          "$1_name", $input);
    SWIG_fail;
  }
  $1 = ($ltype)argp;
}
%enddef
TSR_PY_HANDLE_IN(TsrTensor*)
TSR_PY_HANDLE_IN(TsrStorage*)
TSR_PY_HANDLE_IN(TsrGenerator*)
TSR_PY_HANDLE_IN(TsrTensorMap*)
TSR_PY_HANDLE_IN(TsrTensorList*)
TSR_PY_HANDLE_IN(TsrSaver*)
TSR_PY_HANDLE_IN(TsrFile*)
TSR_PY_HANDLE_IN(TsrOptimizer*)
TSR_PY_HANDLE_IN(TsrProfilerResult*)
TSR_PY_HANDLE_IN(TsrLrScheduler*)
TSR_PY_HANDLE_IN(TsrGradScaler*)
TSR_PY_HANDLE_IN(TsrProcessGroup*)
TSR_PY_HANDLE_IN(TsrWork*)
TSR_PY_HANDLE_IN(TsrDdp*)
/* int64_t is `long long` to SWIG (stdint.i), int32_t and the enums `int`. */
%define TSR_PY_VALUE_IN(Type, Value, AsVal)
%typemap(in, noblock=1, fragment=#AsVal) Type (Value val, int ecode = 0) {
  ecode = AsVal($input, &val);
  if (!SWIG_IsOK(ecode)) {
    tsr_py_argument_error(SWIG_ArgError(ecode), "in method '$symname', argument $argnum of type '$type'",
                          "$1_name", $input);
    SWIG_fail;
  }
  $1 = ($ltype)val;
}
%enddef
TSR_PY_VALUE_IN(double, double, SWIG_AsVal_double)
TSR_PY_VALUE_IN(bool, bool, SWIG_AsVal_bool)
TSR_PY_VALUE_IN(int, int, SWIG_AsVal_int)
TSR_PY_VALUE_IN(enum SWIGTYPE, int, SWIG_AsVal_int)
TSR_PY_VALUE_IN(long long, long long, SWIG_AsVal_long_SS_long)
TSR_PY_VALUE_IN(unsigned long long, unsigned long long, SWIG_AsVal_unsigned_SS_long_SS_long)

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

/* ---- strings in ------------------------------------------------------- */
/* str (UTF-8) or None (NULL). A NUL inside would silently cut the string
 * short (a path "a\0b" would open "a"): refused as open() refuses it. */
%typemap(in, fragment="SWIG_AsCharPtrAndSize") const char* (char* tsr_chars = NULL, size_t tsr_size = 0, int tsr_alloc = 0) {
  int res = SWIG_AsCharPtrAndSize($input, &tsr_chars, &tsr_size, &tsr_alloc);
  if (!SWIG_IsOK(res)) SWIG_exception_fail(SWIG_ArgError(res), "in method '$symname', argument $argnum of type '$type'");
  if (tsr_chars && strlen(tsr_chars) + 1 != tsr_size) {
    tsr_py_raise(TSR_ERR_INVALID_ARGUMENT, "string argument contains a NUL character");
    SWIG_fail;
  }
  $1 = tsr_chars;
}
%typemap(freearg) const char* {
  if (tsr_alloc$argnum == SWIG_NEWOBJ) free(tsr_chars$argnum);
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

/* ---- handles: the package's classes, close() ------------------------------ */
%{
/* Python subclasses (tessera.Tensor, ...) registered by the package, one per
 * handle type; NULL until registered (then SWIG's own type is used). */
typedef struct {
  swig_type_info** descriptor;
  PyTypeObject* cls;
} tsr_py_class_slot;
static tsr_py_class_slot tsr_py_classes[] = {
    {&SWIGTYPE_p_TsrTensor, NULL},     {&SWIGTYPE_p_TsrStorage, NULL},
    {&SWIGTYPE_p_TsrGenerator, NULL},  {&SWIGTYPE_p_TsrTensorMap, NULL},
    {&SWIGTYPE_p_TsrTensorList, NULL}, {&SWIGTYPE_p_TsrSaver, NULL},
    {&SWIGTYPE_p_TsrFile, NULL},
};
enum { TSR_PY_NCLASSES = sizeof tsr_py_classes / sizeof tsr_py_classes[0] };

/* Wraps a handle a call returned. The object is allocated with the class's
 * own tp_alloc (not SWIG's PyObject_New): a Python subclass is a garbage
 * collected type whose instances need the GC header tp_alloc gives them.
 * A constructor (flags has SWIG_BUILTIN_TP_INIT) fills in `self`, which
 * Python already allocated, as SWIG does. */
static PyObject* tsr_py_new_handle(PyObject* self, void* ptr, swig_type_info* ty, int flags) {
  if (flags & SWIG_BUILTIN_TP_INIT) return SWIG_Python_NewPointerObj(self, ptr, ty, flags);
  if (!ptr) Py_RETURN_NONE;
  int own = flags & SWIG_POINTER_OWN;
  PyTypeObject* cls = NULL;
  for (int i = 0; i < TSR_PY_NCLASSES; ++i)
    if (*tsr_py_classes[i].descriptor == ty) cls = tsr_py_classes[i].cls;
  if (!cls) return SWIG_Python_NewPointerObj(NULL, ptr, ty, own);
  SwigPyObject* obj = (SwigPyObject*)cls->tp_alloc(cls, 0);
  if (!obj) return NULL; /* the caller releases ptr */
  obj->ptr = ptr;
  obj->ty = ty;
  obj->own = own;
  obj->next = NULL;
  obj->dict = NULL;
  return (PyObject*)obj;
}

/* Drops the native reference a handle object owns, once: the object keeps a
 * NULL pointer, which the library reports as TSR_ERR_INVALID_ARGUMENT on any
 * later use, and which its deallocator then skips. */
static void tsr_py_release_handle(swig_type_info* ty, void* ptr) {
  if (ty == SWIGTYPE_p_TsrTensor) tsr_tensor_release((tsr_tensor*)ptr);
  else if (ty == SWIGTYPE_p_TsrStorage) tsr_storage_release((tsr_storage*)ptr);
  else if (ty == SWIGTYPE_p_TsrGenerator) tsr_generator_release((tsr_generator*)ptr);
  else if (ty == SWIGTYPE_p_TsrTensorMap) tsr_tensor_map_release((tsr_tensor_map*)ptr);
  else if (ty == SWIGTYPE_p_TsrTensorList) tsr_bind_list_free((TsrTensorList*)ptr);
  else if (ty == SWIGTYPE_p_TsrSaver) bind_saver_free((TsrSaver*)ptr);
  else if (ty == SWIGTYPE_p_TsrFile) tsr_file_release((tsr_file*)ptr);
  /* bindings/optim.i's handles */
  else if (ty == SWIGTYPE_p_TsrOptimizer) tsr_optimizer_release((tsr_optimizer*)ptr);
  else if (ty == SWIGTYPE_p_TsrProfilerResult) tsr_profiler_result_release((tsr_profiler_result*)ptr);
  /* bindings/lr_scheduler.i's */
  else if (ty == SWIGTYPE_p_TsrLrScheduler) tsr_lr_scheduler_release((tsr_lr_scheduler*)ptr);
  /* bindings/grad_scaler.i's */
  else if (ty == SWIGTYPE_p_TsrGradScaler) tsr_grad_scaler_release((tsr_grad_scaler*)ptr);
  /* bindings/distributed.i's; the group's last release waits for its
   * queued collectives, so without the GIL */
  else if (ty == SWIGTYPE_p_TsrProcessGroup) {
    Py_BEGIN_ALLOW_THREADS
    tsr_process_group_release((tsr_process_group*)ptr);
    Py_END_ALLOW_THREADS
  } else if (ty == SWIGTYPE_p_TsrWork) tsr_work_release((tsr_work*)ptr);
  /* bindings/ddp.i's */
  else if (ty == SWIGTYPE_p_TsrDdp) tsr_ddp_release((tsr_ddp*)ptr);
}
%}

/* Every handle returned comes back as the registered class. On failure the
 * %exception block has already raised before this runs. */
%typemap(out) TsrTensor*, TsrStorage*, TsrGenerator*, TsrTensorMap*, TsrTensorList*, TsrSaver*, TsrFile* {
  $result = tsr_py_new_handle(self, (void*)$1, $descriptor, $owner);
  if (!$result) {
    if ($owner & SWIG_POINTER_OWN) tsr_py_release_handle($descriptor, (void*)$1);
    SWIG_fail;
  }
}

%{
/* The instance dict lives in SwigPyObject (the native type's tp_dictoffset),
 * which Python's default traversal of a subclass leaves to the (non-GC)
 * native type: without these, a reference cycle through a handle's
 * attributes (t.me = t) would never be collected. A heap type also visits
 * its type. */
static int tsr_py_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(((SwigPyObject*)self)->dict);
  Py_VISIT(Py_TYPE(self));
  return 0;
}
static int tsr_py_clear(PyObject* self) {
  Py_CLEAR(((SwigPyObject*)self)->dict);
  return 0;
}
%}

%inline %{
/* Called once per handle class by the package: cls must subclass one of the
 * native handle types without adding instance fields (__slots__ = ()). */
static void _set_class(PyObject* cls) {
  if (!PyType_Check(cls)) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "_set_class: expected a class");
    return;
  }
  PyTypeObject* type = (PyTypeObject*)cls;
  for (int i = 0; i < TSR_PY_NCLASSES; ++i) {
    SwigPyClientData* data = (SwigPyClientData*)(*tsr_py_classes[i].descriptor)->clientdata;
    PyTypeObject* native = data ? data->pytype : NULL;
    if (native && type->tp_base == native) {
      if (type->tp_basicsize != native->tp_basicsize || type->tp_itemsize != 0) {
        tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "_set_class: the class adds instance fields; give it __slots__ = ()");
        return;
      }
      if (PyType_IS_GC(type)) {
        type->tp_traverse = tsr_py_traverse;
        type->tp_clear = tsr_py_clear;
      }
      Py_INCREF(cls);
      Py_XDECREF((PyObject*)tsr_py_classes[i].cls);
      tsr_py_classes[i].cls = type;
      return;
    }
  }
  tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "_set_class: not a direct subclass of a tessera handle type");
}

/* close(): releases the handle now instead of when the object is collected.
 * A second close, or close of a handle the object does not own, does nothing. */
static void _release(PyObject* handle) {
  SwigPyObject* obj = SWIG_Python_GetSwigThis(handle);
  if (!obj) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "close: not a tessera handle");
    return;
  }
  void* ptr = obj->ptr;
  int own = obj->own;
  obj->ptr = NULL;
  obj->own = 0;
  if (own && ptr) tsr_py_release_handle(obj->ty, ptr);
}

/* Tensor.data = other (torch's set_data from Python's side): the two
 * objects exchange the native tensors they hold, so `a` (a Parameter a
 * module and the user both reference) now holds b's tensor and b the old
 * one. Both must be open tensors. */
static void _swap_tensors(PyObject* a, PyObject* b) {
  SwigPyObject* x = SWIG_Python_GetSwigThis(a);
  SwigPyObject* y = SWIG_Python_GetSwigThis(b);
  if (!x || !y || !x->ptr || !y->ptr || x->ty != SWIGTYPE_p_TsrTensor || y->ty != SWIGTYPE_p_TsrTensor) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "data: expected two open tensors");
    return;
  }
  void* ptr = x->ptr;
  int own = x->own;
  x->ptr = y->ptr;
  x->own = y->own;
  y->ptr = ptr;
  y->own = own;
}

/* True while the object still holds its handle (not closed). */
static bool _is_open(PyObject* handle) {
  SwigPyObject* obj = SWIG_Python_GetSwigThis(handle);
  return obj && obj->ptr;
}
%}

/* close() as a C method of each handle class (a Python-level close costs a
 * frame per call). py_self is the handle object itself: in -builtin wrappers
 * the Python object is the wrapper's `self`. */
%typemap(in, numinputs=0) PyObject* tsr_py_self "$1 = self;"
%define TSR_PY_CLOSABLE(Class)
%extend Class {
  /* Releases the handle now; later calls on the object raise
   * InvalidArgumentError. A second close does nothing. */
  void close(PyObject* tsr_py_self) {
    (void)$self; /* the object itself is what close needs */
    _release(tsr_py_self);
  }
}
%enddef
TSR_PY_CLOSABLE(TsrTensor)
TSR_PY_CLOSABLE(TsrStorage)
TSR_PY_CLOSABLE(TsrGenerator)
TSR_PY_CLOSABLE(TsrTensorMap)
TSR_PY_CLOSABLE(TsrTensorList)
TSR_PY_CLOSABLE(TsrSaver)
TSR_PY_CLOSABLE(TsrFile)

/* ---- progress callbacks (tessera.i, "Progress callbacks") ------------------ */
/* Any callable (None: no callback) is user_data; the trampoline calls it
 * with (bytes_done, bytes_total) holding the GIL (the wrappers never release
 * it, and the library calls back on the calling thread). False cancels.
 * tessera/_serialization.py wraps the user's callable so that an exception
 * in it is kept and becomes the __cause__ of the CancelledError; a raw
 * callable that raises anyway cancels too, its exception written as
 * unraisable. */
%{
static tsr_status tsr_py_progress(uint64_t done, uint64_t total, void* user_data) {
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* result = PyObject_CallFunction((PyObject*)user_data, "KK",
                                           (unsigned long long)done, (unsigned long long)total);
  tsr_status status = TSR_OK;
  if (!result) {
    PyErr_WriteUnraisable((PyObject*)user_data);
    status = TSR_ERR_CANCELLED;
  } else {
    if (result == Py_False) status = TSR_ERR_CANCELLED;
    Py_DECREF(result);
  }
  PyGILState_Release(gil);
  return status;
}
static void* tsr_bind_progress_keep(void* user_data) {
  Py_INCREF((PyObject*)user_data);
  return user_data;
}
/* Called when a saver is freed, maybe by a finalizer: always with the GIL. */
static void tsr_bind_progress_drop(void* kept) {
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF((PyObject*)kept);
  PyGILState_Release(gil);
}
%}
%typemap(in) (tsr_progress_fn progress, void* progress_user_data) {
  if ($input == Py_None) {
    $1 = NULL;
    $2 = NULL;
  } else if (PyCallable_Check($input)) {
    $1 = tsr_py_progress;
    $2 = (void*)$input; /* borrowed: the call's arguments hold it */
  } else {
    PyErr_Format(PyExc_TypeError, "tessera.$symname(): argument 'progress' must be callable or None, not %s",
                 Py_TYPE($input)->tp_name);
    SWIG_fail;
  }
}

/* ---- DLPack (the Python protocol of DLPack's python_spec) ------------------ */
%{
#include <tessera/dlpack.h>

/* A capsule's destructor: a capsule still named "dltensor" was never
 * consumed, so its DLManagedTensor is still ours to delete; a consumer
 * renames it "used_dltensor" and takes over the deleter. */
static void tsr_py_dltensor_capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  DLManagedTensor* managed = (DLManagedTensor*)PyCapsule_GetPointer(capsule, "dltensor");
  if (managed && managed->deleter) managed->deleter(managed);
}
%}

%newobject _from_dlpack_capsule;
%inline %{
/* Tensor.__dlpack__: a "dltensor" capsule owning a DLManagedTensor that
 * holds a reference to the tensor's storage (tsr_to_dlpack). */
static PyObject* _to_dlpack(TsrTensor* tensor) {
  DLManagedTensor* managed = NULL;
  if (tsr_to_dlpack(tensor, &managed) != TSR_OK) return NULL; /* raised by %exception */
  PyObject* capsule = PyCapsule_New(managed, "dltensor", tsr_py_dltensor_capsule_destructor);
  if (!capsule) managed->deleter(managed);
  return capsule;
}

/* tessera.from_dlpack's last step: takes over an unconsumed "dltensor"
 * capsule (renamed "used_dltensor" first, so that its destructor leaves the
 * DLManagedTensor alone) and imports it without copying. tsr_from_dlpack
 * owns the DLManagedTensor from then on, also when it fails. */
static TsrTensor* _from_dlpack_capsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor")) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT,
                  "from_dlpack: expected a DLPack capsule named \"dltensor\" (one that was "
                  "not consumed yet)");
    return NULL;
  }
  DLManagedTensor* managed = (DLManagedTensor*)PyCapsule_GetPointer(capsule, "dltensor");
  PyCapsule_SetName(capsule, "used_dltensor"); /* cannot fail on a valid capsule */
  tsr_tensor* out = NULL;
  tsr_from_dlpack(managed, &out);
  return out;
}
%}
