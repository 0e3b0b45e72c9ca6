"""torch.Tensor.grad_fn as objects: the nodes of the autograd graph.

As torch 1.13 shows them: each node is an instance of a class named after
it (type(y.grad_fn).__name__ == "MulBackward0"), with name(),
next_functions (a tuple of (node or None, input_nr) per input) and
metadata (a dict); a leaf's gradient sink is an AccumulateGrad whose
variable is the leaf. The same node gives the same object while one is
alive (y.grad_fn is y.grad_fn), and an object keeps its part of the graph
alive, as torch's do. Unlike torch, metadata lives with the node's
Python object: keep a reference to the node to keep its metadata. Node
hooks (register_hook, register_prehook) are not
there yet: Tensor.register_hook and register_post_accumulate_grad_hook
cover their uses."""
import weakref

from . import _core

# node id -> its live object: one object per node while it lives (its
# handle keeps the node, so the id cannot be reused meanwhile).
_live = weakref.WeakValueDictionary()
# Node name -> its class.
_classes = {}


class Node:
    """torch.autograd.graph.Node: a function of the backward graph."""

    __slots__ = ("_handle", "metadata", "__weakref__")

    def __init__(self, *args, **kwargs):
        raise TypeError(f"cannot create '{type(self).__name__}' instances")

    def name(self):
        """The node's name: "MulBackward0", "torch::autograd::AccumulateGrad"."""
        return self._handle.name()

    @property
    def next_functions(self):
        """Where each input's gradient goes: (node, input_nr), or (None, 0)
        for an input that needs no gradient."""
        h = self._handle
        return tuple((_wrap(h.next_function(i)), h.next_input_nr(i)) for i in range(h.num_next_functions()))

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"


class AccumulateGrad(Node):
    """A leaf's gradient sink: backward adds what reaches it into variable.grad."""

    __slots__ = ()

    @property
    def variable(self):
        """The leaf tensor."""
        return self._handle.variable()


_classes["torch::autograd::AccumulateGrad"] = AccumulateGrad


def _class_of(name):
    cls = _classes.get(name)
    if cls is None:
        cls = type(name, (Node,), {"__slots__": ()})
        _classes[name] = cls
    return cls


def _wrap(handle):
    """The object of the node behind handle (None stays None)."""
    if handle is None:
        return None
    key = handle.id()
    node = _live.get(key)
    if node is not None:
        return node
    node = object.__new__(_class_of(handle.name()))
    node._handle = handle
    node.metadata = {}
    _live[key] = node
    return node


def grad_fn_of(tensor_handle):
    """torch.Tensor.grad_fn: the node that made the tensor, or None."""
    return _wrap(_core.Tensor.grad_fn_node(tensor_handle))
