/* bindings/java/java.i — Java specifics of bindings/tessera.i: the exception
 * bracket, array and string typemaps, proxies owned by a Cleaner, names in
 * lowerCamelCase. Included by tessera.i before the declarations.
 *
 * Generated with `swig -c++ -java -package org.tessera -module NativeTessera`: the
 * module functions land in the package-private class NativeTessera (their
 * names are fixed by tessera.i's own %renames), behind the hand-written
 * public facade Tessera with Java names. The natives are in NativeTesseraJNI.
 * Hand-written classes of the package (bindings/java/src/org/tessera) add the
 * loader, TesseraException, MemoryStats, the no_grad scope and conveniences.
 *
 * Generated as C++ (swig -c++): only then does SWIG's Java module turn
 * default arguments into overloads (zeros(sizes), zeros(sizes, dtype), ...);
 * tessera.i's code is plain C that also compiles as C++. Typemaps call JNI
 * through SWIG's JCALLn macros; the helpers in %{ %} are C++.
 *
 * Early return: a failed call throws and `return $null`s straight out of the
 * wrapper, skipping SWIG's freearg typemaps. So no typemap here keeps
 * anything to free in freearg: buffers are stack arrays or tsr_java_heap
 * locals, whose destructor frees them on every return. */

%include "enums.swg"
/* Enum values as Java compile-time constants (they are literals in the
 * headers), not fetched through JNI when each enum class loads. */
%javaconst(1);

%{
#include <jni.h>
#include <string.h>

/* A typemap local owning a malloc'd block, freed whenever the wrapper
 * returns, including the early `return $null` of the exception bracket. */
struct tsr_java_heap {
  void* p = nullptr;
  tsr_java_heap() = default;
  tsr_java_heap(const tsr_java_heap&) = delete;
  tsr_java_heap& operator=(const tsr_java_heap&) = delete;
  ~tsr_java_heap() { free(p); }
};

/* org.tessera.TesseraException(int status, byte[] utf8Message), looked up
 * once when the library is loaded (JNI_OnLoad runs inside System.load,
 * whose caller's class loader can see the package). */
static jclass tsr_java_exception_class;
static jmethodID tsr_java_exception_init;
/* For progress callbacks (below): the VM, to find the calling thread's
 * JNIEnv inside the C trampoline, and ProgressListener.onProgress. */
static JavaVM* tsr_java_vm;
static jmethodID tsr_java_progress_method;

extern "C" JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void* reserved) {
  (void)reserved;
  JNIEnv* env = NULL;
  if (vm->GetEnv((void**)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
  jclass local = env->FindClass("org/tessera/TesseraException");
  if (!local) return JNI_ERR;
  tsr_java_exception_init = env->GetMethodID(local, "<init>", "(I[B)V");
  tsr_java_exception_class = (jclass)env->NewGlobalRef(local);
  env->DeleteLocalRef(local);
  if (!tsr_java_exception_init || !tsr_java_exception_class) return JNI_ERR;
  jclass listener = env->FindClass("org/tessera/ProgressListener");
  if (!listener) return JNI_ERR;
  tsr_java_progress_method = env->GetMethodID(listener, "onProgress", "(JJ)Z");
  env->DeleteLocalRef(listener);
  if (!tsr_java_progress_method) return JNI_ERR;
  tsr_java_vm = vm;
  return JNI_VERSION_1_8;
}

/* Raises TesseraException(status, message) in the calling Java thread. The
 * message goes over as bytes: library messages are UTF-8 (file names), which
 * NewStringUTF's modified UTF-8 would not always accept. */
static void tsr_java_throw(JNIEnv* jenv, tsr_status status, const char* message) {
  if (!message) message = "";
  jsize n = (jsize)strlen(message);
  jbyteArray bytes = jenv->NewByteArray(n);
  if (!bytes) return; /* OutOfMemoryError pending */
  jenv->SetByteArrayRegion(bytes, 0, n, (const jbyte*)message);
  jthrowable error = (jthrowable)jenv->NewObject(tsr_java_exception_class, tsr_java_exception_init,
                                                 (jint)status, bytes);
  if (error) jenv->Throw(error);
}

/* An exception a custom function's forward or backward threw
 * (java_function.i): the callback cannot let it unwind through the library,
 * so it keeps it here (a global reference) and fails; the wrapped call that
 * entered the library on this thread (Function.apply, Tensor.backward,
 * Tessera.autogradGrad, ...) then throws that very exception instead of a
 * TesseraException. Cleared when a wrapped call starts, so a failure that
 * the library handled and swallowed cannot resurface in a later call. */
static thread_local jthrowable tsr_java_kept_error = NULL;

static void tsr_java_keep_error(JNIEnv* jenv, jthrowable error) {
  if (tsr_java_kept_error) jenv->DeleteGlobalRef(tsr_java_kept_error);
  tsr_java_kept_error = error ? (jthrowable)jenv->NewGlobalRef(error) : NULL;
}

/* The failure of a wrapped call: the kept callback exception, or
 * TesseraException(status, message). */
static void tsr_java_fail(JNIEnv* jenv, tsr_status status, const char* message) {
  jthrowable kept = tsr_java_kept_error;
  if (kept) {
    tsr_java_kept_error = NULL;
    jenv->Throw(kept);
    jenv->DeleteGlobalRef(kept);
    return;
  }
  tsr_java_throw(jenv, status, message);
}

static void tsr_java_throw_null(JNIEnv* jenv, const char* what) {
  SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, what);
}

/* Bytes of a Java byte[] as a NUL-terminated C string in *out (malloc'd). */
static int tsr_java_c_string(JNIEnv* jenv, jbyteArray utf8, char** out) {
  jsize n = jenv->GetArrayLength(utf8);
  char* s = (char*)malloc((size_t)n + 1);
  if (!s) {
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "out of memory copying a string");
    return -1;
  }
  jenv->GetByteArrayRegion(utf8, 0, n, (jbyte*)s);
  s[n] = '\0';
  /* A NUL inside would silently cut the string short (a path "a\0b" would
   * open "a"): refuse it, as Go's binding and Python's open() do. */
  if (memchr(s, '\0', (size_t)n)) {
    free(s);
    tsr_java_throw(jenv, TSR_ERR_INVALID_ARGUMENT, "string argument contains a NUL character");
    return -1;
  }
  *out = s;
  return 0;
}
%}

