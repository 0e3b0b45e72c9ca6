"""What tessera.save / tessera.load do with objects that are not a flat
dict of named tensors: nested dicts (model and optimizer state dicts),
lists and tuples, with tensors and plain values (numbers, strings, bools,
None) as leaves, as torch.save takes them, but never pickled.

The tensors go into the safetensors file under dotted keys
("model.0.weight", "optimizer.state.0.exp_avg"); the shape of the object
goes, as JSON, into the file's metadata under STRUCTURE_KEY:

    node := {"tensor": key} | {"value": number/str/bool/null}
          | {"dict": [[k, node], ...]}   k: a str, or ["int", n] for an int key
          | {"list": [node, ...]} | {"tuple": [node, ...]}

load rebuilds the object from it, checking every node (a crafted file gets
CorruptFileError, never a crash or a half-built object).
"""
import json
import math

from . import _core
from .errors import CorruptFileError

STRUCTURE_KEY = "structure"  # "tessera." keys are the library's own
MAX_DEPTH = 64  # nesting a loaded structure may have

_N = _core.Tensor


def is_flat(obj):
    """A dict of str -> Tensor (or None, which save refuses itself): the
    plain safetensors case, saved without a structure."""
    return isinstance(obj, dict) and all(isinstance(k, str) and (v is None or isinstance(v, _N))
                                         for k, v in obj.items())


def flatten(obj):
    """(dict of dotted key -> tensor, structure JSON text) of obj. Raises
    TypeError for a leaf that is neither a tensor nor a plain value, and
    ValueError when two paths give the same dotted key."""
    tensors = {}

    def visit(value, path, depth):
        if depth > MAX_DEPTH:
            raise ValueError(f"save(): the object nests deeper than {MAX_DEPTH} levels")
        if isinstance(value, _N):
            key = ".".join(path) if path else "tensor"
            if key in tensors:
                raise ValueError(f"save(): two entries both flatten to the key {key!r}")
            tensors[key] = value
            return {"tensor": key}
        if isinstance(value, dict):
            items = []
            for k, v in value.items():
                if isinstance(k, bool) or not isinstance(k, (str, int)):
                    raise TypeError(f"save(): dict keys must be str or int, not {type(k).__name__} "
                                    f"(in {'.'.join(path) or 'the top-level dict'})")
                items.append([k if isinstance(k, str) else ["int", k], visit(v, path + [str(k)], depth + 1)])
            return {"dict": items}
        if isinstance(value, (list, tuple)):
            kind = "tuple" if isinstance(value, tuple) else "list"
            return {kind: [visit(v, path + [str(i)], depth + 1) for i, v in enumerate(value)]}
        if value is None or isinstance(value, (bool, int, str)):
            return {"value": value}
        if isinstance(value, float):
            if not math.isfinite(value):  # JSON has no inf/nan: a string form
                return {"float": repr(value)}
            return {"value": value}
        where = ".".join(path) if path else "the object"
        raise TypeError(f"save(): cannot save {where!r}, a {type(value).__name__} (tensors, dicts, "
                        "lists, tuples, numbers, strings, bools and None can be saved; no pickling)")

    root = visit(obj, [], 0)
    return tensors, json.dumps(root, separators=(",", ":"))


def _corrupt(message):
    return CorruptFileError(int(_core.ERR_CORRUPT_FILE), f"load: {message}")


def unflatten(tensors, text):
    """The object the structure JSON text describes, its tensors taken from
    tensors (name -> Tensor). Every tensor is used once; anything else is
    CorruptFileError naming what is wrong."""
    try:
        root = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise _corrupt(f"the {STRUCTURE_KEY} metadata is not valid JSON ({error})") from None
    used = set()

    def build(node, depth):
        if depth > MAX_DEPTH:
            raise _corrupt(f"the structure nests deeper than {MAX_DEPTH} levels")
        if not isinstance(node, dict) or len(node) != 1:
            raise _corrupt("a structure node is not a one-entry object")
        (kind, body), = node.items()
        if kind == "tensor":
            if not isinstance(body, str) or body not in tensors:
                raise _corrupt(f"the structure names a tensor {body!r} the file does not have")
            if body in used:
                raise _corrupt(f"the structure uses the tensor {body!r} twice")
            used.add(body)
            return tensors[body]
        if kind == "value":
            if body is not None and not isinstance(body, (bool, int, float, str)):
                raise _corrupt("a structure value is not a number, string, bool or null")
            return body
        if kind == "float":
            if body not in ("inf", "-inf", "nan"):
                raise _corrupt(f"bad float value {body!r} in the structure")
            return float(body)
        if kind == "dict":
            if not isinstance(body, list):
                raise _corrupt("a structure dict is not a list of entries")
            out = {}
            for entry in body:
                if not isinstance(entry, list) or len(entry) != 2:
                    raise _corrupt("a structure dict entry is not a [key, node] pair")
                key, child = entry
                if isinstance(key, list) and len(key) == 2 and key[0] == "int" and \
                        isinstance(key[1], int) and not isinstance(key[1], bool):
                    key = key[1]
                elif not isinstance(key, str):
                    raise _corrupt("a structure dict key is neither a string nor an int")
                out[key] = build(child, depth + 1)
            return out
        if kind in ("list", "tuple"):
            if not isinstance(body, list):
                raise _corrupt(f"a structure {kind} is not a list")
            items = [build(child, depth + 1) for child in body]
            return tuple(items) if kind == "tuple" else items
        raise _corrupt(f"unknown structure node kind {kind!r}")

    try:
        obj = build(root, 0)
    except RecursionError:
        raise _corrupt("the structure nests too deeply") from None
    unused = set(tensors) - used
    if unused:
        raise _corrupt(f"the file has tensors the structure does not place: {sorted(unused)[:5]}")
    return obj
