/* bindings/optim.i — optimizers (torch.optim), initializers (torch.nn.init)
 * and the profiler (torch.profiler) over include/tessera/optim.h and
 * profiler.h. Included at the end of tessera.i, so tessera.i's conventions
 * hold (error bracket, TSR_RETURN_OUT, the newfree typemap for char*).
 *
 * Handle classes: Optimizer (tsr_optimizer) and ProfilerResult
 * (tsr_profiler_result). Each language's own part (destructor without the
 * error bracket, handle typemaps, names) is in bindings/<lang>/<lang>_optim.i,
 * included first. No default arguments here: each language's hand-written
 * layer supplies torch's defaults. */

%{
typedef struct tsr_optimizer TsrOptimizer;
typedef struct tsr_profiler_result TsrProfilerResult;

/* The parameters of a TensorList as the array tsr_optimizer_* take. */
static int tsr_bind_optim_params(TsrTensorList* params, const char* what) {
  if (!params) {
    tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, what);
    return -1;
  }
  return 0;
}
%}

#if defined(SWIGPYTHON)
%include "python/python_optim.i"
#elif defined(SWIGJAVA)
%include "java/java_optim.i"
#elif defined(SWIGCSHARP)
%include "csharp/csharp_optim.i"
#elif defined(SWIGGO)
%include "go/go_optim.i"
#endif

%rename(Optimizer) TsrOptimizer;
%rename(ProfilerResult) TsrProfilerResult;
%nodefaultctor TsrOptimizer;
%nodefaultctor TsrProfilerResult;
typedef struct {} TsrOptimizer;
typedef struct {} TsrProfilerResult;

%newobject TsrOptimizer::sgd;
%newobject TsrOptimizer::adam;
%newobject TsrOptimizer::adamw;
%newobject TsrOptimizer::state;
%newobject TsrOptimizer::state_dict;
%newobject TsrProfilerResult::table;
%newobject TsrProfilerResult::key_averages_table;

