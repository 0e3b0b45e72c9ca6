/* bindings/java/java_function.i — org.tessera.Function over function.h.
 * Java-only (included by bindings/function.i).
 *
 * One apply's state is a Java object, the record (FunctionApply.java): the
 * definition's user_data is a JNI global reference to it, deleted by
 * release_user_data when the library no longer needs it (graph and
 * checkpoint tape gone). The C callbacks below call the record's
 * forward(ctx, inputs, maxOutputs) / backward(ctx, grads, nInputs) on the
 * calling thread; tensors cross as raw tsr_tensor* values in long[]: the
 * record wraps each in a Tensor owning a new reference, and returns new
 * references (FunctionNative.retain) for the C out slots.
 *
 * A Java exception thrown there must not unwind through the library: the
 * callback clears it, keeps it for the wrapped call that entered C on this
 * thread (tsr_java_keep_error, java.i), records its status and message
 * with tsr_set_last_error and returns that status; the entry point then
 * throws the original exception (tsr_java_fail).
 *
 * The natives are hand-written JNI functions of org.tessera.FunctionNative
 * rather than SWIG wrappers: SWIG has no typemap for arrays of tensor
 * pointers, and the record is an arbitrary Java object. Each follows the
 * same error bracket as the SWIG wrappers. */

%{
#include <atomic>
#include <tessera/function.h>

/* FunctionApply's callbacks and its failure description, cached by
 * FunctionNative.init() (its static initializer: once, under the class
 * initialization lock). */
static jclass tsr_java_fn_class;
static jmethodID tsr_java_fn_forward_method;
static jmethodID tsr_java_fn_backward_method;
static jmethodID tsr_java_fn_status_method;
static jmethodID tsr_java_fn_message_method;
/* Records the library holds (applied, not yet released): a leak check. */
static std::atomic<long long> tsr_java_fn_live{0};

/* The most tensors one call takes or gives (function.h's limit). */
#define TSR_JAVA_FN_MAX 64

/* The calling thread's JNIEnv. The library calls back on the thread that
 * called it, a Java thread here; a native thread (a C caller running
 * backward) is attached as a daemon, so it never holds the VM open. */
static JNIEnv* tsr_java_callback_env(void) {
  JNIEnv* env = NULL;
  if (!tsr_java_vm) return NULL;
  jint got = tsr_java_vm->GetEnv((void**)&env, JNI_VERSION_1_8);
  if (got == JNI_EDETACHED && tsr_java_vm->AttachCurrentThreadAsDaemon((void**)&env, NULL) != JNI_OK) return NULL;
  return env;
}

/* Starts a hand-written native as the SWIG bracket does. */
static void tsr_java_fn_begin(JNIEnv* env) {
  tsr_bind_clear();
  if (tsr_java_kept_error) tsr_java_keep_error(env, NULL);
}

/* Ends one: false (with the exception thrown) when status is a failure. */
static bool tsr_java_fn_ok(JNIEnv* env, tsr_status status) {
  if (status == TSR_OK) return true;
  tsr_java_fail(env, status, tsr_last_error_message());
  return false;
}

/* The tensors of a long[] of tsr_tensor* (borrowed); false, with the
 * exception thrown, for more than TSR_JAVA_FN_MAX. */
static bool tsr_java_fn_pointers(JNIEnv* env, jlongArray array, int64_t* n, tsr_tensor** out) {
  jsize len = env->GetArrayLength(array);
  if (len > TSR_JAVA_FN_MAX) {
    tsr_java_throw(env, TSR_ERR_INVALID_ARGUMENT, "at most 64 tensors per call");
    return false;
  }
  jlong values[TSR_JAVA_FN_MAX];
  env->GetLongArrayRegion(array, 0, len, values);
  for (jsize i = 0; i < len; ++i) out[i] = (tsr_tensor*)(intptr_t)values[i];
  *n = len;
  return true;
}

/* A long[] of tsr_tensor* (the references pass to the caller). */
static jlongArray tsr_java_fn_array(JNIEnv* env, int64_t n, tsr_tensor* const* tensors) {
  jlongArray array = env->NewLongArray((jsize)n);
  if (!array) return NULL; /* OutOfMemoryError pending */
  jlong values[TSR_JAVA_FN_MAX];
  for (int64_t i = 0; i < n; ++i) values[i] = (jlong)(intptr_t)tensors[i];
  env->SetLongArrayRegion(array, 0, (jsize)n, values);
  return array;
}

/* The pending Java exception as the callback's failure: kept for the entry
 * point, its status (a TesseraException's own, else INVALID_ARGUMENT) and
 * description recorded as the last error. */
static tsr_status tsr_java_fn_failed(JNIEnv* env) {
  jthrowable error = env->ExceptionOccurred();
  env->ExceptionClear();
  if (!error) {
    tsr_set_last_error(TSR_ERR_INTERNAL, "the Java callback returned no result");
    return TSR_ERR_INTERNAL;
  }
  tsr_java_keep_error(env, error);
  jint status = env->CallStaticIntMethod(tsr_java_fn_class, tsr_java_fn_status_method, error);
  jbyteArray text = env->ExceptionCheck()
                        ? NULL
                        : (jbyteArray)env->CallStaticObjectMethod(tsr_java_fn_class, tsr_java_fn_message_method, error);
  if (env->ExceptionCheck()) { /* out of memory describing it: the kept exception still says it all */
    env->ExceptionClear();
    status = TSR_ERR_INVALID_ARGUMENT;
    text = NULL;
  }
  char* message = NULL;
  if (text) {
    jsize n = env->GetArrayLength(text);
    message = (char*)malloc((size_t)n + 1);
    if (message) {
      env->GetByteArrayRegion(text, 0, n, (jbyte*)message);
      message[n] = '\0';
    }
  }
  tsr_set_last_error((tsr_status)status, message ? message : "a Java exception");
  free(message);
  return (tsr_status)status;
}

/* Releases count new references a record handed back, on a failure. */
static void tsr_java_fn_release_all(JNIEnv* env, jlongArray array, jsize count) {
  jlong values[TSR_JAVA_FN_MAX];
  if (count > TSR_JAVA_FN_MAX) count = TSR_JAVA_FN_MAX; /* the record never returns more */
  env->GetLongArrayRegion(array, 0, count, values);
  for (jsize i = 0; i < count; ++i) tsr_tensor_release((tsr_tensor*)(intptr_t)values[i]);
}

/* Calls record.method(ctx, tensors, limit): a long[] of new references, or
 * NULL with the failure recorded. */
static jlongArray tsr_java_fn_call(JNIEnv* env, void* record, jmethodID method, tsr_function_ctx* ctx, int64_t n,
                                   tsr_tensor* const* tensors, int64_t limit, tsr_status* status) {
  jlongArray in = tsr_java_fn_array(env, n, tensors);
  jlongArray result = in ? (jlongArray)env->CallObjectMethod((jobject)record, method, (jlong)(intptr_t)ctx, in,
                                                            (jint)limit)
                         : NULL;
  if (env->ExceptionCheck() || !result) {
    *status = tsr_java_fn_failed(env);
    return NULL;
  }
  return result;
}

static tsr_status tsr_java_fn_forward(tsr_function_ctx* ctx, int64_t n_inputs, tsr_tensor* const* inputs,
                                      int64_t max_outputs, int64_t* n_outputs, tsr_tensor** outputs, void* record) {
  JNIEnv* env = tsr_java_callback_env();
  if (!env || env->PushLocalFrame(8) != 0) {
    if (env) env->ExceptionClear();
    tsr_set_last_error(TSR_ERR_INTERNAL, "cannot call the Java forward on this thread");
    return TSR_ERR_INTERNAL;
  }
  if (max_outputs > TSR_JAVA_FN_MAX) max_outputs = TSR_JAVA_FN_MAX;
  tsr_status status = TSR_OK;
  jlongArray result = tsr_java_fn_call(env, record, tsr_java_fn_forward_method, ctx, n_inputs, inputs, max_outputs,
                                       &status);
  if (result) {
    jsize n = env->GetArrayLength(result);
    if (n > max_outputs) { /* the record checks the count; this guards the slots */
      tsr_java_fn_release_all(env, result, n);
      tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "forward returned more outputs than allowed");
      status = TSR_ERR_INVALID_ARGUMENT;
    } else {
      jlong values[TSR_JAVA_FN_MAX];
      env->GetLongArrayRegion(result, 0, n, values);
      for (jsize i = 0; i < n; ++i) outputs[i] = (tsr_tensor*)(intptr_t)values[i];
      *n_outputs = n;
    }
  }
  env->PopLocalFrame(NULL);
  tsr_bind_code = TSR_OK; /* failures of wrapped calls inside were the record's to handle */
  return status;
}

