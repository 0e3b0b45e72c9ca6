"""tessera.nn.Module, Parameter, the layers, containers and loss modules,
each checked against PyTorch 1.13 run in the same process: state_dict keys
and their order, strict-loading messages, hooks, train/eval, to(), reprs,
default initialisations' ranges and the layers' outputs from the same
weights."""
import collections
import math
import unittest

import numpy as np
import torch as real_torch

import tessera
from tessera import nn
import tessera.nn.functional as F


def build(torch, registered=True):
    """The same nested model written against either library."""
    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(2, 4, 3, padding=1)
            self.bn = torch.nn.BatchNorm2d(4)
            self.register_buffer("steps", torch.zeros(1), persistent=False)
            self.register_buffer("scale", torch.ones(1))

        def forward(self, x):
            return torch.nn.functional.relu(self.bn(self.conv(x)))

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.features = torch.nn.Sequential(Block(), torch.nn.MaxPool2d(2), torch.nn.Flatten())
            self.heads = torch.nn.ModuleDict({"a": torch.nn.Linear(16, 3), "b": torch.nn.Linear(16, 2, bias=False)})
            self.extra = torch.nn.ModuleList([torch.nn.LayerNorm(3), torch.nn.Embedding(5, 3, padding_idx=0)])
            self.gain = torch.nn.Parameter(torch.ones(3))

        def forward(self, x):
            h = self.features(x)
            return self.extra[0](self.heads["a"](h) * self.gain)
    return Net()


def values(t):
    return np.array(t.detach().tolist(), dtype=np.float64)


def copy_weights(src, dst):
    """torch module -> tessera module (same structure), by state_dict."""
    state = {k: tessera.tensor(v.detach().numpy().copy()) for k, v in src.state_dict().items()}
    dst.load_state_dict(state)


