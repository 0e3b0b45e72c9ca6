// libFuzzer target: the indexing and scatter entry points (indexing.h, and
// gather / index_select of ops.h) on crafted arguments. The input is read
// as a little program: self's dtype, sizes and view (transposed, sliced
// with a step, a stride-0 expand), an index tensor's dtype, sizes and
// values (any int64: negative, huge, INT64_MIN), a dim (possibly out of
// range), then the op. Every call must either succeed or fail with a
// status and a message; a failing in-place call must leave self's storage
// byte for byte as it was. Tensors stay small (at most 4096 elements) so
// that libFuzzer's memory limit reports bugs, not large requests.
//
// Run: fuzz_index -max_total_time=60 (no seed corpus needed).
#include <cstdint>
#include <cstring>
#include <vector>

#include <tessera/tessera.h>

namespace {

struct Reader {
  const uint8_t* p;
  size_t n;
  uint8_t byte() {
    if (!n) return 0;
    --n;
    return *p++;
  }
  int64_t i64() {
    int64_t v = 0;
    for (int k = 0; k < 8; ++k) v = int64_t(uint64_t(v) << 8 | byte());
    return v;
  }
  // A small signed value most of the time, any int64 sometimes.
  int64_t index() {
    const uint8_t b = byte();
    if (b < 200) return int64_t(b % 16) - 6;
    if (b < 250) return int64_t(b) * 1000003;
    return i64();
  }
};

void must(bool ok) {
  if (!ok) __builtin_trap();
}

// A status other than OK must come with a message.
void check_status(tsr_status s) {
  if (s == TSR_OK) return;
  const char* m = tsr_last_error_message();
  must(m && *m);
}

tsr_tensor* tensor(Reader& r, tsr_dtype dtype, int64_t max_numel, bool index_values) {
  const int64_t ndim = r.byte() % 4;
  int64_t sizes[3] = {1, 1, 1}, numel = 1;
  for (int64_t d = 0; d < ndim; ++d) {
    sizes[d] = r.byte() % 9;
    numel *= sizes[d];
  }
  if (numel > max_numel) return nullptr;
  std::vector<int64_t> v(size_t(numel ? numel : 1));
  for (int64_t& x : v) x = index_values ? r.index() : int64_t(r.byte()) - 100;
  tsr_tensor *t64 = nullptr, *t = nullptr;
  if (tsr_from_data(v.data(), size_t(numel) * 8, ndim, sizes, TSR_INT64, &t64) != TSR_OK) return nullptr;
  const tsr_status s = tsr_to_dtype(t64, dtype, &t);
  tsr_tensor_release(t64);
  return s == TSR_OK ? t : nullptr;
}

// A view of t: itself, transposed, every other element of dim 0, or a
// stride-0 expand of a size-1 dim.
tsr_tensor* view_of(Reader& r, tsr_tensor* t) {
  tsr_tensor* v = nullptr;
  const int64_t nd = tsr_tensor_ndim(t);
  switch (r.byte() % 4) {
    case 1:
      if (nd >= 2 && tsr_transpose(t, 0, nd - 1, &v) == TSR_OK) return v;
      break;
    case 2:
      if (nd >= 1 && tsr_slice(t, 0, 0, INT64_MAX, 2, &v) == TSR_OK) return v;
      break;
    case 3: {
      int64_t sizes[3];
      for (int64_t d = 0; d < nd; ++d) sizes[d] = tsr_tensor_sizes(t)[d] == 1 ? 3 : tsr_tensor_sizes(t)[d];
      if (tsr_expand(t, nd, sizes, &v) == TSR_OK) return v;
      break;
    }
    default: break;
  }
  tsr_tensor_retain(t);
  return t;
}

const tsr_dtype kSelfDtypes[] = {TSR_FLOAT32, TSR_FLOAT64, TSR_INT64, TSR_INT32, TSR_BOOL, TSR_BFLOAT16, TSR_UINT8};
const tsr_dtype kIndexDtypes[] = {TSR_INT64, TSR_INT64, TSR_INT64, TSR_BOOL, TSR_INT32, TSR_FLOAT32};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r{data, size};
  const tsr_dtype dtype = kSelfDtypes[r.byte() % 7];
  tsr_tensor* base = tensor(r, dtype, 512, false);
  if (!base) return 0;
  tsr_tensor* self = view_of(r, base);
  tsr_tensor* index = tensor(r, kIndexDtypes[r.byte() % 6], 64, true);
  tsr_tensor* index2 = tensor(r, kIndexDtypes[r.byte() % 6], 64, true);
  tsr_tensor* src = tensor(r, dtype, 512, false);
  const int64_t dim = int64_t(r.byte() % 8) - 4;
  const uint8_t op = r.byte();
  // self's storage before any write
  const size_t nbytes = size_t(tsr_tensor_nbytes(base));
  std::vector<uint8_t> before(nbytes);
  if (nbytes) std::memcpy(before.data(), tsr_tensor_data_ptr(base), nbytes);
  tsr_tensor* out = nullptr;
  tsr_status s = TSR_OK;
  bool writes = false;
  const tsr_tensor* list[3] = {index, r.byte() % 2 ? nullptr : index2, index2};
  const int64_t nlist = r.byte() % 4;
  switch (op % 16) {
    case 0: s = tsr_index(self, nlist, list, &out); break;
    case 1: writes = true, s = tsr_index_put_(self, nlist, list, src, r.byte() % 2); break;
    case 2: s = tsr_index_put(self, nlist, list, src, true, &out); break;
    case 3: writes = true, s = tsr_scatter_(self, dim, index, src); break;
    case 4: writes = true, s = tsr_scatter_value_(self, dim, index, 1.5); break;
    case 5: writes = true, s = tsr_scatter_add_(self, dim, index, src); break;
    case 6:
      writes = true, s = tsr_scatter_reduce_(self, dim, index, src, tsr_scatter_reduction(r.byte() % 6), r.byte() % 2);
      break;
    case 7: writes = true, s = tsr_index_add_(self, dim, index, src, 2.0); break;
    case 8: writes = true, s = tsr_index_copy_(self, dim, index, src); break;
    case 9: writes = true, s = tsr_index_fill_(self, dim, index, -1.0); break;
    case 10: writes = true, s = tsr_masked_fill_(self, index, 3.0); break;
    case 11: s = tsr_masked_select(self, index, &out); break;
    case 12: s = tsr_take_along_dim(self, index, r.byte() % 2 ? &dim : nullptr, &out); break;
    case 13: s = tsr_nonzero(index, &out); break;
    case 14: s = tsr_gather(self, dim, index, &out); break;
    default: s = tsr_index_select(self, dim, index, &out); break;
  }
  check_status(s);
  if (s != TSR_OK) {
    must(out == nullptr);
    if (writes && nbytes) must(std::memcmp(before.data(), tsr_tensor_data_ptr(base), nbytes) == 0);
  }
  if (out) {  // the result is readable
    tsr_tensor* c = nullptr;
    check_status(tsr_contiguous(out, TSR_CONTIGUOUS_FORMAT, &c));
    tsr_tensor_release(c);
  }
  tsr_tensor_release(out);
  tsr_tensor_release(src);
  tsr_tensor_release(index2);
  tsr_tensor_release(index);
  tsr_tensor_release(self);
  tsr_tensor_release(base);
  return 0;
}
