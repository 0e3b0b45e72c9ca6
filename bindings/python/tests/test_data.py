"""tessera.utils.data against torch.utils.data: the same batches without
shuffling, a seeded generator's reproducible shuffling (tessera's own
numbers), samplers, collation and random_split."""
import unittest

import torch as real_torch
import torch.utils.data

import tessera
from tessera.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset,
                                RandomSampler, SequentialSampler, Subset, TensorDataset,
                                default_collate, random_split)


def tolists(batches):
    return [[b.tolist() if hasattr(b, "tolist") else b for b in batch] for batch in batches]


class Squares(Dataset):
    def __len__(self):
        return 7

    def __getitem__(self, i):
        return {"x": float(i), "y": i * i, "name": f"s{i}", "v": [i, -i]}


class Loading(unittest.TestCase):
    def test_unshuffled_batches_equal_torch(self):
        for drop_last in (False, True):
            ours = DataLoader(TensorDataset(tessera.arange(10.), tessera.arange(10)), batch_size=4,
                              drop_last=drop_last)
            theirs = real_torch.utils.data.DataLoader(
                real_torch.utils.data.TensorDataset(real_torch.arange(10.), real_torch.arange(10)),
                batch_size=4, drop_last=drop_last)
            self.assertEqual(tolists(ours), tolists(theirs))
            self.assertEqual(len(ours), len(theirs))

    def test_default_collate_equals_torch(self):
        ours = list(DataLoader(Squares(), batch_size=3))
        theirs = list(real_torch.utils.data.DataLoader(Squares(), batch_size=3))
        self.assertEqual(len(ours), len(theirs))
        for a, b in zip(ours, theirs):
            self.assertEqual(a["x"].tolist(), b["x"].tolist())
            self.assertEqual(a["x"].dtype, tessera.float64)
            self.assertEqual(a["y"].tolist(), b["y"].tolist())
            self.assertEqual(a["name"], b["name"])
            self.assertEqual([t.tolist() for t in a["v"]], [t.tolist() for t in b["v"]])
        self.assertEqual(default_collate([tessera.ones(2), tessera.zeros(2)]).shape, (2, 2))

    def test_seeded_shuffling_is_reproducible_and_complete(self):
        def epochs(seed):
            loader = DataLoader(TensorDataset(tessera.arange(20)), batch_size=6, shuffle=True,
                                generator=tessera.Generator().manual_seed(seed))
            return [tolists(loader) for _ in range(2)]
        first, again, other = epochs(1), epochs(1), epochs(2)
        self.assertEqual(first, again)
        self.assertNotEqual(first, other)
        self.assertNotEqual(first[0], first[1])  # a new order each epoch
        for epoch in first:
            seen = sorted(v for batch in epoch for v in batch[0])
            self.assertEqual(seen, list(range(20)))
            self.assertEqual([len(b[0]) for b in epoch], [6, 6, 6, 2])
        tessera.manual_seed(5)
        a = tolists(DataLoader(TensorDataset(tessera.arange(8)), batch_size=8, shuffle=True))
        tessera.manual_seed(5)
        b = tolists(DataLoader(TensorDataset(tessera.arange(8)), batch_size=8, shuffle=True))
        self.assertEqual(a, b)  # the default generator, reseeded

    def test_collate_fn_batch_sampler_and_iterable(self):
        loader = DataLoader(list(range(5)), batch_size=2, collate_fn=lambda b: sum(b))
        self.assertEqual(list(loader), [1, 5, 4])
        loader = DataLoader(list(range(5)), batch_sampler=[[4, 0], [1]])
        self.assertEqual([b.tolist() for b in loader], [[4, 0], [1]])

        class Count(IterableDataset):
            def __iter__(self):
                return iter(range(5))
        self.assertEqual([b.tolist() for b in DataLoader(Count(), batch_size=2)], [[0, 1], [2, 3], [4]])
        self.assertEqual([b.tolist() for b in DataLoader(Count(), batch_size=2, drop_last=True)],
                         [[0, 1], [2, 3]])

    def test_argument_errors_as_torch(self):
        for module in (tessera.utils.data, real_torch.utils.data):
            with self.assertRaisesRegex(ValueError, "mutually exclusive"):
                module.DataLoader(list(range(3)), sampler=[0], shuffle=True)
            with self.assertRaisesRegex(ValueError, "batch_size should be a positive integer"):
                list(module.DataLoader(list(range(3)), batch_size=0))
        for torch in (tessera, real_torch):
            with self.assertRaisesRegex(AssertionError, "Size mismatch"):
                torch.utils.data.TensorDataset(torch.zeros(2), torch.zeros(3))


class Splitting(unittest.TestCase):
    def test_random_split_lengths_and_fractions(self):
        g = tessera.Generator().manual_seed(0)
        a, b = random_split(range(10), [7, 3], generator=g)
        self.assertEqual((len(a), len(b)), (7, 3))
        self.assertEqual(sorted(list(a) + list(b)), list(range(10)))
        parts = random_split(range(11), [0.5, 0.3, 0.2], generator=g)
        theirs = real_torch.utils.data.random_split(range(11), [0.5, 0.3, 0.2])
        self.assertEqual([len(p) for p in parts], [len(p) for p in theirs])
        with self.assertRaisesRegex(ValueError, "Sum of input lengths"):
            random_split(range(10), [5, 4])

    def test_subset_concat_samplers(self):
        s = Subset(list("abcdef"), [5, 0])
        self.assertEqual([s[0], s[1]], ["f", "a"])
        c = ConcatDataset([[1, 2], [3]])
        self.assertEqual([c[i] for i in range(len(c))], [1, 2, 3])
        self.assertEqual(c[-1], 3)
        self.assertEqual(list(SequentialSampler(range(3))), [0, 1, 2])
        self.assertEqual(sorted(RandomSampler(range(5))), [0, 1, 2, 3, 4])
        self.assertEqual(len(list(RandomSampler(range(5), num_samples=12))), 12)
        self.assertEqual(list(BatchSampler(range(5), 2, False)), [[0, 1], [2, 3], [4]])
        self.assertEqual(len(BatchSampler(range(5), 2, True)), 2)


if __name__ == "__main__":
    unittest.main()
