#include "cpu/kernels/advanced_index.h"

#include <cstring>
#include <sstream>

#include "core/views.h"
#include "cpu/kernels/copy.h"
#include "cpu/kernels/empty_cpu.h"
#include "cpu/kernels/index_walk.h"
#include "cpu/kernels/map.h"
#include "cpu/kernels/parallel_for.h"

namespace tsr::kernels {

namespace {

bool is_mask(const Tensor& t) { return t.dtype() == TSR_BOOL || t.dtype() == TSR_UINT8; }

// The element offsets of every position of `sizes` (C order) read through
// `strides`.
std::vector<int64_t> offsets_of(const Shape& sizes, const Shape& strides) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<int64_t> out;
  if (sizes.empty()) return {0};
  if (sizes.size() == 1) {  // the common case, without walk's bookkeeping
    out.resize(size_t(n));
    for (int64_t i = 0; i < n; ++i) out[size_t(i)] = i * strides[0];
    return out;
  }
  out.reserve(size_t(n));
  walk<1>(sizes, {strides}, [&](const std::array<int64_t, 1>& o) { out.push_back(o[0]); });
  return out;
}

Shape sub_shape(const Shape& s, size_t begin, size_t end) { return Shape(s.begin() + begin, s.begin() + end); }

// Copies one element of `size` bytes (the dtypes' sizes are 1, 2, 4, 8).
inline void copy_element(char* d, const char* s, int64_t size) {
  switch (size) {
    case 1: *d = *s; break;
    case 2: std::memcpy(d, s, 2); break;
    case 4: std::memcpy(d, s, 4); break;
    case 8: std::memcpy(d, s, 8); break;
    default: std::memcpy(d, s, size_t(size));
  }
}

}  // namespace

void check_index_tensors(const Tensor& self, const std::vector<Tensor>& indices) {
  int64_t consumed = 0;
  for (const Tensor& t : indices) {
    if (!t.defined()) {
      ++consumed;
      continue;
    }
    TSR_CHECK(t.dtype() == TSR_INT64 || is_mask(t), TSR_ERR_DTYPE_MISMATCH,
              "tensors used as indices must be long, byte or bool tensors (got ", dtype_name(t.dtype()), ")");
    consumed += is_mask(t) ? std::max<int64_t>(t.ndim(), 1) : 1;
  }
  TSR_CHECK(consumed <= self.ndim(), TSR_ERR_INDEX_OUT_OF_RANGE, "too many indices for tensor of dimension ",
            self.ndim(), " (got ", consumed, ")");
}

IndexGeometry index_geometry(const Tensor& self, const std::vector<Tensor>& given,
                             const std::function<Tensor(const Tensor&)>& coordinates) {
  check_index_tensors(self, given);
  // Masks become their nonzero() coordinates, one int64 tensor per dim.
  IndexGeometry g;
  std::vector<Tensor>& idx = g.idx;
  for (const Tensor& t : given) {
    if (!t.defined() || !is_mask(t)) {
      idx.push_back(t);
      continue;
    }
    const int64_t at = int64_t(idx.size());
    for (int64_t j = 0; j < t.ndim(); ++j)
      TSR_CHECK(t.sizes()[size_t(j)] == self.sizes()[size_t(at + j)], TSR_ERR_INDEX_OUT_OF_RANGE,
                "The shape of the mask ", t.sizes(), " at index ", j,
                " does not match the shape of the indexed tensor ", self.sizes(), " at index ", at + j);
    if (t.ndim() == 0) {
      // A 0-dim mask indexes nothing and adds a dim of 1 or 0 (torch's
      // x[True] / x[False]); the caller unsqueezes, so it is refused here.
      fail(TSR_ERR_INDEX_OUT_OF_RANGE, "a 0-dim mask cannot index a dim (unsqueeze self first, as x[True] does)");
    }
    const Tensor nz = coordinates(t);
    for (int64_t j = 0; j < t.ndim(); ++j) idx.push_back(views::select(nz, 1, j));
  }
  idx.resize(size_t(self.ndim()));

  // Broadcast the defined ones together.
  Shape bshape;
  bool any = false;
  std::ostringstream shapes;  // torch's message lists every index's shape
  for (const Tensor& t : idx)
    if (t.defined()) {
      if (any) shapes << ", ";
      append_to(shapes, t.sizes());
      any = true;
    }
  any = false;
  for (const Tensor& t : idx)
    if (t.defined()) {
      if (!any) {
        bshape = t.sizes();
        any = true;
        continue;
      }
      Shape out;
      TSR_CHECK(try_broadcast_shapes(bshape, t.sizes(), &out), TSR_ERR_INDEX_OUT_OF_RANGE,
                "shape mismatch: indexing tensors could not be broadcast together with shapes ", shapes.str());
      bshape = out;
    }

  g.index_shape = bshape;
  g.src = self;
  for (size_t d = 0; d < idx.size(); ++d)  // the indexed dims, in self's numbering
    if (idx[d].defined()) g.dims.push_back(int64_t(d));
  g.count = int64_t(g.dims.size());
  if (!g.dims.empty() && g.dims.back() - g.dims.front() + 1 == g.count) {
    g.first = g.dims.front();
  } else if (!g.dims.empty()) {  // torch's transposeToFront: indexed dims first, the others after
    Shape perm(g.dims.begin(), g.dims.end());
    for (int64_t d = 0; d < self.ndim(); ++d)
      if (!idx[size_t(d)].defined()) perm.push_back(d);
    g.src = views::permute(self, perm);
  }
  const Shape& ss = g.src.sizes();
  g.result_sizes = sub_shape(ss, 0, size_t(g.first));
  g.result_sizes.insert(g.result_sizes.end(), bshape.begin(), bshape.end());
  const Shape post = sub_shape(ss, size_t(g.first + g.count), ss.size());
  g.result_sizes.insert(g.result_sizes.end(), post.begin(), post.end());
  return g;
}

