/* bindings/python/python_function.i — Python callables the library calls
 * during autograd: tessera.autograd.Function over function.h,
 * Tensor.register_hook and register_post_accumulate_grad_hook over
 * tsr_register_hook and tsr_register_post_accumulate_grad_hook, and
 * Variable._execution_engine.queue_callback over
 * tsr_queue_backward_callback. Python-only (included by
 * bindings/function.i).
 *
 * One apply's state is a Python object, the "record" (tessera/_function.py's
 * _Apply): the definition's user_data holds one reference to it, dropped by
 * release_user_data. The C callbacks below call its _forward(ctx, inputs)
 * and _backward(ctx, grads) methods with the GIL held; those never raise:
 * they keep the exception for the Python caller (which re-raises it with
 * its traceback) and return None, which the callback turns into a failure
 * status, so nothing unwinds through the library. ctx travels as a capsule
 * named "tessera.function_ctx", valid only during the callback. */

%{
#include <tessera/function.h>

static PyObject* tsr_py_tensor_object(tsr_tensor* t) {
  /* a new Python Tensor owning a new reference to t (NULL gives None) */
  if (!t) Py_RETURN_NONE;
  tsr_tensor_retain(t);
  PyObject* obj = tsr_py_new_handle(NULL, t, SWIGTYPE_p_TsrTensor, SWIG_POINTER_OWN);
  if (!obj) tsr_tensor_release(t);
  return obj;
}

/* The tsr_tensor* of a Python Tensor (borrowed), NULL for None; -1 for
 * anything else. */
static int tsr_py_tensor_ptr(PyObject* obj, tsr_tensor** out) {
  *out = NULL;
  if (obj == Py_None) return 0;
  void* p = NULL;
  if (!SWIG_IsOK(SWIG_ConvertPtr(obj, &p, SWIGTYPE_p_TsrTensor, 0)) || !p) return -1;
  *out = (tsr_tensor*)p;
  return 0;
}

static PyObject* tsr_py_tensor_tuple(int64_t n, tsr_tensor* const* tensors) {
  PyObject* tuple = PyTuple_New((Py_ssize_t)n);
  for (int64_t i = 0; tuple && i < n; ++i) {
    PyObject* t = tsr_py_tensor_object(tensors[i]);
    if (!t) {
      Py_DECREF(tuple);
      return NULL;
    }
    PyTuple_SET_ITEM(tuple, (Py_ssize_t)i, t);
  }
  return tuple;
}

/* Calls record.<method>(ctx capsule, tensors); a new reference to a
 * sequence of Tensor-or-None, or NULL when the record reported a failure
 * (it keeps the exception; a Python error here is cleared after being
 * kept the same way). */
static PyObject* tsr_py_function_call(void* record, const char* method, tsr_function_ctx* ctx, int64_t n,
                                      tsr_tensor* const* tensors) {
  PyObject* capsule = PyCapsule_New(ctx, "tessera.function_ctx", NULL);
  PyObject* args = capsule ? tsr_py_tensor_tuple(n, tensors) : NULL;
  PyObject* result = args ? PyObject_CallMethod((PyObject*)record, method, "OO", capsule, args) : NULL;
  if (capsule) PyCapsule_SetPointer(capsule, (void*)1); /* a kept capsule no longer reaches ctx */
  Py_XDECREF(capsule);
  Py_XDECREF(args);
  if (!result) {
    /* an error outside the record's own try (out of memory): keep it there */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject* kept = PyObject_CallMethod((PyObject*)record, "_keep_error", "OOO", type ? type : Py_None,
                                         value ? value : Py_None, tb ? tb : Py_None);
    Py_XDECREF(kept);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    PyErr_Clear();
    return NULL;
  }
  if (result == Py_None) {
    Py_DECREF(result);
    return NULL;
  }
  return result;
}

static tsr_status tsr_py_function_failed(void) {
  /* the record kept the exception; the status carries a pointer to it */
  tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "a Python exception (re-raised by tessera.autograd.Function)");
  return TSR_ERR_INVALID_ARGUMENT;
}