static tsr_status tsr_java_fn_backward(tsr_function_ctx* ctx, int64_t n_grads, tsr_tensor* const* grads,
                                       int64_t n_inputs, tsr_tensor** grad_inputs, void* record) {
  JNIEnv* env = tsr_java_callback_env();
  if (!env || env->PushLocalFrame(8) != 0) {
    if (env) env->ExceptionClear();
    tsr_set_last_error(TSR_ERR_INTERNAL, "cannot call the Java backward on this thread");
    return TSR_ERR_INTERNAL;
  }
  tsr_status status = TSR_OK;
  jlongArray result = tsr_java_fn_call(env, record, tsr_java_fn_backward_method, ctx, n_grads, grads, n_inputs,
                                       &status);
  if (result) {
    jsize n = env->GetArrayLength(result);
    if (n != n_inputs) { /* the record checks the count; this guards the slots */
      tsr_java_fn_release_all(env, result, n);
      tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "backward returned a wrong number of gradients");
      status = TSR_ERR_INVALID_ARGUMENT;
    } else {
      jlong values[TSR_JAVA_FN_MAX];
      env->GetLongArrayRegion(result, 0, n, values);
      for (jsize i = 0; i < n; ++i) grad_inputs[i] = (tsr_tensor*)(intptr_t)values[i];
    }
  }
  env->PopLocalFrame(NULL);
  tsr_bind_code = TSR_OK;
  return status;
}

