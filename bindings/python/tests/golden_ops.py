"""The cases behind golden.json, as data both torch and tessera can replay.

A layout case starts from arange(numel) viewed as sizes (float32) and
applies ops in turn; an op is [method, args...] called on the tensor, where
the argument "channels_last" / "contiguous_format" names the memory format
of the module at hand, and ["index", spec...] is t[...] with spec entries
int, null (None), "..." or [start, stop, step] for a slice.
"""

LAYOUT_CASES = [
    {"name": "contiguous", "numel": 120, "sizes": [2, 3, 4, 5], "ops": []},
    {"name": "transpose", "numel": 120, "sizes": [2, 3, 4, 5], "ops": [["transpose", 1, 3]]},
    {"name": "permute", "numel": 120, "sizes": [2, 3, 4, 5], "ops": [["permute", 0, 2, 3, 1]]},
    {"name": "channels_last_clone", "numel": 120, "sizes": [2, 3, 4, 5],
     "ops": [["clone", "channels_last"]]},
    {"name": "channels_last_contiguous", "numel": 120, "sizes": [2, 3, 4, 5],
     "ops": [["contiguous", "channels_last"]]},
    {"name": "channels_last_narrow", "numel": 120, "sizes": [2, 3, 4, 5],
     "ops": [["contiguous", "channels_last"], ["narrow", 2, 1, 2]]},
    {"name": "narrow", "numel": 120, "sizes": [2, 3, 4, 5], "ops": [["narrow", 2, 1, 2]]},
    {"name": "select", "numel": 120, "sizes": [2, 3, 4, 5], "ops": [["select", 1, 2]]},
    {"name": "index_step", "numel": 120, "sizes": [2, 3, 4, 5],
     "ops": [["index", 1, "...", [None, None, 2]]]},
    {"name": "index_none", "numel": 24, "sizes": [4, 6],
     "ops": [["index", [1, None, None], None, [-4, None, 3]]]},
    {"name": "t_of_slice", "numel": 24, "sizes": [4, 6], "ops": [["index", [1, None, None], [None, None, 2]], ["t"]]},
    {"name": "unsqueeze_expand", "numel": 6, "sizes": [2, 3],
     "ops": [["unsqueeze", 1], ["expand", 2, 4, 3]]},
    {"name": "diagonal", "numel": 30, "sizes": [5, 6], "ops": [["diagonal", 1]]},
    {"name": "unfold", "numel": 10, "sizes": [10], "ops": [["unfold", 0, 4, 3]]},
    {"name": "as_strided", "numel": 24, "sizes": [24], "ops": [["as_strided", [3, 3], [4, 1], 2]]},
    {"name": "flatten_after_narrow", "numel": 60, "sizes": [3, 4, 5],
     "ops": [["narrow", 0, 1, 2], ["flatten", 1]]},
    {"name": "movedim", "numel": 24, "sizes": [2, 3, 4], "ops": [["movedim", 0, 2]]},
    {"name": "squeeze", "numel": 6, "sizes": [1, 2, 1, 3], "ops": [["squeeze"]]},
    {"name": "reshape_copy", "numel": 24, "sizes": [4, 6], "ops": [["t"], ["reshape", 3, 8]]},
    {"name": "reshape_view", "numel": 24, "sizes": [4, 6], "ops": [["narrow", 0, 1, 2], ["reshape", 12]]},
]

# tensor (op) Python number: result dtype and values.
PROMOTION_CASES = [
    {"dtype": "int64", "values": [1, 2, 3], "op": "mul", "scalar": 2.5},
    {"dtype": "int64", "values": [1, 2, 3], "op": "add", "scalar": 2},
    {"dtype": "int64", "values": [1, 2, 3], "op": "div", "scalar": 2},
    {"dtype": "int32", "values": [1, 2, 3], "op": "rsub", "scalar": 10},
    {"dtype": "float64", "values": [1.0, 2.0], "op": "radd", "scalar": 1},
    {"dtype": "float32", "values": [1.0, 2.0], "op": "rdiv", "scalar": 1},
    {"dtype": "float32", "values": [0.1, 0.2], "op": "div", "scalar": 3.0},
    {"dtype": "float32", "values": [0.1, 0.2], "op": "sub", "scalar": 0.3},
    {"dtype": "float16", "values": [0.5, 1.5], "op": "mul", "scalar": 3},
    {"dtype": "bool", "values": [True, False], "op": "add", "scalar": 2},
    {"dtype": "bool", "values": [True, False], "op": "mul", "scalar": 0.5},
    {"dtype": "uint8", "values": [250, 3], "op": "add", "scalar": 10},
]

INFERENCE_CASES = [[1, 2], [1.0, 2], [True, False], [[1, 2], [3, 4]], 3, 2.5, True, []]

REPR_CASES = [
    {"data": [[0.0, 1.0], [2.0, 3.0]], "dtype": "float32"},
    {"data": [1.5, -2.25, 3.0], "dtype": "float32"},
    {"data": [1, -20, 300], "dtype": "int64"},
    {"data": [1, 2], "dtype": "int32"},
    {"data": [0.5, 1.0], "dtype": "float64"},
    {"data": [True, False], "dtype": "bool"},
    {"data": 7.0, "dtype": "float32"},
    {"data": [1e-6, 1.0], "dtype": "float32"},
    {"data": [[1.0, 2.0]], "dtype": "float32", "requires_grad": True},
]


def index_key(spec):
    key = []
    for entry in spec:
        if entry == "...":
            key.append(Ellipsis)
        elif isinstance(entry, list):
            key.append(slice(*entry))
        else:
            key.append(entry)
    return tuple(key)


def replay(module, tensor, ops):
    """Applies ops to tensor with module's (torch's or tessera's) names."""
    for name, *args in ops:
        if name == "index":
            tensor = tensor[index_key(args)]
            continue
        args = [getattr(module, a) if a in ("channels_last", "contiguous_format") else a
                for a in args]
        if name in ("clone", "contiguous"):
            tensor = getattr(tensor, name)(memory_format=args[0])
        else:
            tensor = getattr(tensor, name)(*args)
    return tensor
