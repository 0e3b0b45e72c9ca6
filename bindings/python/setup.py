# bindings/python/setup.py — `pip install` from a tessera checkout:
#
#     pip install --no-build-isolation ./bindings/python     (or `.` from the root)
#
# builds the native module tessera._core through CMake, as the CMake build
# does, and installs it with the Python package. build_ext configures the
# checkout with only the library and the Python module (no tests, no CUDA
# plugin) into <checkout>/build-pip (TESSERA_BUILD_DIR moves it; a rerun is
# incremental), builds the target tessera_python_wheel_tree, which lays out
# the wheel's tree (bindings/python/wheel-tree.cmake: _core with its RUNPATH
# set to exactly $ORIGIN, libtessera.so.<major> beside it, both stripped),
# and copies _core and libtessera from there into the package pip installs;
# build_py copies the .py files, stubs and py.typed as usual. Nothing is
# downloaded: the build needs cmake, swig, a C and C++ compiler, Python's
# headers and the library's dependencies (scripts/install-deps), and
# refuses with the CMake recipe when one is missing.
#
# --no-build-isolation: otherwise pip first downloads setuptools and wheel
# into a fresh environment (and fails offline).
#
# TESSERA_CMAKE_ARGS adds configure arguments (shell words), after this
# script's own, so they win: TESSERA_CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Debug".
# ccache is used when it is on PATH (-DCMAKE_CXX_COMPILER_LAUNCHER= in
# TESSERA_CMAKE_ARGS turns it off).
#
# The distribution is named tessera-tensor: `tessera` on the Python package
# index is an unrelated project. `import tessera` is unchanged. The wheel the
# CMake build makes (setup.py.in, target tessera_python_wheel) packages the
# same files, built by the CMake build itself.
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.errors import ExecError, PlatformError

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))  # the checkout: bindings/python/..
PACKAGE_SOURCE = os.path.join(HERE, "tessera")
# What the CMake build makes; named in every refusal as the way that works.
CMAKE_RECIPE = (
    "    cmake -S {root} -B {root}/build && cmake --build {root}/build --target tessera_python_wheel\n"
    "    pip install {root}/build/bindings/python/dist/tessera_tensor-*.whl")


def build_error(what):
    """The message a refused build ends with: what is missing or failed, and
    the CMake build that makes the same wheel."""
    return (f"tessera-tensor: cannot build the native module tessera._core from source: {what}.\n"
            "It is built with CMake; the same build by hand, and the wheel it makes:\n"
            + CMAKE_RECIPE.format(root=ROOT) +
            "\n(scripts/install-deps installs what the build needs on Debian; "
            "see bindings/python/README.md.)")


def project_metadata(root=ROOT):
    """(version, description) from the top CMakeLists.txt's project(), which
    the CMake-built wheel takes them from too."""
    try:
        with open(os.path.join(root, "CMakeLists.txt")) as f:
            text = f.read()
    except OSError:
        raise SystemExit(build_error(f"{root} is not a tessera checkout (no CMakeLists.txt): "
                                     "this setup.py builds from the checkout around it"))
    match = re.search(r'project\(tessera\s+VERSION\s+([0-9.]+).*?DESCRIPTION\s+"([^"]*)"', text, re.S)
    if not match:
        raise SystemExit(build_error(f"no project(tessera VERSION ... DESCRIPTION ...) in "
                                     f"{root}/CMakeLists.txt"))
    return match.group(1), match.group(2)


def missing_tools(environ=None, path=None, python_include=None):
    """The tools the CMake build needs that are not here, as words for the
    message: cmake, swig, a C and a C++ compiler (CC/CXX or the usual names
    on PATH) and Python.h (python3-dev) for this interpreter."""
    environ = os.environ if environ is None else environ
    path = environ.get("PATH", os.defpath) if path is None else path
    python_include = sysconfig.get_paths()["include"] if python_include is None else python_include

    def found(*names):
        return any(shutil.which(n, path=path) for n in names)

    missing = []
    if not found("cmake"):
        missing.append("cmake (3.25 or later)")
    if not found("swig", "swig4.0"):
        missing.append("swig (4.0 or later)")
    # CMake takes CC/CXX (a command, maybe with arguments) before PATH.
    if not (environ.get("CC") and found(shlex.split(environ["CC"])[0])) and not found("cc", "gcc", "clang"):
        missing.append("a C compiler (cc, gcc or clang; or CC)")
    if not (environ.get("CXX") and found(shlex.split(environ["CXX"])[0])) and \
            not found("c++", "g++", "clang++"):
        missing.append("a C++ compiler (c++, g++ or clang++; or CXX)")
    if not os.path.isfile(os.path.join(python_include, "Python.h")):
        missing.append(f"Python.h for {sys.executable} (python3-dev), looked for in {python_include}")
    return missing


def missing_build_packages(find_spec=None):
    """The Python packages pip's --no-build-isolation build needs from this
    environment besides setuptools: wheel, for bdist_wheel (a venv made by
    python3 -m venv has pip and setuptools only)."""
    import importlib.util
    find_spec = importlib.util.find_spec if find_spec is None else find_spec
    return [name for name in ("wheel",) if find_spec(name) is None]


