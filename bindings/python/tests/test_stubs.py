"""The package ships PEP 561 type information (py.typed and .pyi stubs), and
the stubs stay true to the package: they are what make_stubs.py writes from
the package now, and every public name of each module is in its stub and
every name in a stub exists."""
import ast
import importlib
import importlib.util
import os
import tempfile
import types
import unittest

import tessera

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_PACKAGE = os.path.join(HERE, "..", "tessera")
MAKE_STUBS = os.path.join(HERE, "..", "make_stubs.py")


def load_make_stubs():
    # Loaded by path: putting bindings/python on sys.path would expose the
    # source tree's tessera/, which has no _core.
    spec = importlib.util.spec_from_file_location("make_stubs", MAKE_STUBS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stub_names(path):
    """Top-level names a stub defines: classes, functions, variables, imports."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    names, classes = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
            if isinstance(node, ast.ClassDef):
                classes[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names if a.name != "Any")
        elif isinstance(node, ast.Import):
            pass  # typing/enum, for the stub itself
    return names, classes


class Stubs(unittest.TestCase):
    def setUp(self):
        self.make_stubs = load_make_stubs()

    def test_py_typed_and_stubs_ship_with_the_package(self):
        package = os.path.dirname(tessera.__file__)
        self.assertTrue(os.path.isfile(os.path.join(package, "py.typed")))
        for name in self.make_stubs.generate():
            self.assertTrue(os.path.isfile(os.path.join(package, name)), name)

    def test_stubs_are_current(self):
        for name, text in self.make_stubs.generate().items():
            with self.subTest(stub=name):
                with open(os.path.join(SOURCE_PACKAGE, name)) as f:
                    self.assertEqual(f.read(), text,
                                     f"{name} is out of date: rerun PYTHONPATH=<build>/bindings/"
                                     "python /usr/bin/python3 bindings/python/make_stubs.py")

    def test_stub_names_match_the_modules(self):
        for module_name in self.make_stubs.MODULES:
            with self.subTest(module=module_name):
                module = importlib.import_module(module_name)
                public = getattr(module, "__all__", None)
                if public is None:
                    public = [n for n, v in vars(module).items() if not n.startswith("_")
                              and not (isinstance(v, types.ModuleType)
                                       and not v.__name__.startswith("tessera."))]
                path = os.path.join(SOURCE_PACKAGE, self.make_stubs.stub_path(module_name))
                names, classes = stub_names(path)
                names.discard("__version__")
                self.assertEqual(names, set(public))
                for cls_name, methods in classes.items():
                    cls = getattr(module, cls_name)
                    for method in methods:
                        self.assertTrue(hasattr(cls, method), f"{cls_name}.{method}")

    def test_no_native_callable_is_stubbed_as_a_catch_all(self):
        # Every def in a stub that takes *args or **kwargs must be Python code
        # that really does: a native (SWIG) function or method gets the
        # parameters of its autodoc line (make_stubs.native_parameters).
        checked = 0
        for module_name in self.make_stubs.MODULES:
            module = importlib.import_module(module_name)
            path = os.path.join(SOURCE_PACKAGE, self.make_stubs.stub_path(module_name))
            with open(path) as f:
                tree = ast.parse(f.read(), path)
            defs = [(module, node) for node in tree.body if isinstance(node, ast.FunctionDef)]
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    cls = getattr(module, node.name)
                    defs += [(cls, n) for n in node.body if isinstance(n, ast.FunctionDef)]
            for owner, node in defs:
                value = getattr(owner, node.name)
                if self.make_stubs.is_native(value):
                    checked += 1
                if node.args.vararg is None and node.args.kwarg is None:
                    continue
                with self.subTest(stub=f"{module_name}: {getattr(owner, '__name__', '')}.{node.name}"):
                    self.assertFalse(self.make_stubs.is_native(value),
                                     "a native callable stubbed as (*args, **kwargs)")
        # The check saw native callables at all (Tensor's methods, _core's functions).
        self.assertGreater(checked, 50)

    def test_native_signatures_are_typed(self):
        # A few stubbed native methods, as a user reads them in an editor.
        with open(os.path.join(SOURCE_PACKAGE, "__init__.pyi")) as f:
            text = f.read()
        for line in ("def narrow(self, dim: int, start: int, length: int) -> Tensor: ...",
                     "def item_double(self) -> float: ...",
                     "def set_num_threads(n: int) -> None: ...",
                     "def shape(self, i: int) -> tuple[int, ...]: ..."):
            self.assertIn(line, text)


class NativeSignatures(unittest.TestCase):
    """make_stubs's reading of SWIG autodoc lines, on made-up docstrings."""

    def setUp(self):
        self.make_stubs = load_make_stubs()

    def read(self, doc, is_method=True, module=tessera):
        return self.make_stubs.native_parameters(types.SimpleNamespace(__doc__=doc), is_method, module)

    def test_types_defaults_and_returns(self):
        self.assertEqual(
            self.read("slice(Tensor self, int64_t dim, tsr_i64 const * sizes, double p=1.0, "
                      "bool keep=False, tsr_dtype dtype=FLOAT32, char const * name=None) -> Tensor"),
            ("(self, dim: int, sizes: typing.Sequence[int], p: float = ..., keep: bool = ..., "
             "dtype: int = ..., name: str = ...)", "Tensor"))
        self.assertEqual(self.read("close(Tensor self)"), ("(self)", "None"))
        self.assertEqual(self.read("f() -> char const *", is_method=False), ("()", "str | None"))
        self.assertEqual(self.read("f() -> tsr_i64_array", is_method=False), ("()", "tuple[int, ...]"))
        # Types it does not know are Any; so is a handle class the module
        # does not have (tessera has no public TensorList).
        self.assertEqual(self.read("f(struct weird * w, TensorList l) -> TensorList", False),
                         ("(w: Any, l: Any)", "Any"))
        self.assertEqual(self.read("f(Tensor t) -> Tensor", False, module=None), ("(t: Any)", "Any"))

    def test_c_enums_are_ints(self):
        # Every enum of the public headers, read from them.
        enums = self.make_stubs.c_enums()
        self.assertLessEqual({"tsr_dtype", "tsr_device_type", "tsr_memory_format",
                              "tsr_loss_reduction", "tsr_status"}, enums)
        self.assertEqual(self.read("f(tsr_loss_reduction reduction=MEAN) -> tsr_status", False),
                         ("(reduction: int = ...)", "int"))
        with tempfile.TemporaryDirectory() as empty, self.assertRaisesRegex(ValueError, "no typedef enum"):
            self.make_stubs.c_enums(empty)

    def test_a_docstring_without_a_signature_is_an_error(self):
        for doc in (None, "", "Initialize self.  See help(type(self)) for accurate signature.",
                    "f(int a, (*g)(int)) -> int"):
            with self.subTest(doc=doc), self.assertRaisesRegex(ValueError, "autodoc"):
                self.read(doc)

    def test_a_method_without_self_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "no self"):
            self.read("f(int64_t n) -> int64_t")
        with self.assertRaisesRegex(ValueError, "no self"):
            self.read("f() -> int64_t")

    def test_an_unreadable_parameter_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "cannot read parameter"):
            self.read("f(Tensor self, int64_t) -> Tensor")

    def test_native_types_without_a_constructor_declare_no_init(self):
        self.assertTrue(self.make_stubs.native_without_constructor(tessera.Tensor))
        self.assertFalse(self.make_stubs.native_without_constructor(tessera.Generator))
        with open(os.path.join(SOURCE_PACKAGE, "__init__.pyi")) as f:
            tree = ast.parse(f.read())
        tensor = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
        self.assertNotIn("__init__", {n.name for n in tensor.body if isinstance(n, ast.FunctionDef)})

    def test_a_native_constructor_is_an_error(self):
        # _core.Generator(seed) has one; its parameters are not documented.
        class Bare(tessera._core.Generator):
            pass
        with self.assertRaisesRegex(ValueError, "constructor"):
            self.make_stubs.native_without_constructor(Bare)


if __name__ == "__main__":
    unittest.main()
