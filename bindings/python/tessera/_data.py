"""tessera.utils.data: torch.utils.data's datasets, samplers, collation and
DataLoader, loading in the calling process.

    ds = TensorDataset(images, labels)
    train, val = random_split(ds, [0.9, 0.1], generator=tessera.Generator().manual_seed(0))
    for x, y in DataLoader(train, batch_size=64, shuffle=True, drop_last=True):
        ...

shuffle draws a permutation per epoch from `generator` (the default
generator when None), so a seeded generator gives the same batches on every
run; the numbers are tessera's Philox stream, not torch's. num_workers is
accepted and the batches are still made in this process. A TensorDataset
with the default collation is batched by indexing each tensor with the
batch's indices (one gather per tensor), the same result as stacking the
samples one by one.
"""
import bisect
import collections.abc
import math
import numbers

from . import _core
from ._factories import tensor
from ._functions import stack
from ._random import default_generator, randperm

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "DataLoader",
           "random_split", "default_collate", "Sampler", "SequentialSampler", "RandomSampler",
           "BatchSampler", "SubsetRandomSampler"]

_N = _core.Tensor


class Dataset:
    """A map-style dataset: __getitem__(index) and __len__."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset read by iterating it (__iter__), not by index."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")


class TensorDataset(Dataset):
    """Samples are (t[i] for t in tensors); every tensor has the same size
    along dim 0."""

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        if any(t.size(0) != tensors[0].size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")  # torch asserts
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class Subset(Dataset):
    """The samples of dataset at indices."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """Datasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("datasets should not be an empty iterable")
        self.cumulative_sizes, total = [], 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, index):
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


def random_split(dataset, lengths, generator=None):
    """Non-overlapping Subsets of the given lengths, or fractions of
    len(dataset) summing to 1 (the remainder spread one by one from the
    first), from a permutation drawn from generator."""
    n = len(dataset)
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        for i, frac in enumerate(lengths):
            if not 0 <= frac <= 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = randperm(n, generator=generator).tolist()
    subsets, offset = [], 0
    for length in lengths:
        subsets.append(Subset(dataset, order[offset:offset + length]))
        offset += length
    return subsets


# ---- samplers --------------------------------------------------------------------------
class Sampler:
    """Yields dataset indices."""

    def __init__(self, data_source=None):
        pass


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A new permutation of the indices each epoch (replacement=False)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        if replacement:
            raise ValueError("RandomSampler: replacement=True is not supported")
        if num_samples is not None and (not isinstance(num_samples, int) or num_samples <= 0):
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        self.data_source, self.generator = data_source, generator
        self._num_samples = num_samples

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        produced = 0
        while produced < self.num_samples:
            for i in randperm(n, generator=self.generator).tolist():
                if produced == self.num_samples:
                    return
                produced += 1
                yield i

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class BatchSampler(Sampler):
    """Lists of batch_size indices from sampler (the last shorter unless
    drop_last)."""

    def __init__(self, sampler, batch_size, drop_last):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


# ---- collation -------------------------------------------------------------------------
def default_collate(batch):
    """torch's default_collate: tensors stacked along a new dim 0, Python
    floats to a float64 tensor, ints to int64, strings kept as a list,
    mappings and sequences collated field by field."""
    elem = batch[0]
    if isinstance(elem, _N):
        return stack(list(batch), 0)
    if isinstance(elem, bool):
        return tensor(list(batch))
    if isinstance(elem, numbers.Integral):
        return tensor(list(batch))
    if isinstance(elem, float):
        from ._dtypes import dtype
        return tensor(list(batch), dtype=dtype.float64)
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        return type(elem)({key: default_collate([d[key] for d in batch]) for key in elem}) \
            if not isinstance(elem, dict) or type(elem) is dict else \
            {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(samples)) for samples in zip(*batch)]
    raise TypeError("default_collate: batch must contain tensors, numbers, dicts or lists; "
                    f"found {type(elem)}")


class DataLoader:
    """torch.utils.data.DataLoader (batch_size, shuffle, sampler,
    batch_sampler, drop_last, collate_fn, generator; the worker and
    pin-memory options are accepted, loading stays in this process)."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=2, persistent_workers=False, pin_memory_device=""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        self.dataset, self.num_workers, self.generator = dataset, num_workers, generator
        self.drop_last = drop_last
        self._iterable = isinstance(dataset, IterableDataset)
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.sampler, self.batch_sampler = batch_size, sampler, batch_sampler
        self._default_collate = collate_fn is None
        self.collate_fn = default_collate if collate_fn is None else collate_fn

    def __len__(self):
        if self._iterable:
            return len(self.dataset)
        return len(self.batch_sampler) if self.batch_sampler is not None else len(self.sampler)

    def __iter__(self):
        if self._iterable:
            yield from self._iterate_iterable()
            return
        if self.batch_sampler is None:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index]) if not self._default_collate \
                    else self.dataset[index]
            return
        gather = self._default_collate and type(self.dataset) is TensorDataset
        for indices in self.batch_sampler:
            if gather:
                where = tensor(indices)
                yield [t[where] for t in self.dataset.tensors]
            else:
                yield self.collate_fn([self.dataset[i] for i in indices])

    def _iterate_iterable(self):
        if self.batch_size is None:
            yield from (self.collate_fn(x) if not self._default_collate else x for x in self.dataset)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)
