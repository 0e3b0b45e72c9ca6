/* bindings/python/python_optim.i — Python part of bindings/optim.i. The
 * Optimizer and ProfilerResult handles stay SWIG's own -builtin types; the
 * package wraps them in plain Python classes (tessera/optim.py,
 * tessera/profiler.py), whose close() releases them through _release
 * (python.i's tsr_py_release_handle knows both types). */
