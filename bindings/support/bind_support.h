/* bindings/support/bind_support.h — small C helpers the SWIG wrappers share.
 *
 * They exist only because a handful of C API shapes do not map onto one
 * method call per language: int64/double/byte arrays coming back (returned
 * here as {pointer, length} structs that each language's out-typemap copies
 * into a native array), a list of tensors (split/chunk results, save input),
 * and the save options. Everything here uses only the public C API, so the
 * bindings stay a client of include/tessera like any other program.
 */
#ifndef TESSERA_BIND_SUPPORT_H
#define TESSERA_BIND_SUPPORT_H

#include <stdlib.h>
#include <string.h>
#include <tessera/tessera.h>

/* Aliases SWIG sees as the class names, so its %extend helpers are called
 * TsrTensor_ndim and not tsr_tensor_ndim (which would collide with the API). */
typedef struct tsr_tensor TsrTensor;
typedef struct tsr_storage TsrStorage;
typedef struct tsr_generator TsrGenerator;
typedef struct tsr_node TsrNode; /* bindings/autograd_graph.i */
typedef struct tsr_tensor_map TsrTensorMap;
typedef struct tsr_file TsrFile;
/* A streaming save (tsr_saver) plus the progress reference it keeps
 * (tessera.i, "Saver"). */
typedef struct TsrSaverBox TsrSaver;
typedef int64_t tsr_i64; /* int64_t behind a pointer, see bindings.md */

/* An int64 array handed back to the language. Borrowed (sizes, strides: valid
 * while the tensor lives) unless owned, then malloc'd and freed by the
 * out-typemap after copying. length -1 means the call failed (error set). */
typedef struct tsr_i64_array {
  const int64_t* data;
  int64_t length;
  int owned;
} tsr_i64_array;

/* A malloc'd double array handed back; the out-typemap copies and frees it. */
typedef struct tsr_f64_array {
  double* data;
  int64_t length;
} tsr_f64_array;

/* A malloc'd byte buffer handed back; the out-typemap copies and frees it. */
typedef struct tsr_bytes {
  char* data;
  int64_t length;
} tsr_bytes;

/* An ordered list of tensor references, each with an optional name, plus
 * string metadata: what split/chunk return and what save takes. It owns one
 * reference per tensor and copies of the strings. */
typedef struct TsrTensorList {
  tsr_tensor** items;
  char** names;
  int64_t size;
  int64_t capacity;
  char** meta_keys;
  char** meta_values;
  int64_t meta_size;
} TsrTensorList;

/* Errors the binding glue itself detects (a list index out of range, malloc
 * failing) are kept beside the library's thread-local record, so each
 * language's %exception block asks one place: tsr_bind_error. */
static __thread tsr_status tsr_bind_code = TSR_OK;
static __thread const char* tsr_bind_message = "";

/* Called before every wrapped call: clears both records. */
static inline void tsr_bind_clear(void) {
  tsr_bind_code = TSR_OK;
  if (tsr_last_error_code() != TSR_OK) tsr_clear_last_error();
}

/* message must be a string literal (static storage). */
static inline void tsr_bind_fail(tsr_status code, const char* message) {
  tsr_bind_code = code;
  tsr_bind_message = message;
}

/* Called after every wrapped call: the status of the failure it recorded, or
 * TSR_OK. *message (borrowed, valid until the next wrapped call on this
 * thread) receives the text. Reading it here, in the same native call as the
 * failure, keeps Go's goroutine-moves-threads problem away (bindings.md). */
static inline tsr_status tsr_bind_error(const char** message) {
  if (tsr_bind_code != TSR_OK) {
    *message = tsr_bind_message;
    return tsr_bind_code;
  }
  tsr_status code = tsr_last_error_code();
  *message = code != TSR_OK ? tsr_last_error_message() : "";
  return code;
}

static inline char* tsr_bind_strdup(const char* s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char* c = (char*)malloc(n);
  if (c) memcpy(c, s, n);
  return c;
}

static inline TsrTensorList* tsr_bind_list_new(void) {
  return (TsrTensorList*)calloc(1, sizeof(TsrTensorList));
}

static inline void tsr_bind_list_free(TsrTensorList* l) {
  if (!l) return;
  for (int64_t i = 0; i < l->size; ++i) {
    tsr_tensor_release(l->items[i]);
    free(l->names[i]);
  }
  for (int64_t i = 0; i < l->meta_size; ++i) {
    free(l->meta_keys[i]);
    free(l->meta_values[i]);
  }
  free(l->items);
  free(l->names);
  free(l->meta_keys);
  free(l->meta_values);
  free(l);
}

/* Takes over one reference to t (the caller's). 0 on success, -1 on OOM
 * (then t is released). */