/* Writes a returned sequence's tensors into slots (new references); a
 * count or type the record did not check gives a failure. */
static int tsr_py_fill(PyObject* seq, int64_t max, int64_t* n, tsr_tensor** slots, int allow_none) {
  Py_ssize_t len = PySequence_Size(seq);
  if (len < 0 || len > max) {
    PyErr_Clear();
    return -1;
  }
  for (Py_ssize_t i = 0; i < len; ++i) {
    PyObject* item = PySequence_GetItem(seq, i);
    tsr_tensor* t = NULL;
    int bad = !item || tsr_py_tensor_ptr(item, &t) != 0 || (!t && !allow_none);
    Py_XDECREF(item);
    if (bad) {
      PyErr_Clear();
      for (Py_ssize_t j = 0; j < i; ++j) {
        tsr_tensor_release(slots[j]);
        slots[j] = NULL;
      }
      return -1;
    }
    if (t) tsr_tensor_retain(t);
    slots[i] = t;
  }
  *n = (int64_t)len;
  return 0;
}

static tsr_status tsr_py_function_forward(tsr_function_ctx* ctx, int64_t n_inputs, tsr_tensor* const* inputs,
                                          int64_t max_outputs, int64_t* n_outputs, tsr_tensor** outputs,
                                          void* record) {
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* result = tsr_py_function_call(record, "_forward", ctx, n_inputs, inputs);
  tsr_status status = TSR_OK;
  if (!result || tsr_py_fill(result, max_outputs, n_outputs, outputs, 0) != 0) status = tsr_py_function_failed();
  Py_XDECREF(result);
  tsr_bind_code = TSR_OK; /* failures of nested wrapped calls were the record's to handle */
  PyGILState_Release(gil);
  return status;
}

static tsr_status tsr_py_function_backward(tsr_function_ctx* ctx, int64_t n_grads, tsr_tensor* const* grads,
                                           int64_t n_inputs, tsr_tensor** grad_inputs, void* record) {
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* result = tsr_py_function_call(record, "_backward", ctx, n_grads, grads);
  int64_t n = 0;
  tsr_status status = TSR_OK;
  if (!result || tsr_py_fill(result, n_inputs, &n, grad_inputs, 1) != 0 || n != n_inputs)
    status = tsr_py_function_failed();
  Py_XDECREF(result);
  tsr_bind_code = TSR_OK;
  PyGILState_Release(gil);
  return status;
}

static void tsr_py_function_release(void* record) {
  if (!Py_IsInitialized()) return;
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF((PyObject*)record);
  PyGILState_Release(gil);
}

static tsr_function_ctx* tsr_py_ctx(PyObject* capsule) {
  tsr_function_ctx* ctx = (tsr_function_ctx*)PyCapsule_GetPointer(capsule, "tessera.function_ctx");
  if (!ctx || ctx == (tsr_function_ctx*)1) {
    PyErr_Clear();
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "ctx is used outside its forward or backward");
    return NULL;
  }
  return ctx;
}

/* The tensors of a sequence as a borrowed array (NULL for None); -1 for a
 * non-tensor. */
static int tsr_py_borrow(PyObject* seq, int64_t* n, tsr_tensor** out, int64_t max) {
  Py_ssize_t len = PySequence_Size(seq);
  if (len < 0 || len > max) {
    PyErr_Clear();
    return -1;
  }
  for (Py_ssize_t i = 0; i < len; ++i) {
    PyObject* item = PySequence_GetItem(seq, i);
    int bad = !item || tsr_py_tensor_ptr(item, &out[i]) != 0;
    Py_XDECREF(item);
    if (bad) {
      PyErr_Clear();
      return -1;
    }
  }
  *n = (int64_t)len;
  return 0;
}
%}