IndexPlan plan_index(const Tensor& self, const std::vector<Tensor>& given) {
  const IndexGeometry g = index_geometry(self, given, [](const Tensor& mask) { return nonzero(mask); });
  IndexPlan plan;
  plan.src = g.src;
  plan.first = g.first;
  plan.count = g.count;
  plan.index_shape = g.index_shape;
  plan.result_sizes = g.result_sizes;
  if (g.dims.empty()) {
    plan.offsets = {0};
    return plan;
  }
  const std::vector<Tensor>& idx = g.idx;
  const std::vector<int64_t>& dims = g.dims;
  const Shape& bshape = g.index_shape;

  // Offsets: every index checked (and wrapped) before anything uses them.
  int64_t nb = 1;
  for (int64_t s : bshape) nb *= s;
  plan.offsets.assign(size_t(nb), 0);
  for (int64_t d : dims) {
    const int64_t size = self.sizes()[size_t(d)], stride = self.strides()[size_t(d)];
    const Tensor v = contiguous_as(views::expand_or_self(idx[size_t(d)], bshape), TSR_INT64);
    const int64_t* p = v.data<int64_t>();
    for (int64_t b = 0; b < nb; ++b) {
      int64_t i = p[b];
      TSR_CHECK(i >= -size && i < size, TSR_ERR_INDEX_OUT_OF_RANGE, "index ", i, " is out of bounds for dimension ",
                d, " with size ", size);
      if (i < 0) i += size;
      plan.offsets[size_t(b)] += i * stride;
    }
  }
  return plan;
}

namespace {

// The three parts of a result position: pre dims, index position, post
// dims, with the element offsets of src (or of values read in the
// result's shape) for each.
struct Parts {
  std::vector<int64_t> pre, post;
};

Parts parts_of(const IndexPlan& plan, const Shape& strides) {
  const Shape& ss = plan.src.sizes();
  const size_t a = size_t(plan.first), b = size_t(plan.first + plan.count);
  return {offsets_of(sub_shape(ss, 0, a), sub_shape(strides, 0, a)),
          offsets_of(sub_shape(ss, b, ss.size()), sub_shape(strides, b, ss.size()))};
}

}  // namespace