/* ---- errors ---------------------------------------------------------------- */
/* Every call: clear, act, and on a recorded failure throw TesseraException
 * (or the exception a custom function's callback threw: tsr_java_fail) and
 * return before the out typemap looks at the result. */
%exception {
  tsr_bind_clear();
  if (tsr_java_kept_error) tsr_java_keep_error(jenv, NULL);
  $action
  {
    const char* tsr_message;
    tsr_status tsr_code = tsr_bind_error(&tsr_message);
    if (tsr_code != TSR_OK) {
      tsr_java_fail(jenv, tsr_code, tsr_message);
      return $null;
    }
  }
}
/* Releases cannot fail and run on the Cleaner's thread: no bracket. */
%noexception TsrTensor::~TsrTensor;
%noexception TsrStorage::~TsrStorage;
%noexception TsrGenerator::~TsrGenerator;
%noexception TsrTensorMap::~TsrTensorMap;
%noexception TsrTensorList::~TsrTensorList;
%noexception TsrSaver::~TsrSaver;
%noexception TsrFile::~TsrFile;

/* ---- names ----------------------------------------------------------------- */
/* snake_case -> lowerCamelCase (storage_offset -> storageOffset). In-place
 * ops keep PyTorch's trailing underscore, which lowercamelcase would drop
 * (add_ and add would collide). */
%rename(add_) TsrTensor::add_;
%rename(mulScalar_) TsrTensor::mul_scalar_;
%rename(fill_) TsrTensor::fill_;
/* Object.toString() wraps it (closed tensors, exceptions). */
%rename(toStringNative) TsrTensor::to_string;
%javamethodmodifiers TsrTensor::to_string "private";
%rename(zero_) TsrTensor::zero_;
%rename(copy_) TsrTensor::copy_;
%rename(relu_) TsrTensor::relu_;
/* pow(double) and pow(Tensor), as torch.Tensor.pow takes either. */
%rename(pow) TsrTensor::pow_scalar;
/* clamp(Double min, Double max) below, with null for None, over the
 * flag-and-value native form. */
