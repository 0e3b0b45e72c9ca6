#include "io/shared_views.h"

#include <algorithm>
#include <limits>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/layout.h"
#include "core/shape.h"
#include "io/quote.h"

namespace tsr::io {

namespace {

// Last element reached (from storage_offset), strides >= 0, numel > 0.
int64_t extent(const Shape& sizes, const Shape& strides) {
  int64_t e = 0;
  for (size_t d = 0; d < sizes.size(); ++d) e += (sizes[d] - 1) * strides[d];
  return e;
}

bool groupable(const Tensor& t) {
  if (t.numel() == 0) return false;
  for (int64_t s : t.strides())
    if (s < 0) return false;
  return true;
}

}  // namespace

ViewPlan plan_views(std::vector<SaveItem> items) {
  ViewPlan plan;
  std::set<std::string> names;
  for (const SaveItem& it : items) names.insert(it.name);
  // Groups in the caller's order of their first tensors (a sharded save
  // keeps that order).
  std::vector<std::vector<size_t>> groups;
  std::unordered_map<const void*, size_t> group_of;
  for (size_t i = 0; i < items.size(); ++i) {
    const Tensor& t = items[i].tensor;
    if (!groupable(t)) {
      groups.push_back({i});
      continue;
    }
    auto [it, fresh] = group_of.emplace(t.storage().get(), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  int storage_k = 0;
  for (const std::vector<size_t>& g : groups) {
    const Tensor& first = items[g[0]].tensor;
    bool same_dtype = true;
    for (size_t i : g) same_dtype = same_dtype && items[i].tensor.dtype() == first.dtype();
    if (g.size() < 2 || !same_dtype) {
      for (size_t i : g) plan.items.push_back(std::move(items[i]));
      continue;
    }
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = 0;
    for (size_t i : g) {
      const Tensor& t = items[i].tensor;
      lo = std::min(lo, t.storage_offset());
      hi = std::max(hi, t.storage_offset() + extent(t.sizes(), t.strides()) + 1);
    }
    // The entry: a tensor of the group that is exactly the span, else the span.
    std::string entry;
    for (size_t i : g) {
      const Tensor& t = items[i].tensor;
      if (t.storage_offset() == lo && t.numel() == hi - lo &&
          is_contiguous_strides(t.sizes(), t.strides())) {
        entry = items[i].name;
        plan.items.push_back(items[i]);
        break;
      }
    }
    if (entry.empty()) {
      do entry = str(kStorageNamePrefix, storage_k++);
      while (names.count(entry));
      plan.items.push_back(SaveItem{entry, make_view(first, Shape{hi - lo}, Shape{1}, lo)});
    }
    for (size_t i : g) {
      if (items[i].name == entry) continue;
      const Tensor& t = items[i].tensor;
      nlohmann::ordered_json v;
      v["storage"] = entry;
      v["sizes"] = std::vector<int64_t>(t.sizes().begin(), t.sizes().end());
      v["strides"] = std::vector<int64_t>(t.strides().begin(), t.strides().end());
      v["storage_offset"] = t.storage_offset() - lo;
      plan.metadata[str(kViewKeyPrefix, items[i].name)] = v.dump();
      plan.storage_of[items[i].name] = entry;
    }
  }
  return plan;
}

std::vector<ViewSpec> parse_views(std::map<std::string, std::string>& metadata,
                                  const std::vector<std::string>& names,
                                  const std::vector<int64_t>& numels) {
  std::map<std::string, std::string> views;
  for (auto it = metadata.begin(); it != metadata.end();) {
    if (it->first.rfind(kViewKeyPrefix, 0) == 0) {
      views.emplace(it->first.substr(std::string(kViewKeyPrefix).size()), it->second);
      it = metadata.erase(it);
    } else {
      ++it;
    }
  }
  std::vector<ViewSpec> out;
  if (views.empty()) return out;
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < names.size(); ++i) index.emplace(names[i], i);
  for (const auto& view : views) {
    // Named, not a structured binding: clang 14 (the fuzz build) cannot
    // capture a structured binding in a lambda.
    const std::string& name = view.first;
    const std::string& text = view.second;
    auto bad = [&](const std::string& why) {
      return Error(TSR_ERR_CORRUPT_FILE, str("view ", json_quoted(name), " (\"", kViewKeyPrefix,
                                             "...\" metadata): ", why));
    };
    if (name.empty()) throw bad("empty name");
    if (index.count(name)) throw bad("a tensor of that name is in the file too");
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw bad("not a JSON object");
    auto st = j.find("storage");
    auto sz = j.find("sizes");
    auto sd = j.find("strides");
    auto off = j.find("storage_offset");
    if (st == j.end() || !st->is_string() || sz == j.end() || !sz->is_array() || sd == j.end() ||
        !sd->is_array() || off == j.end() || !off->is_number_unsigned())
      throw bad("expected {\"storage\": name, \"sizes\": [...], \"strides\": [...], "
                "\"storage_offset\": n}");
    auto base = index.find(st->get<std::string>());
    if (base == index.end())
      throw bad(str("its storage ", json_quoted(st->get<std::string>()), " is not in the file"));
    if (sz->size() != sd->size() || int64_t(sz->size()) > kMaxDims)
      throw bad(str(sz->size(), " sizes and ", sd->size(), " strides (at most ", kMaxDims, ")"));
    ViewSpec v{name, base->second, {}, {}, 0};
    constexpr uint64_t kMax = uint64_t(std::numeric_limits<int64_t>::max());
    for (size_t d = 0; d < sz->size(); ++d) {
      const auto &a = (*sz)[d], &b = (*sd)[d];
      if (!a.is_number_unsigned() || !b.is_number_unsigned() || a.get<uint64_t>() > kMax ||
          b.get<uint64_t>() > kMax)
        throw bad("sizes and strides must be integers in [0, 2^63)");
      v.sizes.push_back(int64_t(a.get<uint64_t>()));
      v.strides.push_back(int64_t(b.get<uint64_t>()));
    }
    const uint64_t storage_numel = uint64_t(numels[base->second]);
    const uint64_t offset = off->get<uint64_t>();
    // The last element reached, without overflow, inside the storage.
    uint64_t last = offset, numel = 1;
    bool overflow = offset > kMax;
    for (size_t d = 0; d < v.sizes.size() && !overflow; ++d) {
      uint64_t step = 0;
      overflow = __builtin_mul_overflow(uint64_t(v.sizes[d]), numel, &numel) || numel > kMax;
      if (v.sizes[d] > 0)
        overflow = overflow ||
                   __builtin_mul_overflow(uint64_t(v.sizes[d] - 1), uint64_t(v.strides[d]), &step) ||
                   __builtin_add_overflow(last, step, &last) || last > kMax;
    }
    if (overflow) throw bad("its sizes, strides and offset overflow int64");
    if (numel > 0 && last >= storage_numel)
      throw bad(str("reaches element ", last, " of its storage ", json_quoted(names[base->second]),
                    ", which has ", storage_numel));
    if (numel == 0 && offset > storage_numel)
      throw bad(str("storage_offset ", offset, " is past the end of its storage (", storage_numel,
                    ")"));
    v.offset = int64_t(offset);
    out.push_back(std::move(v));
  }
  return out;
}

bool hidden_storage(const std::string& name, size_t i, const std::vector<ViewSpec>& views) {
  if (name.rfind(kStorageNamePrefix, 0) != 0) return false;
  for (const ViewSpec& v : views)
    if (v.storage == i) return true;
  return false;
}

void restore_views(LoadedFile& f) {
  std::vector<int64_t> numels;
  for (const Tensor& t : f.tensors) numels.push_back(t.numel());
  const std::vector<ViewSpec> views = parse_views(f.metadata, f.names, numels);
  if (views.empty()) return;
  LoadedFile out;
  for (size_t i = 0; i < f.names.size(); ++i) {
    if (hidden_storage(f.names[i], i, views)) continue;
    out.names.push_back(f.names[i]);
    out.tensors.push_back(f.tensors[i]);
  }
  for (const ViewSpec& v : views) {
    const Tensor& s = f.tensors[v.storage];
    out.names.push_back(v.name);
    out.tensors.push_back(make_view(s, v.sizes, v.strides, s.storage_offset() + v.offset));
  }
  f.names = std::move(out.names);
  f.tensors = std::move(out.tensors);
}

}  // namespace tsr::io