Tensor index(const IndexPlan& plan) {
  Tensor out = empty_cpu(plan.result_sizes, plan.src.dtype());
  if (out.numel() == 0) return out;
  const Parts src = parts_of(plan, plan.src.strides());
  const int64_t nb = int64_t(plan.offsets.size()), np = int64_t(src.post.size());
  const int64_t es = out.element_size();
  const char* sp = static_cast<const char*>(plan.src.data_ptr());
  char* op = static_cast<char*>(out.data_ptr());
  const bool dense_post = np == 1 || (np > 1 && src.post[1] - src.post[0] == 1 && src.post.back() == np - 1);
  parallel_for(int64_t(src.pre.size()) * nb, std::max<int64_t>(1, kGrainSize / np), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t base = src.pre[size_t(r / nb)] + plan.offsets[size_t(r % nb)];
      char* d = op + r * np * es;
      if (dense_post) {
        std::memcpy(d, sp + (base + src.post[0]) * es, size_t(np * es));
        continue;
      }
      for (int64_t p = 0; p < np; ++p) copy_element(d + p * es, sp + (base + src.post[size_t(p)]) * es, es);
    }
  });
  return out;
}

void index_put_into(const IndexPlan& plan, const Tensor& values, bool accumulate) {
  Shape checked;
  TSR_CHECK(try_broadcast_shapes(values.sizes(), plan.result_sizes, &checked) && checked == plan.result_sizes,
            TSR_ERR_SHAPE_MISMATCH, "shape mismatch: value tensor of shape ", values.sizes(),
            " cannot be broadcast to indexing result of shape ", plan.result_sizes);
  int64_t total = 1;
  for (int64_t s : plan.result_sizes) total *= s;
  if (total == 0) return;
  const Tensor v = views::expand_or_self(values, plan.result_sizes);
  const Parts dst = parts_of(plan, plan.src.strides());
  // values read in the result's shape: pre dims, the index dims, post dims.
  const size_t a = size_t(plan.first), nbd = plan.index_shape.size();
  const Shape& vs = v.strides();
  const Parts val{offsets_of(sub_shape(plan.result_sizes, 0, a), sub_shape(vs, 0, a)),
                  offsets_of(sub_shape(plan.result_sizes, a + nbd, vs.size()), sub_shape(vs, a + nbd, vs.size()))};
  const int64_t nb = int64_t(plan.offsets.size()), np = int64_t(dst.post.size());
  // One element per index position of a 1-d index (x[idx] = v, x[mask] =
  // v): one loop, values read through their one stride.
  if (!accumulate && dst.pre.size() == 1 && np == 1 && nbd == 1) {
    const int64_t base = dst.pre[0] + dst.post[0], vbase = val.pre[0] + val.post[0], vstride = vs[a];
    dispatch_all(plan.src.dtype(), [&]<typename T>() {
      T* sp = plan.src.data<T>();
      const T* vp = v.data<T>() + vbase;
      const int64_t* off = plan.offsets.data();
      for (int64_t b = 0; b < nb; ++b) sp[base + off[b]] = vp[b * vstride];
    });
    return;
  }
  const std::vector<int64_t> vb = offsets_of(plan.index_shape, sub_shape(vs, a, a + nbd));
  dispatch_all(plan.src.dtype(), [&]<typename T>() {
    T* sp = plan.src.data<T>();
    const T* vp = v.data<T>();
    // In order, on one thread: repeated positions add up (or the last one
    // wins) the same way on every run.
    for (size_t q = 0; q < dst.pre.size(); ++q)
      for (int64_t b = 0; b < nb; ++b) {
        const int64_t base = dst.pre[q] + plan.offsets[size_t(b)], vbase = val.pre[q] + vb[size_t(b)];
        for (int64_t p = 0; p < np; ++p) {
          T& d = sp[base + dst.post[size_t(p)]];
          const T x = vp[vbase + val.post[size_t(p)]];
          if (!accumulate) {
            d = x;
          } else if constexpr (std::is_same_v<T, bool>) {
            d = d || x;
          } else if constexpr (std::is_integral_v<T>) {
            using U = std::make_unsigned_t<T>;
            d = T(U(U(d) + U(x)));
          } else {
            d = T(compute_t<T>(d) + compute_t<T>(x));
          }
        }
      }
  });
}

Tensor nonzero(const Tensor& x) {
  const int64_t nd = x.ndim();
  const Tensor b = contiguous_as(x, TSR_BOOL);
  const bool* p = b.data<bool>();
  const int64_t n = b.numel();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += p[i];
  Tensor out = empty_cpu({count, nd}, TSR_INT64);
  if (nd == 0) return out;  // a 0-dim x: [1, 0] or [0, 0], no coordinates to write
  int64_t* o = out.data<int64_t>();
  std::vector<int64_t> pos(size_t(nd), 0);
  for (int64_t i = 0; i < n; ++i) {
    if (p[i]) {
      std::memcpy(o, pos.data(), size_t(nd) * sizeof(int64_t));
      o += nd;
    }
    for (int64_t d = nd; d-- > 0;) {
      if (++pos[size_t(d)] < x.sizes()[size_t(d)]) break;
      pos[size_t(d)] = 0;
    }
  }
  return out;
}