%rename(nativeClamp) TsrTensor::clamp;
%javamethodmodifiers TsrTensor::clamp "private";
%rename("%(lowercamelcase)s", %$isfunction) "";
%rename("%(lowercamelcase)s", match="parm") ""; /* memory_format -> memoryFormat */

/* Module functions: the C definitions in tessera.i carry no C++ default
 * arguments, so SWIG must fill the defaults in (one full-signature wrapper
 * each); the Tessera facade offers the short forms. A module function added
 * to tessera.i with defaults fails to compile here until it is listed. */
%feature("compactdefaultargs") bind_save;
%feature("compactdefaultargs") bind_memory_stats;
%feature("compactdefaultargs") bind_memory_allocated;
%feature("compactdefaultargs") bind_max_memory_allocated;
%feature("compactdefaultargs") bind_memory_reserved;
%feature("compactdefaultargs") bind_max_memory_reserved;
%feature("compactdefaultargs") bind_reset_peak_memory_stats;
%feature("compactdefaultargs") bind_reset_accumulated_memory_stats;
%feature("compactdefaultargs") bind_empty_cache;
%feature("compactdefaultargs") bind_set_memory_limit;
%feature("compactdefaultargs") bind_memory_limit;

/* ---- scalars ----------------------------------------------------------------- */
/* uint64_t (seeds, data_ptr) as Java long: same 64 bits, read unsigned with
 * Long.toUnsignedString where it matters. */
%apply long long { unsigned long long };

/* ---- strings: UTF-8 both ways ---------------------------------------------- */
/* In: String -> NUL-terminated UTF-8 bytes (Java side), copied to a C string
 * freed on return. null passes NULL (the library reports it where refused). */
%typemap(jni) const char* "jbyteArray"
%typemap(jtype) const char* "byte[]"
%typemap(jstype) const char* "String"
%typemap(javain) const char* "Utf8.encode($javainput)"
%typemap(in) const char* (tsr_java_heap tsr_chars) {
  $1 = NULL;
  if ($input) {
    char* copy = NULL;
    if (tsr_java_c_string(jenv, $input, &copy) != 0) return $null;
    tsr_chars.p = copy;
    $1 = ($1_ltype)copy;
  }
}
%typemap(freearg) const char* ""
/* Out: borrowed C string -> byte[] -> String (null stays null). */
%typemap(out) const char* {
  $result = NULL;
  if ($1) {
    jsize n = (jsize)strlen($1);
    $result = JCALL1(NewByteArray, jenv, n);
    if (!$result) return $null;
    JCALL4(SetByteArrayRegion, jenv, $result, 0, n, (const jbyte*)$1);
  }
}
%typemap(javaout) const char* { return Utf8.decode($jnicall); }

/* ---- arrays in ------------------------------------------------------------- */
/* long[] -> int64 list. Shapes fit the stack buffer; longer lists (element
 * values) are heap-allocated and freed on return. */
%typemap(jni) (const tsr_i64* array, int64_t length) "jlongArray"
%typemap(jtype) (const tsr_i64* array, int64_t length) "long[]"
%typemap(jstype) (const tsr_i64* array, int64_t length) "long[]"
%typemap(javain) (const tsr_i64* array, int64_t length) "$javainput"
%typemap(in) (const tsr_i64* array, int64_t length)
    (int64_t tsr_small[16], tsr_java_heap tsr_heap) {
  if (!$input) {
    tsr_java_throw_null(jenv, "array argument is null");
    return $null;
  }
  jsize n = JCALL1(GetArrayLength, jenv, $input);
  int64_t* buf = tsr_small;
  if (n > 16) {
    tsr_heap.p = malloc((size_t)n * sizeof(int64_t));
    if (!tsr_heap.p) {
      SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "out of memory copying a long[]");
      return $null;
    }
    buf = (int64_t*)tsr_heap.p;
  }
  JCALL4(GetLongArrayRegion, jenv, $input, 0, n, (jlong*)buf);
  $1 = (tsr_i64*)buf;
  $2 = (int64_t)n;
}
%typemap(freearg) (const tsr_i64* array, int64_t length) ""