%{
/* A gradient hook: hook._call(grad) returns None (keep grad), a Tensor
 * (replace it) or False (it raised; the exception is kept for the caller
 * of backward). */
static tsr_status tsr_py_grad_hook(void* hook, const tsr_tensor* grad, tsr_tensor** replacement) {
  PyGILState_STATE gil = PyGILState_Ensure();
  tsr_status status = TSR_OK;
  PyObject* g = tsr_py_tensor_object((tsr_tensor*)grad);
  PyObject* r = g ? PyObject_CallMethod((PyObject*)hook, "_call", "O", g) : NULL;
  tsr_tensor* t = NULL;
  if (!r || r == Py_False || tsr_py_tensor_ptr(r, &t) != 0) {
    PyErr_Clear();
    status = tsr_py_function_failed();
  } else if (t) {
    tsr_tensor_retain(t);
    *replacement = t;
  }
  Py_XDECREF(r);
  Py_XDECREF(g);
  tsr_bind_code = TSR_OK;
  PyGILState_Release(gil);
  return status;
}
%}

%{
/* A post-accumulate-grad hook: hook._call(param) returns True, or False (it
 * raised; the exception is kept for the caller of backward). */
static tsr_status tsr_py_post_accumulate_grad_hook(void* hook, tsr_tensor* param) {
  PyGILState_STATE gil = PyGILState_Ensure();
  tsr_status status = TSR_OK;
  PyObject* p = tsr_py_tensor_object(param);
  PyObject* r = p ? PyObject_CallMethod((PyObject*)hook, "_call", "O", p) : NULL;
  if (!r || r != Py_True) {
    PyErr_Clear();
    status = tsr_py_function_failed();
  }
  Py_XDECREF(r);
  Py_XDECREF(p);
  tsr_bind_code = TSR_OK;
  PyGILState_Release(gil);
  return status;
}

/* A callback of Variable._execution_engine.queue_callback: callback._call()
 * returns True, or False (it raised; kept as above). */
static tsr_status tsr_py_backward_callback(void* callback) {
  PyGILState_STATE gil = PyGILState_Ensure();
  tsr_status status = TSR_OK;
  PyObject* r = PyObject_CallMethod((PyObject*)callback, "_call", NULL);
  if (!r || r != Py_True) {
    PyErr_Clear();
    status = tsr_py_function_failed();
  }
  Py_XDECREF(r);
  tsr_bind_code = TSR_OK;
  PyGILState_Release(gil);
  return status;
}
%}

%inline %{
/* Tensor.register_post_accumulate_grad_hook: as _register_hook; the id is
 * one _remove_hook takes. */
static int64_t _register_post_accumulate_grad_hook(TsrTensor* tensor, PyObject* hook) {
  int64_t id = -1;
  Py_INCREF(hook);
  tsr_register_post_accumulate_grad_hook(tensor, tsr_py_post_accumulate_grad_hook, hook, tsr_py_function_release,
                                         &id);
  return id;
}

/* Variable._execution_engine.queue_callback: the callback object stays
 * referenced until it has run or is dropped (also when refused). */
static void _queue_backward_callback(PyObject* callback) {
  Py_INCREF(callback);
  tsr_queue_backward_callback(tsr_py_backward_callback, callback, tsr_py_function_release);
}

/* Tensor.register_hook: the hook object stays referenced until removed or
 * its graph is freed; returns the id for _remove_hook. */
static int64_t _register_hook(TsrTensor* tensor, PyObject* hook) {
  int64_t id = -1;
  Py_INCREF(hook);
  tsr_register_hook(tensor, tsr_py_grad_hook, hook, tsr_py_function_release, &id);
  return id;
}

static void _remove_hook(TsrTensor* tensor, int64_t id) { tsr_remove_hook(tensor, id); }

/* Applies the record's function to tensors (a sequence of Tensor or None):
 * a tuple of the outputs. Failures raise the library's error; a Python
 * exception from the record's callbacks is kept by the record. */
static PyObject* _function_apply(PyObject* record, const char* name, PyObject* tensors, bool differentiable) {
  tsr_tensor* in[64];
  int64_t n_in = 0;
  if (tsr_py_borrow(tensors, &n_in, in, 64) != 0) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "Function.apply: inputs must be tensors (at most 64)");
    return NULL;
  }
  tsr_function_def def = TSR_FUNCTION_DEF_INIT;
  def.name = name;
  def.forward = tsr_py_function_forward;
  def.backward = differentiable ? tsr_py_function_backward : NULL;
  Py_INCREF(record);
  def.user_data = record;
  def.release_user_data = tsr_py_function_release; /* also on failure */
  tsr_tensor* out[64];
  int64_t n_out = 0;
  if (tsr_function_apply(&def, n_in, in, 64, &n_out, out) != TSR_OK) return NULL;
  PyObject* tuple = PyTuple_New((Py_ssize_t)n_out);
  for (int64_t i = 0; i < n_out; ++i) {
    PyObject* t = tuple ? tsr_py_new_handle(NULL, out[i], SWIGTYPE_p_TsrTensor, SWIG_POINTER_OWN) : NULL;
    if (!t) {
      for (int64_t j = i; j < n_out; ++j) tsr_tensor_release(out[j]);
      Py_XDECREF(tuple);
      return NULL;
    }
    PyTuple_SET_ITEM(tuple, (Py_ssize_t)i, t);
  }
  return tuple;
}

