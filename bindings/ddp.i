/* bindings/ddp.i — DistributedDataParallel's gradient reducer
 * (torch.nn.parallel.DistributedDataParallel) over include/tessera/
 * distributed.h's tsr_ddp_* functions. Included after distributed.i (it
 * takes a ProcessGroup). Python only so far: tessera/nn/_parallel.py is
 * the module wrapper; the other languages have no layer for it yet.
 *
 * The handle class Ddp (tsr_ddp) keeps its group and parameters alive; its
 * hooks reduce during backward passes (no Python runs in them). Creation
 * is collective and runs with the GIL released (TSR_BLOCKING). */

#if defined(SWIGPYTHON)
%{
typedef struct tsr_ddp TsrDdp;
%}

%rename(Ddp) TsrDdp;
%nodefaultctor TsrDdp;
typedef struct {} TsrDdp;
%newobject TsrDdp::create;

%extend TsrDdp {
  ~TsrDdp() { tsr_ddp_release($self); }

  /* DistributedDataParallel(module, process_group, bucket_cap_mb,
   * find_unused_parameters, gradient_as_bucket_view) over params (the
   * module's parameters that require grad, deduplicated); collective. */
  static TsrDdp* create(TsrProcessGroup* pg, TsrTensorList* params, int64_t bucket_cap_bytes,
                        bool find_unused_parameters, bool gradient_as_bucket_view, tsr_ddp_comm_hook comm_hook) {
    if (!params) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "DistributedDataParallel: the parameter list is NULL or closed");
      return NULL;
    }
    tsr_ddp_options o = TSR_DDP_OPTIONS_INIT;
    o.bucket_cap_bytes = bucket_cap_bytes;
    o.find_unused_parameters = find_unused_parameters;
    o.gradient_as_bucket_view = gradient_as_bucket_view;
    o.comm_hook = comm_hook;
    tsr_ddp* out = NULL;
    TSR_BLOCKING(tsr_ddp_create(pg, params->size, params->items, &o, &out));
    return out;
  }
  void set_require_sync(bool require_sync) { tsr_ddp_set_require_sync($self, require_sync); }
  void register_comm_hook(tsr_ddp_comm_hook hook) { tsr_ddp_register_comm_hook($self, hook); }
  /* The names, one per line (parameter names hold no newline). */
  void set_param_names(const char* lines) {
    if (!lines) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "set_param_names: names is NULL");
      return;
    }
    size_t n = 1, len = strlen(lines);
    for (size_t i = 0; i < len; ++i) n += lines[i] == '\n';
    char* copy = (char*)malloc(len + 1);
    const char** names = (const char**)malloc(n * sizeof(char*));
    if (!copy || !names) {
      free(copy);
      free(names);
      tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "set_param_names: out of memory");
      return;
    }
    memcpy(copy, lines, len + 1);
    size_t k = 0;
    names[k++] = copy;
    for (size_t i = 0; i < len; ++i)
      if (copy[i] == '\n') {
        copy[i] = '\0';
        names[k++] = copy + i + 1;
      }
    tsr_ddp_set_param_names($self, (int64_t)n, names);
    free(names);
    free(copy);
  }
  int64_t num_params() { return tsr_ddp_num_params($self); }
  /* The bucket assignment: [n_buckets, the number of parameters of each
   * bucket..., the parameter indices in bucket order...]. */
  tsr_i64_array bucket_indices() {
    tsr_i64_array a = {NULL, -1, 1};
    const int64_t n = tsr_ddp_num_params($self);
    int64_t nb = 0;
    if (n < 0 || tsr_ddp_bucket_indices($self, 0, NULL, NULL, &nb) != TSR_OK) return a;
    int64_t* out = (int64_t*)malloc(sizeof(int64_t) * (size_t)(1 + nb + n));
    if (!out) {
      tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "bucket_indices: out of memory");
      return a;
    }
    out[0] = nb;
    if (tsr_ddp_bucket_indices($self, nb, out + 1, out + 1 + nb, &nb) != TSR_OK) {
      free(out);
      return a;
    }
    a.data = out;
    a.length = 1 + nb + n;
    return a;
  }
}
#endif