%typemap(jni) (const double* darray, int64_t dlength) "jdoubleArray"
%typemap(jtype) (const double* darray, int64_t dlength) "double[]"
%typemap(jstype) (const double* darray, int64_t dlength) "double[]"
%typemap(javain) (const double* darray, int64_t dlength) "$javainput"
%typemap(in) (const double* darray, int64_t dlength) (tsr_java_heap tsr_values) {
  if (!$input) {
    tsr_java_throw_null(jenv, "array argument is null");
    return $null;
  }
  jsize n = JCALL1(GetArrayLength, jenv, $input);
  tsr_values.p = malloc((size_t)(n ? n : 1) * sizeof(double));
  if (!tsr_values.p) {
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "out of memory copying a double[]");
    return $null;
  }
  JCALL4(GetDoubleArrayRegion, jenv, $input, 0, n, (jdouble*)tsr_values.p);
  $1 = (double*)tsr_values.p;
  $2 = (int64_t)n;
}
%typemap(freearg) (const double* darray, int64_t dlength) ""

%typemap(jni) (const void* bytes, size_t nbytes) "jbyteArray"
%typemap(jtype) (const void* bytes, size_t nbytes) "byte[]"
%typemap(jstype) (const void* bytes, size_t nbytes) "byte[]"
%typemap(javain) (const void* bytes, size_t nbytes) "$javainput"
%typemap(in) (const void* bytes, size_t nbytes) (tsr_java_heap tsr_bytes_copy) {
  if (!$input) {
    tsr_java_throw_null(jenv, "array argument is null");
    return $null;
  }
  jsize n = JCALL1(GetArrayLength, jenv, $input);
  tsr_bytes_copy.p = malloc(n ? (size_t)n : 1);
  if (!tsr_bytes_copy.p) {
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "out of memory copying a byte[]");
    return $null;
  }
  JCALL4(GetByteArrayRegion, jenv, $input, 0, n, (jbyte*)tsr_bytes_copy.p);
  $1 = tsr_bytes_copy.p;
  $2 = (size_t)n;
}
%typemap(freearg) (const void* bytes, size_t nbytes) ""

/* ---- arrays out -------------------------------------------------------------- */
/* The carrier structs never reach Java as classes. */
%feature("ignore") tsr_i64_array;
%feature("ignore") tsr_f64_array;
%feature("ignore") tsr_bytes;
/* Copied into a fresh Java array; an owned C block is freed here. A failed
 * call never gets here (the bracket returned), and leaves data NULL. */
%typemap(jni) tsr_i64_array "jlongArray"
%typemap(jtype) tsr_i64_array "long[]"
%typemap(jstype) tsr_i64_array "long[]"
%typemap(javaout) tsr_i64_array { return $jnicall; }
%typemap(out) tsr_i64_array {
  $result = NULL;
  if ($1.length >= 0) {
    $result = JCALL1(NewLongArray, jenv, (jsize)$1.length);
    if ($result && $1.length > 0)
      JCALL4(SetLongArrayRegion, jenv, $result, 0, (jsize)$1.length, (const jlong*)$1.data);
  }
  if ($1.owned) free((void*)$1.data);
}

%typemap(jni) tsr_f64_array "jdoubleArray"
%typemap(jtype) tsr_f64_array "double[]"
%typemap(jstype) tsr_f64_array "double[]"
%typemap(javaout) tsr_f64_array { return $jnicall; }
%typemap(out) tsr_f64_array {
  $result = NULL;
  if ($1.length >= 0) {
    $result = JCALL1(NewDoubleArray, jenv, (jsize)$1.length);
    if ($result && $1.length > 0)
      JCALL4(SetDoubleArrayRegion, jenv, $result, 0, (jsize)$1.length, $1.data);
  }
  free($1.data);
}

%typemap(jni) tsr_bytes "jbyteArray"
%typemap(jtype) tsr_bytes "byte[]"
%typemap(jstype) tsr_bytes "byte[]"
%typemap(javaout) tsr_bytes { return $jnicall; }
%typemap(out) tsr_bytes {
  $result = NULL;
  if ($1.length >= 0) {
    $result = JCALL1(NewByteArray, jenv, (jsize)$1.length);
    if ($result && $1.length > 0)
      JCALL4(SetByteArrayRegion, jenv, $result, 0, (jsize)$1.length, (const jbyte*)$1.data);
  }
  free($1.data);
}

