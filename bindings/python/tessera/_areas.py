"""The op areas beyond the core set, one module each. Each module has
__all__ (its tessera.X functions), FUNCTIONAL (the names tessera.nn.functional
also exports) and TENSOR_METHODS (Tensor.X), so that __init__ and
tessera.nn.functional collect them without importing each other."""
from . import (_attention, _clip_grad, _frombuffer, _hooks, _indexing, _linalg, _loss, _pointwise, _reductions,
               _shape_ops, _sorting, _storage)

AREAS = (_pointwise, _linalg, _reductions, _sorting, _shape_ops, _indexing, _loss, _clip_grad,
         _storage, _frombuffer, _hooks, _attention)


def install(namespace, methods_class):
    """Puts each area's functions into namespace (tessera's globals) and its
    Tensor methods onto methods_class (_tensor.AreaMethods, a base of
    Tensor)."""
    for area in AREAS:
        namespace.update({name: getattr(area, name) for name in area.__all__})
        for name, method in area.TENSOR_METHODS.items():
            setattr(methods_class, name, method)