/* ---- Optimizer: torch.optim.SGD / Adam / AdamW, one parameter group -------- */
%extend TsrOptimizer {
  ~TsrOptimizer() { tsr_optimizer_release($self); }

  /* torch.optim.SGD(params, lr, momentum, dampening, weight_decay, nesterov).
   * The optimizer keeps its own reference to each parameter tensor. */
  static TsrOptimizer* sgd(TsrTensorList* params, double lr, double momentum, double dampening,
                           double weight_decay, bool nesterov) {
    if (tsr_bind_optim_params(params, "SGD: the parameter list is NULL or closed") != 0) return NULL;
    tsr_sgd_options o;
    tsr_sgd_options_init(&o);
    o.lr = lr;
    o.momentum = momentum;
    o.dampening = dampening;
    o.weight_decay = weight_decay;
    o.nesterov = nesterov;
    TSR_RETURN_OUT(tsr_optimizer*, NULL,
                   tsr_optimizer_sgd(params->items, (size_t)params->size, &o, &out));
  }
  /* torch.optim.Adam(params, lr, betas=(beta1, beta2), eps, weight_decay, amsgrad). */
  static TsrOptimizer* adam(TsrTensorList* params, double lr, double beta1, double beta2,
                            double eps, double weight_decay, bool amsgrad) {
    if (tsr_bind_optim_params(params, "Adam: the parameter list is NULL or closed") != 0) return NULL;
    tsr_adam_options o;
    tsr_adam_options_init(&o);
    o.lr = lr;
    o.beta1 = beta1;
    o.beta2 = beta2;
    o.eps = eps;
    o.weight_decay = weight_decay;
    o.amsgrad = amsgrad;
    TSR_RETURN_OUT(tsr_optimizer*, NULL,
                   tsr_optimizer_adam(params->items, (size_t)params->size, &o, &out));
  }
  /* torch.optim.AdamW (decoupled weight decay; torch's default 1e-2 is the
   * languages' default). */
  static TsrOptimizer* adamw(TsrTensorList* params, double lr, double beta1, double beta2,
                             double eps, double weight_decay, bool amsgrad) {
    if (tsr_bind_optim_params(params, "AdamW: the parameter list is NULL or closed") != 0) return NULL;
    tsr_adam_options o;
    tsr_adam_options_init(&o);
    o.lr = lr;
    o.beta1 = beta1;
    o.beta2 = beta2;
    o.eps = eps;
    o.weight_decay = weight_decay;
    o.amsgrad = amsgrad;
    TSR_RETURN_OUT(tsr_optimizer*, NULL,
                   tsr_optimizer_adamw(params->items, (size_t)params->size, &o, &out));
  }
  void step() { tsr_optimizer_step($self); }
  void zero_grad(bool set_to_none) { tsr_optimizer_zero_grad($self, set_to_none); }
  void set_lr(double lr) { tsr_optimizer_set_lr($self, lr); }
  double get_lr() { TSR_RETURN_OUT(double, 0, tsr_optimizer_get_lr($self, &out)); }
  /* optimizer.state[params[param_index]][key]: the state tensor itself (new
   * reference), or NULL (None/null/nil) before the first step. */
  TsrTensor* state(int64_t param_index, const char* key) {
    if (param_index < 0) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "Optimizer.state: negative parameter index");
      return NULL;
    }
    TSR_RETURN_TENSOR(tsr_optimizer_state($self, (size_t)param_index, key, &out));
  }
  int64_t num_params() { return tsr_optimizer_num_params($self); }

  /* ---- parameter groups and state_dict (optim.h) ---- */
  /* optimizer.add_param_group({"params": params, key: value, ...}): keys is
   * the option names joined by ',' ("" for none), darray their values. */
  void add_param_group(TsrTensorList* params, const char* keys, const double* darray, int64_t dlength) {
    if (tsr_bind_optim_params(params, "add_param_group: the parameter list is NULL or closed") != 0) return;
    if (!keys) keys = "";
    char* copy = strdup(keys);
    const char* names[64];
    int64_t n = 0;
    if (!copy) {
      tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
      return;
    }
    for (char* k = copy; *copy && k && n < 64;) {
      names[n++] = k;
      k = strchr(k, ',');
      if (k) *k++ = 0;
    }
    if (n != dlength) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "add_param_group: the number of option names and values differ");
    } else {
      tsr_optimizer_add_param_group($self, params->items, (size_t)params->size, names, darray, (size_t)n);
    }
    free(copy);
  }
  int64_t param_group_count() { return tsr_optimizer_param_group_count($self); }
  int64_t param_group_size(int64_t group) { return tsr_optimizer_param_group_size($self, (size_t)group); }
  int64_t group_option_count(int64_t group) { return tsr_optimizer_group_option_count($self, (size_t)group); }
  const char* group_option_key(int64_t group, int64_t i) {
    return tsr_optimizer_group_option_key($self, (size_t)group, (size_t)i);
  }
  double get_group_option(int64_t group, const char* key) {
    TSR_RETURN_OUT(double, 0, tsr_optimizer_get_group_option($self, (size_t)group, key, &out));
  }
  void set_group_option(int64_t group, const char* key, double value) {
    tsr_optimizer_set_group_option($self, (size_t)group, key, value);
  }
  /* The flat state_dict ("state.<i>.<key>", "param_groups.<g>.<option>",
   * "param_groups.<g>.params") as a TensorMap. */
  TsrTensorMap* state_dict() { TSR_RETURN_OUT(tsr_tensor_map*, NULL, tsr_optimizer_state_dict($self, &out)); }
  /* load_state_dict from a named TensorList (a state_dict's entries, or a
   * loaded file's, model tensors included: other names are skipped). */
  void load_state_dict(TsrTensorList* entries) {
    if (tsr_bind_optim_params(entries, "load_state_dict: the list is NULL or closed") != 0) return;
    for (int64_t i = 0; i < entries->size; ++i)
      if (!entries->names || !entries->names[i]) {
        tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "load_state_dict: every entry needs a name");
        return;
      }
    tsr_optimizer_load_state_dict($self, entries->size, (const char* const*)entries->names, entries->items);
  }
}