/* ---- allocator statistics: a plain Java value ------------------------------ */
/* MemoryStats and MemoryStat are hand-written immutable classes
 * (src/org/tessera), built from the struct's int64 fields in declaration
 * order; SWIG's own proxies would hand out pointers into a freed struct. */
/* %feature("ignore") because tessera.i's later %rename would override an
 * %ignore (a rename itself). */
%feature("ignore") tsr_memory_stat_t;
%feature("ignore") tsr_memory_stats_t;
%{
/* 9 four-field stats and 4 counters after struct_size: the 0.1 fields,
 * which MemoryStats.java holds. The fields appended in 0.2 (oversize stats,
 * num_sync_all_streams, max_split_size) are not in MemoryStats yet; the
 * assertion pins the ones read here. */
#define TSR_JAVA_MEMORY_STATS_FIELDS (9 * 4 + 4)
static_assert(offsetof(tsr_memory_stats_t, num_device_free) ==
                   sizeof(size_t) + (TSR_JAVA_MEMORY_STATS_FIELDS - 1) * sizeof(int64_t),
               "tsr_memory_stats_t changed: update java.i and MemoryStats.java");
%}
%typemap(jni) tsr_memory_stats_t "jlongArray"
%typemap(jtype) tsr_memory_stats_t "long[]"
%typemap(jstype) tsr_memory_stats_t "MemoryStats"
%typemap(javaout) tsr_memory_stats_t { return new MemoryStats($jnicall); }
%typemap(out) tsr_memory_stats_t {
  $result = JCALL1(NewLongArray, jenv, TSR_JAVA_MEMORY_STATS_FIELDS);
  if ($result) {
    const tsr_memory_stat_t* stats[9] = {
        &$1.allocation,      &$1.segment,        &$1.active,
        &$1.inactive_split,  &$1.allocated_bytes, &$1.reserved_bytes,
        &$1.active_bytes,    &$1.inactive_split_bytes, &$1.requested_bytes};
    jlong v[TSR_JAVA_MEMORY_STATS_FIELDS];
    for (int i = 0; i < 9; ++i) {
      v[4 * i] = stats[i]->current;
      v[4 * i + 1] = stats[i]->peak;
      v[4 * i + 2] = stats[i]->allocated;
      v[4 * i + 3] = stats[i]->freed;
    }
    v[36] = $1.num_alloc_retries;
    v[37] = $1.num_ooms;
    v[38] = $1.num_device_alloc;
    v[39] = $1.num_device_free;
    JCALL4(SetLongArrayRegion, jenv, $result, 0, TSR_JAVA_MEMORY_STATS_FIELDS, v);
  }
}

/* ---- handle classes: AutoCloseable, released by a Cleaner ------------------ */
/* The proxy keeps the address and a Cleanable whose action (a static nested
 * class holding only the address, never the proxy) releases the native
 * reference once: on close(), or after the proxy became unreachable.
 * close() zeroes the address first, so a later call passes NULL and the
 * library reports TSR_ERR_INVALID_ARGUMENT instead of touching freed memory.
 * SWIG's finalize()/delete() are gone. */
%define TSR_JAVA_HANDLE(CTYPE)
%typemap(javabody) CTYPE %{
  private transient long swigCPtr;
  private final java.lang.ref.Cleaner.Cleanable swigCleanable;

  $javaclassname(long cPtr, boolean cMemoryOwn) {
    swigCPtr = cPtr;
    swigCleanable = (cMemoryOwn && cPtr != 0) ? NativeCleaner.register(this, new Release(cPtr)) : null;
  }

  static long getCPtr($javaclassname obj) {
    return (obj == null) ? 0 : obj.swigCPtr;
  }

  /** True once {@link #close()} ran; every other method then throws. */
  public boolean isClosed() {
    return swigCPtr == 0;
  }

  private static final class Release implements Runnable {
    private final long cPtr;

    Release(long cPtr) {
      this.cPtr = cPtr;
    }

    @Override
    public void run() {
      $imclassname.delete_$javaclassname(cPtr);
    }
  }
%}
%typemap(javadestruct, methodname="close", methodmodifiers="@Override public") CTYPE {
    swigCPtr = 0;
    if (swigCleanable != null) swigCleanable.clean();
  }
%typemap(javafinalize) CTYPE ""
%typemap(javainterfaces) CTYPE "AutoCloseable"
%typemap(javaclassmodifiers) CTYPE "public final class"
%enddef