/* The library is done with the record: it may run on any thread that drops
 * the last reference to the graph (a Cleaner's included). */
static void tsr_java_fn_release(void* record) {
  JNIEnv* env = tsr_java_callback_env();
  if (env) env->DeleteGlobalRef((jobject)record);
  tsr_java_fn_live.fetch_sub(1, std::memory_order_relaxed);
}

extern "C" {

JNIEXPORT void JNICALL Java_org_tessera_FunctionNative_init(JNIEnv* env, jclass) {
  jclass record = env->FindClass("org/tessera/FunctionApply");
  if (!record) return;
  tsr_java_fn_forward_method = env->GetMethodID(record, "forward", "(J[JI)[J");
  tsr_java_fn_backward_method = env->GetMethodID(record, "backward", "(J[JI)[J");
  tsr_java_fn_status_method = env->GetStaticMethodID(record, "failureStatus", "(Ljava/lang/Throwable;)I");
  tsr_java_fn_message_method = env->GetStaticMethodID(record, "failureMessage", "(Ljava/lang/Throwable;)[B");
  if (!tsr_java_fn_forward_method || !tsr_java_fn_backward_method || !tsr_java_fn_status_method ||
      !tsr_java_fn_message_method)
    return; /* NoSuchMethodError pending */
  tsr_java_fn_class = (jclass)env->NewGlobalRef(record);
}

JNIEXPORT jlong JNICALL Java_org_tessera_FunctionNative_retain(JNIEnv*, jclass, jlong tensor) {
  tsr_tensor_retain((tsr_tensor*)(intptr_t)tensor);
  return tensor;
}

JNIEXPORT jlong JNICALL Java_org_tessera_FunctionNative_liveRecords(JNIEnv*, jclass) {
  return (jlong)tsr_java_fn_live.load(std::memory_order_relaxed);
}

JNIEXPORT jlongArray JNICALL Java_org_tessera_FunctionNative_apply(JNIEnv* env, jclass, jobject record,
                                                                 jbyteArray name, jlongArray inputs) {
  tsr_java_fn_begin(env);
  tsr_java_heap name_copy;
  char* c_name = NULL;
  if (tsr_java_c_string(env, name, &c_name) != 0) return NULL;
  name_copy.p = c_name;
  tsr_tensor* in[TSR_JAVA_FN_MAX];
  int64_t n_in = 0;
  if (!tsr_java_fn_pointers(env, inputs, &n_in, in)) return NULL;
  jobject kept = env->NewGlobalRef(record);
  if (!kept) return NULL; /* OutOfMemoryError pending */
  tsr_java_fn_live.fetch_add(1, std::memory_order_relaxed);
  tsr_function_def def = TSR_FUNCTION_DEF_INIT;
  def.name = c_name;
  def.forward = tsr_java_fn_forward;
  def.backward = tsr_java_fn_backward;
  def.user_data = kept;
  def.release_user_data = tsr_java_fn_release; /* also when apply fails */
  tsr_tensor* out[TSR_JAVA_FN_MAX];
  int64_t n_out = 0;
  if (!tsr_java_fn_ok(env, tsr_function_apply(&def, n_in, in, TSR_JAVA_FN_MAX, &n_out, out))) return NULL;
  jlongArray result = tsr_java_fn_array(env, n_out, out);
  if (!result)
    for (int64_t i = 0; i < n_out; ++i) tsr_tensor_release(out[i]);
  return result;
}

JNIEXPORT void JNICALL Java_org_tessera_FunctionNative_saveForBackward(JNIEnv* env, jclass, jlong ctx,
                                                                     jlongArray tensors) {
  tsr_java_fn_begin(env);
  tsr_tensor* list[TSR_JAVA_FN_MAX];
  int64_t n = 0;
  if (!tsr_java_fn_pointers(env, tensors, &n, list)) return;
  tsr_java_fn_ok(env, tsr_function_ctx_save_for_backward((tsr_function_ctx*)(intptr_t)ctx, n, list));
}

JNIEXPORT jlongArray JNICALL Java_org_tessera_FunctionNative_savedTensors(JNIEnv* env, jclass, jlong ctx) {
  tsr_java_fn_begin(env);
  tsr_tensor* list[TSR_JAVA_FN_MAX];
  int64_t n = 0;
  if (!tsr_java_fn_ok(env, tsr_function_ctx_saved_tensors((tsr_function_ctx*)(intptr_t)ctx, TSR_JAVA_FN_MAX, &n,
                                                          list)))
    return NULL;
  jlongArray result = tsr_java_fn_array(env, n, list);
  if (!result)
    for (int64_t i = 0; i < n; ++i) tsr_tensor_release(list[i]);
  return result;
}

JNIEXPORT jboolean JNICALL Java_org_tessera_FunctionNative_needsInputGrad(JNIEnv* env, jclass, jlong ctx,
                                                                        jlong i) {
  tsr_java_fn_begin(env);
  bool out = false;
  tsr_java_fn_ok(env, tsr_function_ctx_needs_input_grad((tsr_function_ctx*)(intptr_t)ctx, i, &out));
  return out ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT void JNICALL Java_org_tessera_FunctionNative_mark(JNIEnv* env, jclass, jlong ctx, jboolean dirty,
                                                          jlongArray tensors) {
  tsr_java_fn_begin(env);
  tsr_tensor* list[TSR_JAVA_FN_MAX];
  int64_t n = 0;
  if (!tsr_java_fn_pointers(env, tensors, &n, list)) return;
  tsr_function_ctx* c = (tsr_function_ctx*)(intptr_t)ctx;
  tsr_java_fn_ok(env, dirty ? tsr_function_ctx_mark_dirty(c, n, list)
                            : tsr_function_ctx_mark_non_differentiable(c, n, list));
}

JNIEXPORT void JNICALL Java_org_tessera_FunctionNative_setMaterializeGrads(JNIEnv* env, jclass, jlong ctx,
                                                                         jboolean value) {
  tsr_java_fn_begin(env);
  tsr_java_fn_ok(env, tsr_function_ctx_set_materialize_grads((tsr_function_ctx*)(intptr_t)ctx, value == JNI_TRUE));
}

} /* extern "C" */
%}
