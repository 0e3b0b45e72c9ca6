/* bindings/grad_scaler.i — gradient scaling (torch.cuda.amp.GradScaler) over
 * include/tessera/grad_scaler.h. Included at the end of tessera.i, after
 * optim.i (it takes an Optimizer), so tessera.i's conventions hold (error
 * bracket, TSR_RETURN_OUT, TensorList for named tensors).
 *
 * Handle class: GradScaler (tsr_grad_scaler); each language's handle
 * treatment sits with Optimizer's (bindings/<lang>/<lang>_optim.i, and
 * python.i / csharp.i's handle lists). No default arguments: each
 * language's layer supplies torch's (init_scale 2**16, growth_factor 2,
 * backoff_factor 0.5, growth_interval 2000, enabled). */

%{
typedef struct tsr_grad_scaler TsrGradScaler;
%}

%rename(GradScaler) TsrGradScaler;
%nodefaultctor TsrGradScaler;
typedef struct {} TsrGradScaler;

%newobject TsrGradScaler::create;
%newobject TsrGradScaler::scale;
%newobject TsrGradScaler::state_dict;

%extend TsrGradScaler {
  ~TsrGradScaler() { tsr_grad_scaler_release($self); }

  /* GradScaler(init_scale, growth_factor, backoff_factor, growth_interval, enabled). */
  static TsrGradScaler* create(double init_scale, double growth_factor, double backoff_factor,
                               int64_t growth_interval, bool enabled) {
    tsr_grad_scaler_options o = TSR_GRAD_SCALER_OPTIONS_INIT;
    o.init_scale = init_scale;
    o.growth_factor = growth_factor;
    o.backoff_factor = backoff_factor;
    o.growth_interval = growth_interval;
    o.enabled = enabled;
    TSR_RETURN_OUT(tsr_grad_scaler*, NULL, tsr_grad_scaler_create(&o, &out));
  }
  /* scale(outputs) of one tensor: outputs * scale (outputs itself when
   * disabled). */
  TsrTensor* scale(TsrTensor* outputs) { TSR_RETURN_TENSOR(tsr_grad_scaler_scale($self, outputs, &out)); }
  void unscale_(TsrOptimizer* optimizer) { tsr_grad_scaler_unscale_($self, optimizer); }
  /* step(optimizer): whether the optimizer stepped (false: skipped). */
  bool step(TsrOptimizer* optimizer) { TSR_RETURN_OUT(bool, false, tsr_grad_scaler_step($self, optimizer, &out)); }
  /* step(optimizer) up to the optimizer's step: whether the caller must run it. */
  bool step_deferred(TsrOptimizer* optimizer) {
    TSR_RETURN_OUT(bool, false, tsr_grad_scaler_step_deferred($self, optimizer, &out));
  }
  void update() { tsr_grad_scaler_update($self); }
  /* update(new_scale). */
  void update_scale(double new_scale) { tsr_grad_scaler_update_scale($self, new_scale); }
  double get_scale() { TSR_RETURN_OUT(double, 0, tsr_grad_scaler_get_scale($self, &out)); }
  double get_growth_factor() { TSR_RETURN_OUT(double, 0, tsr_grad_scaler_get_growth_factor($self, &out)); }
  void set_growth_factor(double value) { tsr_grad_scaler_set_growth_factor($self, value); }
  double get_backoff_factor() { TSR_RETURN_OUT(double, 0, tsr_grad_scaler_get_backoff_factor($self, &out)); }
  void set_backoff_factor(double value) { tsr_grad_scaler_set_backoff_factor($self, value); }
  int64_t get_growth_interval() { TSR_RETURN_OUT(int64_t, 0, tsr_grad_scaler_get_growth_interval($self, &out)); }
  void set_growth_interval(int64_t value) { tsr_grad_scaler_set_growth_interval($self, value); }
  /* _get_growth_tracker(). */
  int64_t get_growth_tracker() { TSR_RETURN_OUT(int64_t, 0, tsr_grad_scaler_get_growth_tracker($self, &out)); }
  bool is_enabled() { TSR_RETURN_OUT(bool, false, tsr_grad_scaler_is_enabled($self, &out)); }
  /* state_dict() as a TensorMap ("scale", "growth_factor", ...). */
  TsrTensorMap* state_dict() { TSR_RETURN_OUT(tsr_tensor_map*, NULL, tsr_grad_scaler_state_dict($self, &out)); }
  /* load_state_dict from a named TensorList (other names are skipped). */
  void load_state_dict(TsrTensorList* entries) {
    if (!entries) {
      tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "load_state_dict: the list is NULL or closed");
      return;
    }
    for (int64_t i = 0; i < entries->size; ++i)
      if (!entries->names || !entries->names[i]) {
        tsr_bind_fail(TSR_ERR_INVALID_ARGUMENT, "load_state_dict: every entry needs a name");
        return;
      }
    tsr_grad_scaler_load_state_dict($self, entries->size, (const char* const*)entries->names, entries->items);
  }
}