static inline int tsr_bind_list_push(TsrTensorList* l, tsr_tensor* t, const char* name) {
  if (l->size == l->capacity) {
    int64_t cap = l->capacity ? 2 * l->capacity : 4;
    tsr_tensor** items = (tsr_tensor**)realloc(l->items, (size_t)cap * sizeof *items);
    if (items) l->items = items;
    char** names = items ? (char**)realloc(l->names, (size_t)cap * sizeof *names) : NULL;
    if (names) l->names = names;
    if (!items || !names) {
      tsr_tensor_release(t);
      tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory growing a TensorList");
      return -1;
    }
    l->capacity = cap;
  }
  char* copy = NULL;
  if (name && !(copy = tsr_bind_strdup(name))) {
    tsr_tensor_release(t);
    tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory copying a tensor name");
    return -1;
  }
  l->items[l->size] = t;
  l->names[l->size] = copy;
  l->size++;
  return 0;
}

/* 0 when l is open and 0 <= i < size; else records why (a closed list,
 * TSR_ERR_INVALID_ARGUMENT; i out of range, TSR_ERR_INDEX_OUT_OF_RANGE) and
 * returns -1. */
static inline int tsr_bind_list_check(const TsrTensorList* l, int64_t i) {
  if (!l) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "TensorList is closed");
    return -1;
  }
  if (i < 0 || i >= l->size) {
    tsr_bind_fail(TSR_ERR_INDEX_OUT_OF_RANGE, "TensorList index out of range");
    return -1;
  }
  return 0;
}

/* t's elements, whatever its strides, as a C-order array of t's dtype
 * (tsr_copy_to_buffer) in a malloc'd buffer the caller frees; *nbytes
 * receives its size in bytes. NULL on failure, with the error recorded and
 * *nbytes unchanged. */
static inline void* tsr_bind_copy_elements(const tsr_tensor* t, int64_t* nbytes) {
  int64_t n = tsr_tensor_nbytes(t);
  if (n < 0) return NULL;
  void* data = malloc(n ? (size_t)n : 1);
  if (!data) {
    tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory copying a tensor's elements");
    return NULL;
  }
  if (tsr_copy_to_buffer(t, data, (size_t)n, NULL) != TSR_OK) {
    free(data);
    return NULL;
  }
  *nbytes = n;
  return data;
}

/* The same for t converted to dtype first (tsr_to_dtype: no copy when t
 * already has it); *numel receives the element count. */
static inline void* tsr_bind_copy_elements_as(const tsr_tensor* t, tsr_dtype dtype,
                                              int64_t* numel) {
  tsr_tensor* converted = NULL;
  if (tsr_to_dtype(t, dtype, &converted) != TSR_OK) return NULL;
  int64_t nbytes = 0;
  void* data = tsr_bind_copy_elements(converted, &nbytes);
  if (data) *numel = tsr_tensor_numel(converted);
  tsr_tensor_release(converted);
  return data;
}

/* A new tensor of sizes (ndim of them) holding data, nbytes of C-order
 * elements of dtype source (tsr_from_data), converted to dtype as
 * tsr_to_dtype converts. NULL on failure, with the error recorded. */
static inline tsr_tensor* tsr_bind_from_data_as(const void* data, size_t nbytes, int64_t ndim,
                                                const int64_t* sizes, tsr_dtype source,
                                                tsr_dtype dtype) {
  tsr_tensor *raw = NULL, *out = NULL;
  if (tsr_from_data(data, nbytes, ndim, sizes, source, &raw) != TSR_OK) return NULL;
  tsr_to_dtype(raw, dtype, &out);
  tsr_tensor_release(raw);
  return out;
}

/* tsr_checkpoint_begin with the options as plain arguments (the struct, with
 * its struct_size and a string read only during the call, does not cross a
 * SWIG boundary well). keep_ops: comma-separated op names, NULL or "" for
 * none. The status is recorded as for any call. */
static inline tsr_status tsr_bind_checkpoint_begin(bool preserve_rng_state, bool determinism_check,
                                                   bool early_stop, const char* keep_ops) {
  tsr_checkpoint_options options = TSR_CHECKPOINT_OPTIONS_INIT;
  options.preserve_rng_state = preserve_rng_state;
  options.determinism_check = determinism_check;
  options.early_stop = early_stop;
  options.keep_ops = keep_ops;
  return tsr_checkpoint_begin(&options);
}

/* tsr_autograd_grad over lists: outputs and inputs (each at least one
 * tensor), grad_outputs NULL or a list as long as outputs whose empty slots
 * (tsr_bind_list_push of NULL) mean "ones". A new list of one gradient per
 * input, NULL entries for inputs no output uses (allow_unused); NULL on
 * failure, with the error recorded. */