TSR_JAVA_HANDLE(TsrTensor)
TSR_JAVA_HANDLE(TsrStorage)
TSR_JAVA_HANDLE(TsrGenerator)
TSR_JAVA_HANDLE(TsrTensorMap)
TSR_JAVA_HANDLE(TsrTensorList)
TSR_JAVA_HANDLE(TsrSaver)
TSR_JAVA_HANDLE(TsrFile)

/* ---- progress callbacks (tessera.i, "Progress callbacks") ------------------ */
/* A ProgressListener (null: none) is user_data; the trampoline calls its
 * onProgress(bytesDone, bytesTotal) on the calling thread (the library calls
 * back there), false cancelling. The facade hands over an org.tessera.Progress,
 * which catches what the user's listener throws, so no Java exception is
 * pending while C runs on; one pending anyway is cleared and cancels. A
 * saver keeps a global reference until it is released. */
%{
static JNIEnv* tsr_java_env(void) {
  JNIEnv* env = NULL;
  if (!tsr_java_vm || tsr_java_vm->GetEnv((void**)&env, JNI_VERSION_1_8) != JNI_OK) return NULL;
  return env;
}
static tsr_status tsr_java_progress(uint64_t done, uint64_t total, void* user_data) {
  JNIEnv* env = tsr_java_env();
  if (!env) return TSR_ERR_CANCELLED;
  jboolean go = env->CallBooleanMethod((jobject)user_data, tsr_java_progress_method, (jlong)done,
                                       (jlong)total);
  if (env->ExceptionCheck()) {
    env->ExceptionClear();
    return TSR_ERR_CANCELLED;
  }
  return go ? TSR_OK : TSR_ERR_CANCELLED;
}
static void* tsr_bind_progress_keep(void* user_data) {
  JNIEnv* env = tsr_java_env();
  return env ? (void*)env->NewGlobalRef((jobject)user_data) : NULL;
}
/* The Cleaner's thread is a Java thread: attached, it has an env. */
static void tsr_bind_progress_drop(void* kept) {
  JNIEnv* env = tsr_java_env();
  if (env) env->DeleteGlobalRef((jobject)kept);
}
%}
%typemap(jni) (tsr_progress_fn progress, void* progress_user_data) "jobject"
%typemap(jtype) (tsr_progress_fn progress, void* progress_user_data) "ProgressListener"
%typemap(jstype) (tsr_progress_fn progress, void* progress_user_data) "ProgressListener"
%typemap(javain) (tsr_progress_fn progress, void* progress_user_data) "$javainput"
%typemap(in) (tsr_progress_fn progress, void* progress_user_data) {
  $1 = $input ? tsr_java_progress : NULL;
  $2 = (void*)$input; /* a local reference, valid for this call */
}

/* Saver and TensorFile: the native forms are private; the public ones take
 * SaveOptions / LoadOptions and say why a save was cancelled. */