def cmake_configure_args(build_dir, environ=None):
    """cmake's configure command line: the library and the Python module
    only, for this interpreter; ccache when on PATH; TESSERA_CMAKE_ARGS last."""
    environ = os.environ if environ is None else environ
    args = ["cmake", "-S", ROOT, "-B", build_dir,
            "-DTSR_BUILD_TESTS=OFF", "-DTSR_BUILD_BENCH=OFF", "-DTSR_BUILD_CUDA=OFF",
            "-DTSR_BUILD_BINDINGS=ON", "-DTSR_REQUIRE_BINDINGS=OFF",
            f"-DTSR_PYTHON={sys.executable}"]
    if shutil.which("ccache", path=environ.get("PATH", os.defpath)):
        args += ["-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
    args += shlex.split(environ.get("TESSERA_CMAKE_ARGS", ""))
    return args


def built_files(tree, ext_suffix=None):
    """(_core, libtessera) in the wheel's tree CMake laid out: the module for
    this interpreter (a TSR_PYTHON given in TESSERA_CMAKE_ARGS may have built
    another's) and the one library beside it."""
    ext_suffix = sysconfig.get_config_var("EXT_SUFFIX") if ext_suffix is None else ext_suffix
    module = os.path.join(tree, "_core" + ext_suffix)
    libraries = glob.glob(os.path.join(tree, "libtessera.so.*"))
    if not os.path.isfile(module) or len(libraries) != 1:
        found = sorted(os.listdir(tree)) if os.path.isdir(tree) else "nothing"
        raise ExecError(build_error(f"the CMake build did not leave {os.path.basename(module)} and "
                                    f"exactly one libtessera.so.* in {tree} (found: {found})"))
    return module, libraries[0]


def main():
    class CMakeBuild(build_ext):
        """Builds tessera._core (and libtessera) with CMake instead of
        compiling the extension's sources itself; see the top of this file."""

        def run(self):
            missing = missing_tools()
            if missing:
                raise PlatformError(build_error("missing " + ", ".join(missing)))
            build_dir = os.path.abspath(os.environ.get("TESSERA_BUILD_DIR")
                                        or os.path.join(ROOT, "build-pip"))
            jobs = str(self.parallel or os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL")
                       or os.cpu_count() or 1)
            self.cmake("configure", cmake_configure_args(build_dir))
            self.cmake("build", ["cmake", "--build", build_dir, "--target",
                                 "tessera_python_wheel_tree", "--parallel", jobs])
            module, library = built_files(os.path.join(build_dir, "bindings", "python", "wheel",
                                                       "tessera"))
            # _core where setuptools expects the extension; libtessera beside
            # it, where _core's RUNPATH ($ORIGIN) finds it.
            target = self.get_ext_fullpath("tessera._core")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            self.copy_file(module, target)
            self.copy_file(library, os.path.join(os.path.dirname(target), os.path.basename(library)))

        def cmake(self, step, args):
            self.announce("running " + shlex.join(args), level=2)
            print("tessera-tensor:", shlex.join(args), flush=True)
            try:
                subprocess.run(args, check=True)
            except (OSError, subprocess.CalledProcessError) as e:
                raise ExecError(build_error(f"cmake {step} failed ({e}); its output is above")) from e

        def get_outputs(self):
            # What pip records as installed: libtessera too.
            outputs = super().get_outputs()
            folder = os.path.dirname(self.get_ext_fullpath("tessera._core"))
            return outputs + glob.glob(os.path.join(folder, "libtessera.so.*"))

    class FreshBuildPy(build_py):
        """build_py into an emptied package folder: setuptools never removes
        what an earlier build left in build-pip/setuptools/lib.../tessera, and
        a module deleted from the sources would be installed still."""

        def run(self):
            shutil.rmtree(os.path.join(self.build_lib, "tessera"), ignore_errors=True)
            super().run()

    missing = missing_build_packages()
    if missing:
        # Before pip's metadata step, which fails with "invalid command
        # 'bdist_wheel'" otherwise.
        raise SystemExit(build_error(
            f"{sys.executable} has no {' or '.join(missing)} package, which --no-build-isolation "
            f"takes from this environment (pip install {' '.join(missing)}, or Debian's "
            "python3-wheel with a venv made --system-site-packages)"))
    version, description = project_metadata()
    # setuptools wants the package folder relative to the directory it runs
    # in: bindings/python (pip install ./bindings/python) or the root (pip
    # install ., through the root's setup.py).
    package_dir = os.path.relpath(PACKAGE_SOURCE, os.getcwd())
    # setuptools' own build folders (build/lib..., build/temp...) and
    # *.egg-info go under build-pip too, out of the sources: from the root,
    # setuptools' default build/ is CMake's usual build folder.
    build_base = os.path.join(ROOT, "build-pip", "setuptools")
    os.makedirs(build_base, exist_ok=True)  # egg_info wants its folder to exist
    setup(
        name="tessera-tensor",
        version=version,
        description=f"{description} (Python binding)",
        packages=["tessera"],
        package_dir={"tessera": package_dir},
        package_data={"tessera": ["*.pyi", "py.typed"]},
        # No sources: CMakeBuild makes the module. Listing it tags the wheel
        # for this interpreter and platform and runs build_ext.
        ext_modules=[Extension("tessera._core", sources=[])],
        cmdclass={"build_py": FreshBuildPy, "build_ext": CMakeBuild},
        # egg_info's folder too, which would be bindings/python or the root.
        options={"build": {"build_base": build_base}, "egg_info": {"egg_base": build_base}},
        python_requires=">=3.9",
        zip_safe=False,
    )


if __name__ == "__main__":
    main()