static inline TsrTensorList* tsr_bind_autograd_grad(const TsrTensorList* outputs,
                                                    const TsrTensorList* inputs,
                                                    const TsrTensorList* grad_outputs,
                                                    bool retain_graph, bool create_graph,
                                                    bool allow_unused) {
  if (!outputs || !inputs) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "autograd_grad: outputs or inputs is NULL or closed");
    return NULL;
  }
  if (grad_outputs && grad_outputs->size != outputs->size) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT,
                  "autograd_grad: grad_outputs must have one entry per output");
    return NULL;
  }
  int64_t n = inputs->size;
  tsr_tensor** grads = (tsr_tensor**)calloc((size_t)(n > 0 ? n : 1), sizeof *grads);
  TsrTensorList* l = tsr_bind_list_new();
  if (!grads || !l) {
    free(grads);
    tsr_bind_list_free(l);
    tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory listing gradients");
    return NULL;
  }
  if (tsr_autograd_grad(outputs->size, outputs->items,
                        grad_outputs ? (const tsr_tensor* const*)grad_outputs->items : NULL, n,
                        inputs->items, retain_graph, create_graph, allow_unused,
                        grads) != TSR_OK) {
    free(grads);
    tsr_bind_list_free(l);
    return NULL;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (tsr_bind_list_push(l, grads[i], NULL) != 0) {
      for (int64_t j = i + 1; j < n; ++j) tsr_tensor_release(grads[j]);
      free(grads);
      tsr_bind_list_free(l);
      return NULL;
    }
  }
  free(grads);
  return l;
}

/* Runs split or chunk (which fill a caller array) into a new list. */
typedef tsr_status (*tsr_bind_pieces_fn)(const tsr_tensor*, int64_t, int64_t, tsr_tensor**,
                                         int64_t, int64_t*);
static inline TsrTensorList* tsr_bind_pieces(tsr_bind_pieces_fn fn, const tsr_tensor* t,
                                             int64_t arg, int64_t dim) {
  /* The first call, with capacity 0, only asks the count: it fails with
   * TSR_ERR_INVALID_ARGUMENT whenever there is a piece, but writes the count;
   * a count left at -1 means the arguments themselves were refused. */
  int64_t count = -1;
  if (fn(t, arg, dim, NULL, 0, &count) != TSR_OK) {
    if (count < 0) return NULL;
    tsr_clear_last_error();
  }
  TsrTensorList* l = tsr_bind_list_new();
  tsr_tensor** outs = (tsr_tensor**)calloc((size_t)(count ? count : 1), sizeof *outs);
  if (!l || !outs) tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory listing pieces");
  if (!l || !outs || fn(t, arg, dim, outs, count, &count) != TSR_OK) {
    free(outs);
    tsr_bind_list_free(l);
    return NULL;
  }
  for (int64_t i = 0; i < count; ++i) {
    if (tsr_bind_list_push(l, outs[i], NULL) != 0) {
      for (int64_t j = i + 1; j < count; ++j) tsr_tensor_release(outs[j]);
      free(outs);
      tsr_bind_list_free(l);
      return NULL;
    }
  }
  free(outs);
  return l;
}

/* A tsr_save_options from plain arguments; metadata: the list's metadata
 * pairs (NULL for none). */static void bind_fill_save_options(tsr_save_options* opts, const TsrTensorList* metadata,
                                   tsr_compression compression, int32_t level,
                                   bool skip_checksums, int64_t max_shard_size,
                                   bool flatten_views, tsr_progress_fn progress,
                                   void* progress_user_data) {
  memset(opts, 0, sizeof *opts);
  opts->struct_size = sizeof *opts;
  opts->compression = compression;
  opts->level = level;
  if (metadata) {
    opts->n_metadata = metadata->meta_size;
    opts->metadata_keys = (const char* const*)metadata->meta_keys;
    opts->metadata_values = (const char* const*)metadata->meta_values;
  }
  opts->skip_checksums = skip_checksums ? 1 : 0;
  opts->progress = progress;
  opts->progress_user_data = progress_user_data;
  opts->max_shard_size = max_shard_size;
  opts->flatten_views = flatten_views ? 1 : 0;
}

/* Each language file defines these two (tessera.i, "Progress callbacks"):
 * a reference to a progress callback's user_data that outlives the call,
 * and its release. */
static void* tsr_bind_progress_keep(void* user_data);
static void tsr_bind_progress_drop(void* kept);
/* The saver plus the kept progress reference it calls back through
 * (typedef TsrSaver above). */
struct TsrSaverBox {
  tsr_saver* saver;
  void* progress_user_data; /* tsr_bind_progress_keep's, or NULL */
};
static void bind_saver_free(TsrSaver* s) {
  if (!s) return;
  tsr_saver_release(s->saver); /* abandons an uncommitted save */
  if (s->progress_user_data) tsr_bind_progress_drop(s->progress_user_data);
  free(s);
}
/* NULL (and the error recorded) for a closed saver. */
static tsr_saver* bind_saver_get(TsrSaver* s, const char* what) {
  if (!s) tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, what);
  return s ? s->saver : NULL;
}

#endif /* TESSERA_BIND_SUPPORT_H */