%rename(nativeOpen) TsrSaver::open;
%javamethodmodifiers TsrSaver::open "private";
%rename(nativeAdd) TsrSaver::add;
%javamethodmodifiers TsrSaver::add "private";
%rename(nativeCommit) TsrSaver::commit;
%javamethodmodifiers TsrSaver::commit "private";
%rename(nativeOpen) TsrFile::open;
%javamethodmodifiers TsrFile::open "private";
%rename(nativeDtype) TsrFile::dtype;
%javamethodmodifiers TsrFile::dtype "private";
%rename(nativeShape) TsrFile::shape;
%javamethodmodifiers TsrFile::shape "private";
%typemap(javacode) TsrSaver %{
  private Progress progress;

  /**
   * Starts a streaming save to path (tsr_saver_open): add tensors as they are produced, then
   * commit, and the file appears at path atomically. Closing without commit (or after a failure)
   * abandons the save: any file at path stays as it was and no temporary is left. Use it in
   * try-with-resources and call {@link #commit()} as the block's last statement.
   *
   * @param options compression, level, metadata, checksums, progress (null: defaults); a
   *     maxShardSize is refused (ERR_UNSUPPORTED)
   */
  public static Saver open(String path, SaveOptions options) {
    final SaveOptions o = options == null ? new SaveOptions() : options;
    Progress p = Progress.wrap(o.progress());
    try (TensorList metadata = o.metadataList()) {
      Saver s = Progress.call(p, () -> nativeOpen(path, metadata, o.compression(), o.level(),
          o.skipChecksums(), o.maxShardSize(), p));
      s.progress = p;
      return s;
    }
  }

  /** Starts a plain save to path with the defaults. */
  public static Saver open(String path) {
    return open(path, null);
  }

  /** Writes tensor's contents under name now (the tensor may change or close afterwards). */
  public void add(String name, Tensor tensor) {
    Progress.call(progress, () -> { nativeAdd(name, tensor); return null; });
  }

  /** Finishes the file and renames it over path; once only. */
  public void commit() {
    Progress.call(progress, () -> { nativeCommit(); return null; });
  }
%}
%typemap(javaimports) TsrFile "import java.util.ArrayList;\nimport java.util.LinkedHashMap;\nimport java.util.List;\nimport java.util.Map;"
%typemap(javacode) TsrFile %{
  /**
   * Opens a checkpoint without reading its tensors (tsr_open_file), like safetensors' safe_open:
   * names, dtypes, shapes and metadata now, each tensor on {@link #get(String)}. A plain file's
   * tensors are read-only views of a memory mapping (clone() gives a writable copy); a compressed
   * file's are decoded one by one. The mapping lives while the file or any tensor from it does.
   *
   * @param options maxBytes and skipChecksums (null: defaults; progress is ignored)
   */
  public static TensorFile open(String path, LoadOptions options) {
    if (options == null) options = new LoadOptions();
    return nativeOpen(path, options.maxBytes(), options.skipChecksums());
  }

  public static TensorFile open(String path) {
    return open(path, null);
  }

  /** The tensor called name (ERR_INVALID_ARGUMENT "no tensor named ..." when absent). */
  public Tensor get(String name) { return getByName(name); }

  /** Tensor names in file order. */
  public List<String> names() {
    List<String> out = new ArrayList<>();
    for (long i = 0, n = size(); i < n; ++i) out.add(name(i));
    return out;
  }

  private long indexOf(String name) {
    long i = find(name);
    if (i < 0) throw new TesseraException(Status.ERR_INVALID_ARGUMENT, "no tensor named '" + name + "' in the file");
    return i;
  }

  /** The dtype of the tensor called name, without reading it. */
  public DType dtype(String name) { return nativeDtype(indexOf(name)); }

  /** The sizes of the tensor called name, without reading it. */
  public long[] shape(String name) { return nativeShape(indexOf(name)); }

  /**
   * Rows [start, stop) of dim 0 of the tensor called name, reading only what they need
   * (tsr_file_get_slice; safetensors' get_slice(name)[start:stop]): a read-only view of the
   * mapping for a plain file, a new tensor decoded from just the chunks holding those rows for a
   * zstd-planes file. {@code getSlice(long, long, long)} takes the index instead.
   *
   * @throws TesseraException ERR_INVALID_ARGUMENT for an absent name, a 0-dim tensor, a negative
   *     start or stop (not counted from the end), start &gt; stop or stop &gt; sizes[0]
   */
  public Tensor getSlice(String name, long start, long stop) { return getSlice(indexOf(name), start, stop); }

  /** The "__metadata__" pairs (the checksum entry left out), sorted by key. */
  public Map<String, String> metadata() {
    Map<String, String> out = new LinkedHashMap<>();
    for (long i = 0, n = metadataSize(); i < n; ++i) out.put(metadataKey(i), metadataValue(i));
    return out;
  }
%}

/* split, chunk and max_dim hand back a java.util.List<Tensor>: the native
 * list is emptied into Java proxies and released at once. */
%typemap(jstype) TsrTensorList* TsrTensor::split, TsrTensorList* TsrTensor::chunk,
                 TsrTensorList* TsrTensor::max_dim "java.util.List<Tensor>"
%typemap(javaout) TsrTensorList* TsrTensor::split, TsrTensorList* TsrTensor::chunk,
                  TsrTensorList* TsrTensor::max_dim {
    return TensorList.drain($jnicall);
  }

/* Generator.getState() returns a Generator.State value (below); the native
 * (seed, offset) pair stays private. */
