"""bindings/python/setup.py, pip's build from a checkout: its checks and the
cmake command line, without building (ctest bindings_python_pip_source runs
the whole pip install, and its refusals, through pip)."""
import importlib.util
import os
import shutil
import sys
import sysconfig
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SETUP_PY = os.path.join(HERE, "..", "setup.py")


def load_setup():
    # By path, under another name than __main__: setup() does not run.
    spec = importlib.util.spec_from_file_location("tessera_setup", SETUP_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class SourceBuild(unittest.TestCase):
    def setUp(self):
        self.setup = load_setup()
        self.bin = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.bin)
        self.python_include = sysconfig.get_paths()["include"]

    def link(self, *tools):
        """Puts links to the real tools in self.bin, the PATH the checks see."""
        for tool in tools:
            os.symlink(shutil.which(tool), os.path.join(self.bin, tool))

    def test_everything_present(self):
        self.link("cmake", "swig", "cc", "c++")
        self.assertEqual(self.setup.missing_tools({}, self.bin, self.python_include), [])

    def test_each_missing_tool_is_named(self):
        missing = self.setup.missing_tools({}, self.bin, self.python_include)
        self.assertEqual(missing, ["cmake (3.25 or later)", "swig (4.0 or later)",
                                   "a C compiler (cc, gcc or clang; or CC)",
                                   "a C++ compiler (c++, g++ or clang++; or CXX)"])
        self.link("cmake", "cc", "c++")
        self.assertEqual(self.setup.missing_tools({}, self.bin, self.python_include),
                         ["swig (4.0 or later)"])

    def test_python_headers_missing(self):
        self.link("cmake", "swig", "cc", "c++")
        missing = self.setup.missing_tools({}, self.bin, self.bin)
        self.assertEqual(len(missing), 1)
        self.assertIn("Python.h", missing[0])
        self.assertIn("python3-dev", missing[0])

    def test_compilers_from_cc_and_cxx(self):
        # CC/CXX name the compilers (with arguments, as CMake takes them);
        # one that does not exist does not count.
        self.link("cmake", "swig")
        environ = {"CC": shutil.which("gcc") + " -O1", "CXX": shutil.which("g++")}
        self.assertEqual(self.setup.missing_tools(environ, self.bin, self.python_include), [])
        environ = {"CC": "/nonexistent/cc", "CXX": shutil.which("g++")}
        self.assertEqual(self.setup.missing_tools(environ, self.bin, self.python_include),
                         ["a C compiler (cc, gcc or clang; or CC)"])

    def test_refusal_names_the_cmake_target(self):
        message = self.setup.build_error("missing swig (4.0 or later)")
        self.assertIn("missing swig (4.0 or later)", message)
        root = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
        self.assertIn(f"cmake --build {root}/build --target tessera_python_wheel", message)

    def test_metadata_from_cmake(self):
        version, description = self.setup.project_metadata()
        self.assertRegex(version, r"^\d+\.\d+\.\d+$")
        self.assertTrue(description)

    def test_not_a_checkout(self):
        with self.assertRaises(SystemExit) as caught:
            self.setup.project_metadata(self.bin)
        self.assertIn("is not a tessera checkout", str(caught.exception))
        self.assertIn("tessera_python_wheel", str(caught.exception))
        with open(os.path.join(self.bin, "CMakeLists.txt"), "w") as f:
            f.write("project(other VERSION 1.0)\n")
        with self.assertRaises(SystemExit) as caught:
            self.setup.project_metadata(self.bin)
        self.assertIn("no project(tessera VERSION", str(caught.exception))

    def test_cmake_command_line(self):
        # Library and Python module only, for this interpreter; no ccache
        # unless on PATH; TESSERA_CMAKE_ARGS last, so they win.
        args = self.setup.cmake_configure_args("/b", {"PATH": self.bin})
        self.assertEqual(args[:5], ["cmake", "-S", self.setup.ROOT, "-B", "/b"])
        for flag in ("-DTSR_BUILD_TESTS=OFF", "-DTSR_BUILD_CUDA=OFF", f"-DTSR_PYTHON={sys.executable}"):
            self.assertIn(flag, args)
        self.assertFalse(any("LAUNCHER" in a for a in args))
        # Any executable named ccache on PATH (CI may have none).
        with open(os.path.join(self.bin, "ccache"), "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(os.path.join(self.bin, "ccache"), 0o755)
        args = self.setup.cmake_configure_args("/b", {
            "PATH": self.bin, "TESSERA_CMAKE_ARGS": "-DCMAKE_BUILD_TYPE=Debug '-DX=a b'"})
        self.assertIn("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", args)
        self.assertEqual(args[-2:], ["-DCMAKE_BUILD_TYPE=Debug", "-DX=a b"])

    def test_build_packages(self):
        self.assertEqual(self.setup.missing_build_packages(lambda name: object()), [])
        self.assertEqual(self.setup.missing_build_packages(lambda name: None), ["wheel"])

    def test_built_files(self):
        tree = os.path.join(self.bin, "tree")
        with self.assertRaisesRegex(Exception, r"did not leave _core\.x\.so .*found: nothing"):
            self.setup.built_files(tree, ".x.so")
        os.mkdir(tree)
        for name in ("_core.other.so", "libtessera.so.0"):
            open(os.path.join(tree, name), "w").close()
        # Built for another interpreter: refused, naming what is there.
        with self.assertRaisesRegex(Exception, r"did not leave _core\.x\.so .*_core\.other\.so"):
            self.setup.built_files(tree, ".x.so")
        open(os.path.join(tree, "_core.x.so"), "w").close()
        self.assertEqual(self.setup.built_files(tree, ".x.so"),
                         (os.path.join(tree, "_core.x.so"), os.path.join(tree, "libtessera.so.0")))
        open(os.path.join(tree, "libtessera.so.1"), "w").close()  # two: which one?
        with self.assertRaisesRegex(Exception, "exactly one libtessera"):
            self.setup.built_files(tree, ".x.so")


if __name__ == "__main__":
    unittest.main()
