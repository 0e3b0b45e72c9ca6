"""Tensor.grad_fn as torch 1.13's objects (tessera/_graph.py over
autograd_graph.h): class names, name(), next_functions with input_nr and
None, AccumulateGrad.variable, one object per node, metadata; run beside
PyTorch in the same process."""
import gc
import unittest

import torch as real_torch

import tessera


def walk(fn, depth=6):
    """The graph below fn as nested tuples of (type name, name(), next)."""
    if fn is None:
        return None
    if depth == 0:
        return "..."
    return (type(fn).__name__, fn.name(),
            tuple((walk(n, depth - 1), nr) for n, nr in fn.next_functions))


def program(torch):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = torch.tensor([3.0, 2.0, 1.0], requires_grad=True)
    c = torch.tensor([1.0, 1.0, 2.0])
    h = torch.tanh(a * b + c)
    return (h * h.exp()).sum(), a, b


class GradFnObjects(unittest.TestCase):
    def test_the_graph_is_torchs(self):
        mine, _, _ = program(tessera)
        ref, _, _ = program(real_torch)
        self.assertEqual(walk(mine.grad_fn), walk(ref.grad_fn))

    def test_double_backward_graphs_are_torchs(self):
        # maximum/minimum's backward is torch's formula op for op, and
        # where's condition and masked_fill's mask are not listed
        def run(torch):
            a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
            b = torch.tensor([2.0, 2.0, 1.0], requires_grad=True)
            graphs = []
            for f in (torch.maximum, torch.minimum):
                y = f(a, b)
                ga, gb = torch.autograd.grad((y * y).sum(), (a, b), create_graph=True)
                graphs += [ga.tolist(), gb.tolist(), walk(ga.grad_fn, 4), walk(gb.grad_fn, 4)]
            m = torch.tensor([True, False, True])
            graphs.append(walk(torch.where(m, a, b).masked_fill(m, 0.0).grad_fn, 2))
            return graphs
        self.assertEqual(run(tessera), run(real_torch))

    def test_input_nr_names_the_producers_output(self):
        def run(torch):
            x = torch.ones(4, requires_grad=True)
            _, q = x.split(2)
            n, nr = (q * torch.ones(2)).grad_fn.next_functions[0]
            return n.name(), nr
        self.assertEqual(run(tessera), run(real_torch))
        self.assertEqual(run(tessera), ("SplitBackward0", 1))

    def test_accumulate_grad_variable_is_the_leaf(self):
        loss, a, b = program(tessera)
        acc = loss.grad_fn.next_functions[0][0]  # MulBackward0 (h * exp(h))
        node = loss.grad_fn
        while node.name() != "AddBackward0":
            node = node.next_functions[0][0]
        mul = node.next_functions[0][0]
        acc_a, acc_b = (n for n, _ in mul.next_functions)
        self.assertEqual(acc_a.name(), "torch::autograd::AccumulateGrad")
        self.assertEqual(type(acc_a).__name__, "AccumulateGrad")
        self.assertEqual(acc_a.next_functions, ())
        self.assertEqual(acc_a.variable.data_ptr(), a.data_ptr())
        self.assertEqual(acc_b.variable.data_ptr(), b.data_ptr())
        self.assertTrue(acc_a.variable.requires_grad)
        with self.assertRaises(AttributeError):
            acc.variable  # only AccumulateGrad has one, as torch

    def test_one_object_per_node_and_metadata(self):
        loss, a, _ = program(tessera)
        self.assertIs(loss.grad_fn, loss.grad_fn)
        fn = loss.grad_fn
        fn.metadata["step"] = 3
        # while an object of the node lives, every access gives it
        self.assertEqual(loss.grad_fn.metadata, {"step": 3})
        y = a * 2
        # one leaf, one AccumulateGrad, whichever op reaches it
        self.assertIs(y.grad_fn.next_functions[0][0], (a * 3).grad_fn.next_functions[0][0])
        self.assertRegex(repr(loss.grad_fn), r"^<SumBackward0 object at 0x[0-9a-f]+>$")

    def test_leaves_and_tensors_without_history_have_none(self):
        for torch in (tessera, real_torch):
            a = torch.ones(2, requires_grad=True)
            self.assertIsNone(a.grad_fn)
            self.assertIsNone(torch.ones(2).grad_fn)
            with torch.no_grad():
                self.assertIsNone((a * 2).grad_fn)
            self.assertIsNone((a * 2).detach().grad_fn)

    def test_a_node_keeps_its_graph_alive(self):
        def grad_through_kept_node(torch):
            a = torch.tensor([1.0, 2.0], requires_grad=True)
            y = (a * a).sum()
            node = y.grad_fn.next_functions[0][0]
            del y
            gc.collect()
            return node.name(), node.next_functions[0][0].variable.tolist()
        self.assertEqual(grad_through_kept_node(tessera), grad_through_kept_node(real_torch))

    def test_nodes_cannot_be_made_directly(self):
        loss, _, _ = program(tessera)
        with self.assertRaises(TypeError):
            type(loss.grad_fn)()


if __name__ == "__main__":
    unittest.main()
