#include "distributed/ddp_verify.h"

#include <cstring>
#include <string>

#include "core/dtype.h"
#include "core/factory.h"
#include "autograd/grad_mode.h"
#include "distributed/collectives.h"
#include "ops/to_device.h"

namespace tsr::distributed {
namespace {

// A parameter as numbers: dtype, ndim, sizes, strides (all ranks' lists
// are compared as these).
void describe(const Tensor& t, std::vector<int64_t>& out) {
  out.push_back(int64_t(t.dtype()));
  out.push_back(t.ndim());
  for (int64_t s : t.sizes()) out.push_back(s);
  for (int64_t s : t.strides()) out.push_back(s);
}

int64_t fnv1a(const std::vector<int64_t>& v) {
  uint64_t h = 1469598103934665603ull;
  for (int64_t x : v) {
    unsigned char b[8];
    std::memcpy(b, &x, 8);
    for (unsigned char c : b) h = (h ^ c) * 1099511628211ull;
  }
  int64_t r;
  std::memcpy(&r, &h, 8);
  return r;
}

const Device kHost{TSR_DEVICE_CPU, 0};

// v on device d (the parameters': the collectives run on their backend,
// NCCL for CUDA, as torch's DDP verifies on the module's device).
Tensor int64_tensor(const std::vector<int64_t>& v, Device d) {
  Tensor t = empty(Shape{int64_t(v.size())}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, kHost);
  if (!v.empty()) std::memcpy(t.data_ptr(), v.data(), v.size() * sizeof(int64_t));
  return ops::to_device(t, d, false);
}

// t's values on the host (t itself when it is there).
Tensor on_host(const Tensor& t) { return ops::to_device(t, kHost, false); }

std::string join_ints(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

// This rank's first parameter differing from rank 0's description, in
// torch's words; empty when they agree.
std::string first_difference(int rank, const std::vector<Tensor>& params, const std::vector<int64_t>& root) {
  size_t k = 0;
  auto at = [&](size_t i) { return i < root.size() ? root[i] : INT64_MIN; };
  for (size_t p = 0; p < params.size(); ++p) {
    const Tensor& t = params[p];
    const int64_t dtype = at(k), ndim = at(k + 1);
    const std::string which = str("[", rank, "]: params[", p, "] in this process");
    if (dtype != int64_t(t.dtype()))
      return str(which, " with dtype ", dtype_name(t.dtype()), " appears not to match dtype of the same param in "
                 "process 0 (", dtype >= 0 && dtype < 64 ? dtype_name(tsr_dtype(dtype)) : "?", ").");
    if (ndim != t.ndim() || k + 2 + 2 * size_t(ndim) > root.size())
      return str(which, " with sizes ", t.sizes(), " appears not to match sizes of the same param in process 0.");
    for (int64_t d = 0; d < ndim; ++d)
      if (root[k + 2 + size_t(d)] != t.size(d))
        return str(which, " with sizes ", t.sizes(), " appears not to match sizes of the same param in process 0.");
    for (int64_t d = 0; d < ndim; ++d)
      if (root[k + 2 + size_t(ndim + d)] != t.stride(d))
        return str(which, " with strides ", t.strides(),
                   " appears not to match strides of the same param in process 0.");
    k += 2 + 2 * size_t(ndim);
  }
  return {};
}

}  // namespace

void verify_params_across_processes(ProcessGroup& pg, const std::vector<Tensor>& params) {
  const int rank = pg.rank(), world = pg.size();
  std::vector<int64_t> meta;
  for (const Tensor& p : params) describe(p, meta);
  // Step 1, fixed size on every rank: count, description length, hash.
  autograd::NoGradGuard no_grad;
  const Device device = params.front().device();
  Tensor mine = int64_tensor({int64_t(params.size()), int64_t(meta.size()), fnv1a(meta)}, device);
  Tensor all = empty(Shape{world, 3}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, device);
  all_gather_into_tensor(pg, all, mine, false);
  const Tensor all_host = on_host(all);
  const int64_t* rows = all_host.data<int64_t>();
  auto row = [&](int r, int c) { return rows[3 * r + c]; };
  for (int r = 0; r < world; ++r)
    TSR_CHECK(row(r, 0) == int64_t(params.size()), TSR_ERR_INVALID_ARGUMENT,
              "DDP expects same model across all ranks, but Rank ", rank, " has ", params.size(),
              " params, while rank ", r, " has inconsistent ", row(r, 0), " params.");
  std::vector<int64_t> differing;
  for (int r = 1; r < world; ++r)
    if (row(r, 1) != row(0, 1) || row(r, 2) != row(0, 2)) differing.push_back(r);
  if (differing.empty()) return;
  // Step 2, every rank: rank 0's description, so each differing rank can
  // name its parameter.
  std::vector<int64_t> root_meta(size_t(row(0, 1)));
  if (rank == 0) root_meta = meta;
  Tensor root = int64_tensor(root_meta, device);
  broadcast(pg, root, 0, false);
  if (!root_meta.empty()) std::memcpy(root_meta.data(), on_host(root).data_ptr(), root_meta.size() * sizeof(int64_t));
  const std::string mismatch = first_difference(rank, params, root_meta);
  if (!mismatch.empty()) fail(TSR_ERR_INVALID_ARGUMENT, mismatch);
  fail(TSR_ERR_INVALID_ARGUMENT, "DDP expects same model across all ranks, but the parameters of rank(s) ",
       join_ints(differing), " do not match process 0's in sizes, strides or dtype (the error on those ranks names "
       "the parameter).");
}

void broadcast_params(ProcessGroup& pg, const std::vector<Tensor>& params) {
  if (pg.size() == 1) return;
  std::vector<std::shared_ptr<Work>> works;
  works.reserve(params.size());
  for (const Tensor& p : params) works.push_back(broadcast(pg, p, 0, true));
  for (auto& w : works) {
    if (!w->wait_for(pg.timeout()))
      fail(TSR_ERR_DISTRIBUTED, "DistributedDataParallel: broadcasting rank 0's parameters: ",
           pg.wait_timed_out(pg.timeout()));
    if (w->status() != TSR_OK) throw Error(w->status(), w->message());
  }
}

}  // namespace tsr::distributed
