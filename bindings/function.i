/* bindings/function.i — custom differentiable functions (function.h).
 * Each language wraps the callbacks in its own idiom; for now Python
 * (python/python_function.i: tessera.autograd.Function). Included at the
 * end of tessera.i. */
#if defined(SWIGPYTHON)
%include "python/python_function.i"
#endif