%rename(nativeState) TsrGenerator::get_state;
%javamethodmodifiers TsrGenerator::get_state "private";

/* Hand-written members of the generated classes. */
%typemap(javacode) TsrTensor %{
  /** {@code this + other} as a new tensor (torch.add with a scalar). */
  public Tensor add(double scalar) { return addScalar(scalar); }
  public Tensor sub(double scalar) { return addScalar(-scalar); }
  public Tensor mul(double scalar) { return mulScalar(scalar); }
  public Tensor div(double scalar) { return mulScalar(1.0 / scalar); }
  /** Sum over every element (an empty dims list reduces over all). */
  public Tensor sum() { return sum(new long[0]); }
  public Tensor mean() { return mean(new long[0]); }
  /**
   * torch.clamp(this, min, max): elements limited to [min, max]; either bound may be null (None),
   * not both (TesseraException ERR_INVALID_ARGUMENT). Floating tensors keep their dtype, integer
   * and bool ones give float32.
   */
  public Tensor clamp(Double min, Double max) {
    return nativeClamp(min != null, min == null ? 0.0 : min, max != null, max == null ? 0.0 : max);
  }
  /** torch.clamp_min: clamp(min, null). */
  public Tensor clampMin(double min) { return nativeClamp(true, min, false, 0.0); }
  /** torch.clamp_max: clamp(null, max). */
  public Tensor clampMax(double max) { return nativeClamp(false, 0.0, true, max); }
  /**
   * torch's repr, from the library (tsr_tensor_to_string): "tensor([[1., 2.],\n        [3., 4.]])",
   * summarised past 1000 elements, with dtype/device/grad_fn suffixes. Never throws.
   */
  @Override
  public String toString() {
    if (isClosed()) return "tensor(<closed>)";
    try {
      return toStringNative();
    } catch (TesseraException e) {
      return "tensor(<" + e.getMessage() + ">)";
    }
  }
%}
%typemap(javacode) TsrGenerator %{
  /**
   * A generator's position (torch's Philox seed and offset): the seed, and the number of 32-bit
   * words drawn so far. Both are unsigned 64-bit values carried in a long (read them with
   * Long.toUnsignedString / Long.compareUnsigned past 2^63).
   */
  public record State(long seed, long offset) {}

  /** Where the generator is now: restore it with {@link #setState(State)} to draw the same numbers again. */
  public State getState() {
    long[] pair = nativeState();
    return new State(pair[0], pair[1]);
  }

  /** Moves the generator to state: the next op draws what an op at that position drew before. */
  public void setState(State state) {
    if (state == null) throw new NullPointerException("state is null");
    setState(state.seed(), state.offset());
  }
%}
%typemap(javaimports) TsrTensorMap "import java.util.LinkedHashMap;\nimport java.util.Map;"
%typemap(javacode) TsrTensorMap %{
  /** The tensor called name (torch's state_dict[name]). */
  public Tensor get(String name) { return getByName(name); }

  /** Every tensor by name, in file order; each is a new reference to close. */
  public Map<String, Tensor> tensors() {
    Map<String, Tensor> out = new LinkedHashMap<>();
    for (long i = 0, n = size(); i < n; ++i) out.put(name(i), get(i));
    return out;
  }

  /** The "__metadata__" pairs, in file order. */
  public Map<String, String> metadata() {
    Map<String, String> out = new LinkedHashMap<>();
    for (long i = 0, n = metadataSize(); i < n; ++i) out.put(metadataKey(i), metadataValue(i));
    return out;
  }
%}
%typemap(javacode) TsrTensorList %{
  /** Wraps a new native list, moves its tensors into a Java list and
   * releases the native one (the tensors keep their own references). */
  static java.util.List<Tensor> drain(long cPtr) {
    try (TensorList list = new TensorList(cPtr, true)) {
      int n = (int) list.size();
      java.util.List<Tensor> out = new java.util.ArrayList<>(n);
      for (int i = 0; i < n; ++i) out.add(list.get(i));
      return out;
    }
  }
%}

/* Loads libtessera_jni before any native method runs (NativeLoader). */
%pragma(java) jniclasscode=%{
  static {
    NativeLoader.load();
  }
%}
%pragma(java) jniclassclassmodifiers="final class"
%pragma(java) moduleclassmodifiers="final class"