Tensor masked_select(const Tensor& x, const Tensor& mask) {
  const Shape shape = broadcast_shapes(x.sizes(), mask.sizes());
  const Tensor xs = contiguous_or_self(views::expand_or_self(x, shape));
  const Tensor ms = contiguous_as(views::expand_or_self(mask, shape), TSR_BOOL);
  const int64_t n = ms.numel(), es = x.element_size();
  const bool* m = ms.data<bool>();
  // Two passes over blocks: count each block's selected elements, then
  // copy each block's to its place (the blocks split over threads).
  constexpr int64_t kBlock = 1 << 16;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<int64_t> start(size_t(blocks) + 1, 0);
  parallel_for(blocks, 4, [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; ++blk) {
      int64_t c = 0;
      for (int64_t i = blk * kBlock, e = std::min(n, i + kBlock); i < e; ++i) c += m[i] ? 1 : 0;
      start[size_t(blk) + 1] = c;
    }
  });
  for (int64_t blk = 0; blk < blocks; ++blk) start[size_t(blk) + 1] += start[size_t(blk)];
  Tensor out = empty_cpu({start.back()}, x.dtype());
  // Each block compacts branch-free into a staging buffer (every element is
  // stored, the slot advancing only past selected ones), then copies what
  // it kept: no mispredicted branches on a random mask, no store beyond the
  // block's own slots.
  auto compact = [&]<typename E>() {
    const E* sp = static_cast<const E*>(xs.data_ptr());
    E* op = static_cast<E*>(out.data_ptr());
    parallel_for(blocks, 4, [&](int64_t b0, int64_t b1) {
      std::vector<E> stage(size_t(kBlock) + 1);
      for (int64_t blk = b0; blk < b1; ++blk) {
        int64_t k = 0;
        for (int64_t i = blk * kBlock, e = std::min(n, i + kBlock); i < e; ++i) {
          stage[size_t(k)] = sp[i];
          k += m[i] ? 1 : 0;
        }
        if (k) std::memcpy(op + start[size_t(blk)], stage.data(), size_t(k) * sizeof(E));
      }
    });
  };
  switch (es) {
    case 1: compact.template operator()<uint8_t>(); break;
    case 2: compact.template operator()<uint16_t>(); break;
    case 4: compact.template operator()<uint32_t>(); break;
    default: compact.template operator()<uint64_t>(); break;
  }
  return out;
}

int64_t count_true(const Tensor& mask, const Shape& shape) {
  const Tensor m = contiguous_as(views::expand_or_self(mask, shape), TSR_BOOL);
  const bool* p = m.data<bool>();
  int64_t n = 0;
  for (int64_t i = 0; i < m.numel(); ++i) n += p[i];
  return n;
}

double scalar_value(const Tensor& t) {
  return dispatch_all(t.dtype(), [&]<typename T>() { return double(compute_t<T>(*t.data<T>())); });
}

void masked_fill_into(const Tensor& self, const Tensor& mask, double value) {
  if (self.numel() == 0) return;
  const Tensor mb = converted(views::expand_or_self(mask, self.sizes()), TSR_BOOL);
  const size_t nd = size_t(std::max<int64_t>(self.ndim(), 1));
  const Shape sizes = self.ndim() ? self.sizes() : Shape{1};
  const bool dense = is_contiguous_strides(self.sizes(), self.strides()) &&
                     is_contiguous_strides(mb.sizes(), mb.strides());
  dispatch_all(self.dtype(), [&]<typename T>() {
    const T v = T(compute_t<T>(value));
    T* sp = self.data<T>();
    const bool* mp = mb.data<bool>();
    if (dense) {  // one pass over both, split across threads
      parallel_for(self.numel(), kGrainSize, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i)
          if (mp[i]) sp[i] = v;
      });
      return;
    }
    walk<2>(sizes, {strides_for(self, nd), strides_for(mb, nd)}, [&](const std::array<int64_t, 2>& o) {
      if (mp[o[1]]) sp[o[0]] = v;
    });
  });
}

}  // namespace tsr::kernels
