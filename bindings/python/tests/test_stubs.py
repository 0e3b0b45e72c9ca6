"""The package ships PEP 561 type information (py.typed and .pyi stubs), and
the stubs stay true to the package: they are what make_stubs.py writes from
the package now, and every public name of each module is in its stub and
every name in a stub exists."""
import ast
import importlib
import importlib.util
import os
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


if __name__ == "__main__":
    unittest.main()
