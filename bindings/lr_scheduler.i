/* bindings/lr_scheduler.i — Learning-rate schedulers (torch.optim.lr_scheduler).
 * Over include/tessera/lr_scheduler.h. Included at the end of tessera.i, so
 * tessera.i's conventions hold (error bracket, TSR_RETURN_OUT, array
 * typemaps).
 *
 * Handle class: LrScheduler (tsr_lr_scheduler); each language's handle
 * treatment sits with Optimizer's (bindings/<lang>/<lang>_optim.i, and
 * python.i / csharp.i's handle lists). No default arguments: each
 * language's layer supplies torch's. SequentialLR takes up to four
 * children here (s0..s3, NULL for none): an array of handles does not
 * cross SWIG in the four languages alike; the C API takes any number. */

%{
typedef struct tsr_lr_scheduler TsrLrScheduler;
%}

/* Before the class: SWIG applies a typemap to a struct's %extend methods
 * only if it was in place when the struct was declared. */
%apply (const double* darray, int64_t dlength) {
  (const double* max_lr, int64_t n_max_lr),
  (const double* base_momentum, int64_t n_base_momentum),
  (const double* max_momentum, int64_t n_max_momentum)
};
%apply (const tsr_i64* array, int64_t length) { (const tsr_i64* milestones, int64_t n_milestones) };
%apply (const double* darray, int64_t dlength) {
  (const double* base_lrs, int64_t n_base_lrs),
  (const double* last_lr, int64_t n_last_lr)
};

%rename(LrScheduler) TsrLrScheduler;
%nodefaultctor TsrLrScheduler;
typedef struct {} TsrLrScheduler;


%newobject TsrLrScheduler::step_lr;
%newobject TsrLrScheduler::multi_step_lr;
%newobject TsrLrScheduler::exponential_lr;
%newobject TsrLrScheduler::cosine_annealing_lr;
%newobject TsrLrScheduler::linear_lr;
%newobject TsrLrScheduler::one_cycle_lr;
%newobject TsrLrScheduler::sequential_lr;

