/* bindings/go/go_optim.i — Go part of bindings/optim.i: the two handles are
 * uintptrs like the others (go.i), wrapped by optim.go and profiler.go in
 * structs with a finalizer and Close. */
%noexception TsrOptimizer::~TsrOptimizer;
%noexception TsrProfilerResult::~TsrProfilerResult;
%typemap(gotype) TsrOptimizer*, TsrProfilerResult* "uintptr"