static void _function_ctx_save(PyObject* capsule, PyObject* tensors) {
  tsr_function_ctx* ctx = tsr_py_ctx(capsule);
  tsr_tensor* list[64];
  int64_t n = 0;
  if (!ctx) return;
  if (tsr_py_borrow(tensors, &n, list, 64) != 0) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "save_for_backward can only save variables, but argument is not a Tensor (or more than 64)");
    return;
  }
  tsr_function_ctx_save_for_backward(ctx, n, list);
}

static PyObject* _function_ctx_saved(PyObject* capsule) {
  tsr_function_ctx* ctx = tsr_py_ctx(capsule);
  if (!ctx) return NULL;
  tsr_tensor* list[64];
  int64_t n = 0;
  if (tsr_function_ctx_saved_tensors(ctx, 64, &n, list) != TSR_OK) return NULL;
  PyObject* tuple = PyTuple_New((Py_ssize_t)n);
  for (int64_t i = 0; i < n; ++i) {
    PyObject* t = NULL;
    if (tuple && list[i]) t = tsr_py_new_handle(NULL, list[i], SWIGTYPE_p_TsrTensor, SWIG_POINTER_OWN);
    else if (tuple) { Py_INCREF(Py_None); t = Py_None; }
    if (!t) {
      for (int64_t j = i; j < n; ++j) tsr_tensor_release(list[j]);
      Py_XDECREF(tuple);
      return NULL;
    }
    PyTuple_SET_ITEM(tuple, (Py_ssize_t)i, t);
  }
  return tuple;
}

static bool _function_ctx_needs_input_grad(PyObject* capsule, int64_t i) {
  tsr_function_ctx* ctx = tsr_py_ctx(capsule);
  bool out = false;
  if (ctx) tsr_function_ctx_needs_input_grad(ctx, i, &out);
  return out;
}

static void _function_ctx_mark(PyObject* capsule, const char* what, PyObject* tensors) {
  tsr_function_ctx* ctx = tsr_py_ctx(capsule);
  tsr_tensor* list[64];
  int64_t n = 0;
  if (!ctx) return;
  if (tsr_py_borrow(tensors, &n, list, 64) != 0) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "mark_dirty / mark_non_differentiable take tensors");
    return;
  }
  if (strcmp(what, "dirty") == 0) tsr_function_ctx_mark_dirty(ctx, n, list);
  else tsr_function_ctx_mark_non_differentiable(ctx, n, list);
}

static void _function_ctx_set_materialize_grads(PyObject* capsule, bool value) {
  tsr_function_ctx* ctx = tsr_py_ctx(capsule);
  if (ctx) tsr_function_ctx_set_materialize_grads(ctx, value);
}
%}