class ModuleStructure(unittest.TestCase):
    def test_state_dict_keys_and_order_match_torch(self):
        ours, theirs = build(tessera), build(real_torch)
        self.assertEqual(list(ours.state_dict().keys()), list(theirs.state_dict().keys()))
        self.assertEqual([n for n, _ in ours.named_parameters()], [n for n, _ in theirs.named_parameters()])
        self.assertEqual([n for n, _ in ours.named_buffers()], [n for n, _ in theirs.named_buffers()])
        self.assertEqual([n for n, _ in ours.named_modules()], [n for n, _ in theirs.named_modules()])
        self.assertEqual([n for n, _ in ours.named_children()], [n for n, _ in theirs.named_children()])
        for (_, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
            self.assertEqual(tuple(a.shape), tuple(b.shape))
            self.assertEqual(str(a.dtype).split(".")[1], str(b.dtype).split(".")[1])

    def test_state_dict_is_detached_and_shares_memory(self):
        m = nn.Linear(2, 2)
        sd = m.state_dict()
        self.assertFalse(sd["weight"].requires_grad)
        sd["weight"].fill_(3.0)
        self.assertEqual(m.weight.tolist(), [[3.0, 3.0], [3.0, 3.0]])
        self.assertIs(m.state_dict(keep_vars=True)["weight"], m.weight)

    def test_strict_load_messages_match_torch(self):
        for torch in (tessera, real_torch):
            m = torch.nn.Sequential(torch.nn.Linear(2, 3))
            state = {"0.weight": torch.zeros(3, 2), "0.extra": torch.zeros(1), "1.bias": torch.zeros(1)}
            with self.assertRaises(RuntimeError) as caught:
                m.load_state_dict(state)
            message = str(caught.exception)
            if torch is real_torch:
                self.assertEqual(message, expected)
            else:
                expected = message
        # non-strict: returned, not raised; nothing missing loaded
        for torch in (tessera, real_torch):
            m = torch.nn.Linear(2, 3)
            result = m.load_state_dict({"weight": torch.ones(3, 2), "junk": torch.ones(1)}, strict=False)
            self.assertEqual(list(result.missing_keys), ["bias"])
            self.assertEqual(list(result.unexpected_keys), ["junk"])
            self.assertEqual(m.weight.tolist(), [[1.0, 1.0]] * 3)
        self.assertEqual(repr(nn.Linear(1, 1).load_state_dict(nn.Linear(1, 1).state_dict())),
                         "<All keys matched successfully>")

    def test_size_mismatch_refused_and_nothing_copied(self):
        m = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
        before = [p.tolist() for p in m.parameters()]
        state = m.state_dict()
        state = {k: (tessera.ones(4, 2) if k == "0.weight" else tessera.ones(*v.shape)) for k, v in state.items()}
        with self.assertRaisesRegex(RuntimeError, r"size mismatch for 0\.weight: copying a param with shape "
                                    r"tessera\.Size\(\[4, 2\]\) from checkpoint, the shape in current model "
                                    r"is tessera\.Size\(\[3, 2\]\)\."):
            m.load_state_dict(state)
        self.assertEqual([p.tolist() for p in m.parameters()], before)
        with self.assertRaisesRegex(RuntimeError, "expected tessera.Tensor"):
            nn.Linear(1, 1).load_state_dict({"weight": [[1.0]], "bias": tessera.zeros(1)})
        with self.assertRaises(TypeError):
            nn.Linear(1, 1).load_state_dict([1, 2])

    def test_registration_errors_as_torch(self):
        m = nn.Module()
        with self.assertRaisesRegex(KeyError, "contain"):
            m.register_buffer("a.b", tessera.zeros(1))
        with self.assertRaisesRegex(KeyError, "empty string"):
            m.register_parameter("", None)
        with self.assertRaisesRegex(TypeError, "buffer name should be a string"):
            m.register_buffer(3, tessera.zeros(1))
        with self.assertRaisesRegex(TypeError, "cannot assign"):
            m.register_buffer("x", 3)
        with self.assertRaisesRegex(TypeError, "Parameter or None required"):
            m.register_parameter("w", tessera.zeros(1))
        m.w = nn.Parameter(tessera.zeros(1))
        with self.assertRaisesRegex(TypeError, "as parameter 'w'"):
            m.w = tessera.zeros(1)
        m.plain = 5
        with self.assertRaisesRegex(KeyError, "attribute 'plain' already exists"):
            m.register_buffer("plain", tessera.zeros(1))
        with self.assertRaisesRegex(ValueError, "non-leaf"):
            m.register_parameter("y", _parameter_with_history())

        class Early(nn.Module):
            def __init__(self):
                self.w = nn.Parameter(tessera.zeros(1))
        with self.assertRaisesRegex(AttributeError, "before Module.__init__"):
            Early()
        with self.assertRaisesRegex(AttributeError, "'Module' object has no attribute 'nope'"):
            m.nope
        with self.assertRaisesRegex(NotImplementedError, "forward"):
            m(tessera.ones(1))

    def test_parameter(self):
        p = nn.Parameter(tessera.ones(2, 3))
        self.assertIsInstance(p, tessera.Tensor)
        self.assertTrue(p.requires_grad and p.is_leaf)
        self.assertTrue(repr(p).startswith("Parameter containing:\ntensor("))
        self.assertFalse(nn.Parameter(tessera.ones(1), requires_grad=False).requires_grad)
        import copy
        q = copy.deepcopy(p)
        self.assertIsInstance(q, nn.Parameter)
        self.assertEqual(q.tolist(), p.tolist())

    def test_buffers_assignment_and_persistence(self):
        m = nn.Module()
        m.register_buffer("a", tessera.zeros(2))
        m.register_buffer("b", tessera.zeros(2), persistent=False)
        m.a = tessera.ones(2)
        self.assertEqual(m.a.tolist(), [1.0, 1.0])
        self.assertEqual(list(m.state_dict()), ["a"])
        self.assertEqual([n for n, _ in m.named_buffers()], ["a", "b"])
        del m.a
        self.assertEqual([n for n, _ in m.named_buffers()], ["b"])

    def test_shared_parameters_listed_once(self):
        shared = nn.Linear(2, 2)
        m = nn.Sequential(shared, shared)
        self.assertEqual(len(list(m.parameters())), 2)
        self.assertEqual(list(m.state_dict()), ["0.weight", "0.bias", "1.weight", "1.bias"])

    def test_reprs_match_torch(self):
        ours, theirs = build(tessera), build(real_torch)
        self.assertEqual(repr(ours), repr(theirs))
        for make in (lambda t: t.nn.ReLU(), lambda t: t.nn.ReLU(inplace=True), lambda t: t.nn.GELU(),
                     lambda t: t.nn.GELU("tanh"), lambda t: t.nn.Dropout(0.2), lambda t: t.nn.Identity(),
                     lambda t: t.nn.AvgPool2d(2), lambda t: t.nn.AdaptiveAvgPool2d((1, 1)),
                     lambda t: t.nn.Conv2d(2, 4, (3, 1), stride=2, groups=2, bias=False),
                     lambda t: t.nn.LeakyReLU(0.2), lambda t: t.nn.Softmax(dim=1), lambda t: t.nn.SiLU(),
                     lambda t: t.nn.Tanh(), lambda t: t.nn.Sigmoid(), lambda t: t.nn.Embedding(4, 2)):
            self.assertEqual(repr(make(tessera)), repr(make(real_torch)))


def _parameter_with_history():
    """A Parameter object whose tensor has a grad_fn (what torch refuses)."""
    y = tessera.ones(2, requires_grad=True) * 2
    y.__class__ = nn.Parameter
    return y


class ModuleBehaviour(unittest.TestCase):
    def test_outputs_match_torch_from_the_same_weights(self):
        real_torch.manual_seed(0)
        theirs = build(real_torch)
        ours = build(tessera)
        copy_weights(theirs, ours)
        x = np.random.default_rng(0).standard_normal((2, 2, 4, 4)).astype(np.float32)
        for train in (True, False):
            theirs.train(train)
            ours.train(train)
            a = ours(tessera.tensor(x))
            b = theirs(real_torch.tensor(x))
            np.testing.assert_allclose(values(a), values(b), rtol=1e-5, atol=1e-5)
        # batch norm's running statistics moved the same way
        np.testing.assert_allclose(values(ours.features[0].bn.running_mean),
                                   values(theirs.features[0].bn.running_mean), rtol=1e-5, atol=1e-6)
        self.assertEqual(ours.features[0].bn.num_batches_tracked.item(), 1)

    def test_embedding_padding_idx_gets_no_gradient(self):
        for torch in (tessera, real_torch):
            e = torch.nn.Embedding(4, 2, padding_idx=1)
            self.assertEqual(e.weight[1].tolist(), [0.0, 0.0])
            e(torch.tensor([[1, 2], [1, 3]])).sum().backward()
            self.assertEqual(e.weight.grad.tolist(), [[0, 0], [0, 0], [1, 1], [1, 1]])
        e = nn.Embedding(4, 2, padding_idx=-1)
        self.assertEqual(e.padding_idx, 3)
        with self.assertRaisesRegex(ValueError, "Padding_idx"):
            F.embedding(tessera.tensor([0]), e.weight, padding_idx=9)

    def test_train_eval_zero_grad_apply_requires_grad(self):
        m = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))
        self.assertTrue(all(x.training for x in m.modules()))
        self.assertIs(m.eval(), m)
        self.assertFalse(any(x.training for x in m.modules()))
        with self.assertRaisesRegex(ValueError, "boolean"):
            m.train(1)
        x = tessera.ones(3, 2)
        self.assertEqual(m(x).tolist(), m[0](x).tolist())  # dropout is the identity in eval
        m(x).sum().backward()
        m.zero_grad()
        self.assertEqual(m[0].weight.grad.tolist(), [[0.0, 0.0], [0.0, 0.0]])
        m.zero_grad(set_to_none=True)
        self.assertIsNone(m[0].weight.grad)
        seen = []
        m.apply(lambda mod: seen.append(type(mod).__name__))
        self.assertEqual(seen, ["Linear", "Dropout", "Sequential"])
        m.requires_grad_(False)
        self.assertFalse(any(p.requires_grad for p in m.parameters()))

    def test_hooks(self):
        m = nn.Linear(2, 2)
        calls = []
        pre = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
        post = m.register_forward_hook(lambda mod, args, out: calls.append(out.shape) or out + 1)
        out = m(tessera.ones(1, 2))
        np.testing.assert_allclose(values(out), values(m.bias + 1)[None, :], rtol=1e-6)
        self.assertEqual(calls, [(1, 2)])
        pre.remove()
        post.remove()
        self.assertEqual(m(tessera.zeros(1, 2)).tolist(), [m.bias.tolist()])

    def test_to_memory_format_and_dtype_keep_parameter_objects(self):
        m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Linear(2, 2))
        params = list(m.parameters())
        opt_ids = [id(p) for p in params]
        m.to(memory_format=tessera.channels_last)
        self.assertEqual([id(p) for p in m.parameters()], opt_ids)
        self.assertTrue(m[0].weight.is_contiguous(memory_format=tessera.channels_last))
        self.assertTrue(m[2].weight.is_contiguous())  # 2-d: unchanged
        self.assertTrue(m[0].weight.requires_grad and m[0].weight.is_leaf)
        m.to(tessera.float64)
        self.assertEqual(m[0].weight.dtype, tessera.float64)
        self.assertEqual(m[1].num_batches_tracked.dtype, tessera.int64)  # not floating: kept
        m.float()
        self.assertEqual(m[2].bias.dtype, tessera.float32)
        with self.assertRaisesRegex(TypeError, "floating point"):
            m.to(tessera.int32)
        self.assertIs(m.cpu(), m)
        with self.assertRaises(AssertionError):  # no GPU here: torch's AssertionError
            m.cuda()

    def test_default_initialisation_ranges(self):
        lin = nn.Linear(100, 50)
        bound = 1 / math.sqrt(100)
        self.assertLessEqual(abs(values(lin.weight)).max(), bound + 1e-7)  # kaiming_uniform(a=sqrt 5)
        self.assertLessEqual(abs(values(lin.bias)).max(), bound + 1e-7)
        conv = nn.Conv2d(4, 8, 3)
        self.assertLessEqual(abs(values(conv.bias)).max(), 1 / math.sqrt(36) + 1e-7)
        emb = values(nn.Embedding(1000, 20).weight)
        self.assertAlmostEqual(emb.std(), 1.0, delta=0.05)  # N(0, 1)
        bn = nn.BatchNorm2d(3)
        self.assertEqual(bn.weight.tolist(), [1.0] * 3)
        self.assertEqual(bn.running_var.tolist(), [1.0] * 3)
        with self.assertRaisesRegex(ValueError, "divisible by groups"):
            nn.Conv2d(3, 4, 3, groups=2)
        with self.assertRaisesRegex(ValueError, "between 0 and 1"):
            nn.Dropout(1.5)
        with self.assertRaisesRegex(ValueError, "expected 4D input"):
            bn(tessera.ones(2, 3))

    def test_containers(self):
        s = nn.Sequential(collections.OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())]))
        self.assertEqual(list(s._modules), ["a", "b"])
        self.assertIsInstance(s[0], nn.ReLU)
        self.assertEqual(len(s[1:]), 1)
        ml = nn.ModuleList([nn.ReLU()])
        ml.append(nn.Tanh())
        ml.insert(0, nn.Sigmoid())
        self.assertEqual([type(x).__name__ for x in ml], ["Sigmoid", "ReLU", "Tanh"])
        del ml[0]
        self.assertEqual(list(ml._modules), ["0", "1"])
        md = nn.ModuleDict({"x": nn.ReLU()})
        md["y"] = nn.Tanh()
        self.assertEqual(list(md.keys()), ["x", "y"])
        self.assertIn("y", md)
        with self.assertRaises(IndexError):
            ml[5]

    def test_loss_modules_match_functional_and_torch(self):
        rng = np.random.default_rng(3)
        x = rng.standard_normal((4, 3)).astype(np.float32)
        target = rng.integers(0, 3, 4)
        prob = 1 / (1 + np.exp(-x))
        y = rng.random((4, 3)).astype(np.float32)
        cases = [("MSELoss", {}, x, y), ("L1Loss", {"reduction": "sum"}, x, y),
                 ("SmoothL1Loss", {"beta": 0.5}, x, y), ("HuberLoss", {"delta": 0.7}, x, y),
                 ("KLDivLoss", {"reduction": "batchmean"}, np.log(prob), y),
                 ("NLLLoss", {}, x, target), ("CrossEntropyLoss", {"label_smoothing": 0.1}, x, target),
                 ("BCELoss", {}, prob, y), ("BCEWithLogitsLoss", {}, x, y)]
        for name, kwargs, a, b in cases:
            ours = getattr(nn, name)(**kwargs)(tessera.tensor(a), tessera.tensor(b))
            theirs = getattr(real_torch.nn, name)(**kwargs)(real_torch.tensor(a), real_torch.tensor(b))
            self.assertAlmostEqual(ours.item(), theirs.item(), places=5, msg=name)


if __name__ == "__main__":
    unittest.main()
