# `pip install --no-build-isolation .` from the checkout's root installs the
# Python package tessera (distribution tessera-tensor), exactly as
# `pip install --no-build-isolation ./bindings/python` does: this runs
# bindings/python/setup.py, which builds the native module with CMake.
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bindings", "python", "setup.py"),
               run_name="__main__")