%extend TsrLrScheduler {
  ~TsrLrScheduler() { tsr_lr_scheduler_release($self); }

  /* StepLR(optimizer, step_size, gamma, last_epoch). */
  static TsrLrScheduler* step_lr(TsrOptimizer* optimizer, int64_t step_size, double gamma, int64_t last_epoch) {
    TSR_RETURN_OUT(tsr_lr_scheduler*, NULL,
                   tsr_lr_scheduler_step_lr(optimizer, step_size, gamma, last_epoch, &out));
  }
  /* MultiStepLR(optimizer, milestones, gamma, last_epoch). */
  static TsrLrScheduler* multi_step_lr(TsrOptimizer* optimizer, const tsr_i64* milestones, int64_t n_milestones,
                                       double gamma, int64_t last_epoch) {
    TSR_RETURN_OUT(tsr_lr_scheduler*, NULL,
                   tsr_lr_scheduler_multi_step_lr(optimizer, (const int64_t*)milestones, (size_t)n_milestones,
                                                  gamma, last_epoch, &out));
  }
  /* ExponentialLR(optimizer, gamma, last_epoch). */
  static TsrLrScheduler* exponential_lr(TsrOptimizer* optimizer, double gamma, int64_t last_epoch) {
    TSR_RETURN_OUT(tsr_lr_scheduler*, NULL, tsr_lr_scheduler_exponential_lr(optimizer, gamma, last_epoch, &out));
  }
  /* CosineAnnealingLR(optimizer, T_max, eta_min, last_epoch). */
  static TsrLrScheduler* cosine_annealing_lr(TsrOptimizer* optimizer, int64_t t_max, double eta_min,
                                             int64_t last_epoch) {
    TSR_RETURN_OUT(tsr_lr_scheduler*, NULL,
                   tsr_lr_scheduler_cosine_annealing_lr(optimizer, t_max, eta_min, last_epoch, &out));
  }
  /* LinearLR(optimizer, start_factor, end_factor, total_iters, last_epoch). */
  static TsrLrScheduler* linear_lr(TsrOptimizer* optimizer, double start_factor, double end_factor,
                                   int64_t total_iters, int64_t last_epoch) {
    TSR_RETURN_OUT(tsr_lr_scheduler*, NULL,
                   tsr_lr_scheduler_linear_lr(optimizer, start_factor, end_factor, total_iters, last_epoch, &out));
  }
  /* OneCycleLR: total_steps 0 for epochs * steps_per_epoch; linear selects
   * anneal_strategy 'linear'; empty momentum arrays take torch's defaults. */
  static TsrLrScheduler* one_cycle_lr(TsrOptimizer* optimizer, const double* max_lr, int64_t n_max_lr,
                                      int64_t total_steps, int64_t epochs, int64_t steps_per_epoch,
                                      double pct_start, bool linear, bool cycle_momentum,
                                      const double* base_momentum, int64_t n_base_momentum,
                                      const double* max_momentum, int64_t n_max_momentum, double div_factor,
                                      double final_div_factor, bool three_phase, int64_t last_epoch) {
    tsr_one_cycle_options o;
    tsr_one_cycle_options_init(&o);
    o.max_lr = max_lr;
    o.num_max_lr = (size_t)n_max_lr;
    o.total_steps = total_steps;
    o.epochs = epochs;
    o.steps_per_epoch = steps_per_epoch;
    o.pct_start = pct_start;
    o.anneal_strategy = linear ? TSR_ANNEAL_LINEAR : TSR_ANNEAL_COS;
    o.cycle_momentum = cycle_momentum;
    if (n_base_momentum > 0) {
      o.base_momentum = base_momentum;
      o.num_base_momentum = (size_t)n_base_momentum;
    }
    if (n_max_momentum > 0) {
      o.max_momentum = max_momentum;
      o.num_max_momentum = (size_t)n_max_momentum;
    }
    o.div_factor = div_factor;
    o.final_div_factor = final_div_factor;
    o.three_phase = three_phase;
    o.last_epoch = last_epoch;
    TSR_RETURN_OUT(tsr_lr_scheduler*, NULL, tsr_lr_scheduler_one_cycle_lr(optimizer, &o, &out));
  }
  /* SequentialLR(optimizer, [s0, s1, ...], milestones, last_epoch) with up
   * to four children: the first count of s0..s3. */
  static TsrLrScheduler* sequential_lr(TsrOptimizer* optimizer, int64_t count, TsrLrScheduler* s0,
                                       TsrLrScheduler* s1, TsrLrScheduler* s2, TsrLrScheduler* s3,
                                       const tsr_i64* milestones, int64_t n_milestones, int64_t last_epoch) {
    if (count < 0 || count > 4) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "SequentialLR: the bindings take 1 to 4 schedulers");
      return NULL;
    }
    tsr_lr_scheduler* kids[4] = {s0, s1, s2, s3};
    TSR_RETURN_OUT(tsr_lr_scheduler*, NULL,
                   tsr_lr_scheduler_sequential_lr(optimizer, kids, (size_t)count, (const int64_t*)milestones,
                                                  (size_t)n_milestones, last_epoch, &out));
  }
  void step() { tsr_lr_scheduler_step($self); }
  void step_epoch(int64_t epoch) { tsr_lr_scheduler_step_epoch($self, epoch); }
  /* get_last_lr(): one value per group. */
  tsr_f64_array get_last_lr() {
    tsr_f64_array a = {NULL, 0};
    size_t n = 0;
    if (tsr_lr_scheduler_get_last_lr($self, NULL, 0, &n) != TSR_OK) return a;
    a.data = (double*)malloc((n ? n : 1) * sizeof(double));
    if (!a.data) {
      tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
      return a;
    }
    tsr_lr_scheduler_get_last_lr($self, a.data, n, &n);
    a.length = (int64_t)n;
    return a;
  }
  int64_t last_epoch() { return tsr_lr_scheduler_last_epoch($self); }
  /* _step_count (0 for a SequentialLR). */
  int64_t step_count() {
    int64_t e = 0, c = 0;
    size_t n = 0;
    tsr_lr_scheduler_get_state($self, &e, &c, NULL, 0, &n);
    return c;
  }
  /* base_lrs (empty for a SequentialLR). */
  tsr_f64_array base_lrs() {
    tsr_f64_array a = {NULL, 0};
    int64_t e = 0, c = 0;
    size_t n = 0;
    if (tsr_lr_scheduler_get_state($self, &e, &c, NULL, 0, &n) != TSR_OK) return a;
    a.data = (double*)malloc((n ? n : 1) * sizeof(double));
    if (!a.data) {
      tsr_bind_fail(TSR_ERR_OUT_OF_MEMORY, "out of memory");
      return a;
    }
    tsr_lr_scheduler_get_state($self, &e, &c, a.data, n, &n);
    a.length = (int64_t)n;
    return a;
  }
  /* load_state_dict's restore (tsr_lr_scheduler_set_state). */
  void set_state(int64_t last_epoch, int64_t step_count, const double* base_lrs, int64_t n_base_lrs,
                 const double* last_lr, int64_t n_last_lr) {
    tsr_lr_scheduler_set_state($self, last_epoch, step_count, base_lrs, (size_t)n_base_lrs, last_lr,
                               (size_t)n_last_lr);
  }
}