/* ---- ProfilerResult: what profiler_stop returns ----------------------------- */
%extend TsrProfilerResult {
  ~TsrProfilerResult() { tsr_profiler_result_release($self); }
  /* prof.key_averages().table(sort_by, row_limit); sort_by NULL is
   * "self_cpu_time_total", row_limit < 0 all rows. */
  char* table(const char* sort_by, int64_t row_limit) {
    char* text = NULL;
    tsr_profiler_table($self, sort_by, row_limit, &text);
    return text;
  }
  /* prof.key_averages(group_by_input_shape).table(sort_by, row_limit). */
  char* key_averages_table(bool group_by_input_shape, const char* sort_by, int64_t row_limit) {
    char* text = NULL;
    tsr_profiler_key_averages_table($self, group_by_input_shape, sort_by, row_limit, &text);
    return text;
  }
  void export_chrome_trace(const char* path) { tsr_profiler_export_chrome_trace($self, path); }
  int64_t num_events() { return tsr_profiler_result_num_events($self); }
}

%{
/* torch.profiler.profile(record_shapes, profile_memory).__enter__ / __exit__. */
static void bind_profiler_start(bool record_shapes, bool profile_memory) {
  tsr_profiler_options o;
  tsr_profiler_options_init(&o);
  o.record_shapes = record_shapes;
  o.profile_memory = profile_memory;
  tsr_profiler_start(&o);
}
/* torch.profiler.profile(activities=...): activities is or-ed
 * tsr_profiler_activity bits. */
static void bind_profiler_start_activities(bool record_shapes, bool profile_memory, int activities) {
  tsr_profiler_options o;
  tsr_profiler_options_init(&o);
  o.record_shapes = record_shapes;
  o.profile_memory = profile_memory;
  o.activities = (uint32_t)activities;
  tsr_profiler_start(&o);
}
static TsrProfilerResult* bind_profiler_stop(void) {
  TSR_RETURN_OUT(tsr_profiler_result*, NULL, tsr_profiler_stop(&out));
}

/* torch.nn.init: in place, under no_grad; has_param false is param=None. */
static double bind_init_calculate_gain(const char* nonlinearity, bool has_param, double param) {
  TSR_RETURN_OUT(double, 0, tsr_init_calculate_gain(nonlinearity, has_param ? &param : NULL, &out));
}
static void bind_init_kaiming_uniform(TsrTensor* tensor, double a, const char* mode,
                                      const char* nonlinearity, TsrGenerator* generator) {
  tsr_init_kaiming_uniform_(tensor, a, mode, nonlinearity, generator);
}
static void bind_init_xavier_uniform(TsrTensor* tensor, double gain, TsrGenerator* generator) {
  tsr_init_xavier_uniform_(tensor, gain, generator);
}
static void bind_init_zeros(TsrTensor* tensor) { tsr_init_zeros_(tensor); }
static void bind_init_normal(TsrTensor* tensor, double mean, double std, TsrGenerator* generator) {
  tsr_init_normal_(tensor, mean, std, generator);
}
static void bind_init_uniform(TsrTensor* tensor, double a, double b, TsrGenerator* generator) {
  tsr_init_uniform_(tensor, a, b, generator);
}
%}

%rename(profiler_start) bind_profiler_start;
void bind_profiler_start(bool record_shapes, bool profile_memory);
%rename(profiler_start_activities) bind_profiler_start_activities;
void bind_profiler_start_activities(bool record_shapes, bool profile_memory, int activities);
%newobject bind_profiler_stop;
%rename(profiler_stop) bind_profiler_stop;
TsrProfilerResult* bind_profiler_stop(void);
%rename(init_calculate_gain) bind_init_calculate_gain;
double bind_init_calculate_gain(const char* nonlinearity, bool has_param, double param);
%rename(init_kaiming_uniform) bind_init_kaiming_uniform;
void bind_init_kaiming_uniform(TsrTensor* tensor, double a, const char* mode, const char* nonlinearity, TsrGenerator* generator);
%rename(init_xavier_uniform) bind_init_xavier_uniform;
void bind_init_xavier_uniform(TsrTensor* tensor, double gain, TsrGenerator* generator);
%rename(init_zeros) bind_init_zeros;
void bind_init_zeros(TsrTensor* tensor);
%rename(init_normal) bind_init_normal;
void bind_init_normal(TsrTensor* tensor, double mean, double std, TsrGenerator* generator);
%rename(init_uniform) bind_init_uniform;
void bind_init_uniform(TsrTensor* tensor, double a, double b, TsrGenerator* generator);
