// torch.optim.Optimizer.state_dict / load_state_dict (1.13) over flat
// names. torch's nested {"state": {i: {key: t}}, "param_groups": [{...,
// "params": [i...]}]} becomes "state.i.key" and "param_groups.g.option" /
// "param_groups.g.params" tensors, which tsr_save writes as they are.
#include "optim/state_dict.h"

#include <charconv>
#include <map>

#include "core/dtype.h"
#include "core/error.h"
#include "core/factory.h"
#include "ops/layout.h"
#include "ops/to_device.h"
#include "ops/views.h"

namespace tsr::optim {

namespace {

Tensor scalar_f64(double v) {
  Tensor t = empty({}, TSR_FLOAT64, TSR_CONTIGUOUS_FORMAT, kCpu);
  t.data<double>()[0] = v;
  return t;
}

// A CPU contiguous copy of t in dtype.
Tensor host(const Tensor& t, tsr_dtype dtype) {
  return ops::contiguous(ops::to_dtype(ops::to_device(t, kCpu, false), dtype), TSR_CONTIGUOUS_FORMAT);
}

// "12" -> 12; anything else (sign, spaces, empty, overflow) -> false.
bool parse_index(std::string_view s, size_t& out) {
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

using State = std::map<std::string, Tensor, std::less<>>;

}  // namespace

NamedTensors state_dict(const Optimizer& opt) {
  std::map<std::string, Tensor> all;
  for (size_t i = 0; i < opt.num_params(); ++i)
    for (const std::string& key : opt.state_keys()) {
      Tensor t = opt.state(i, key);
      if (t.defined()) all["state." + std::to_string(i) + "." + key] = t;
    }
  for (size_t g = 0; g < opt.num_groups(); ++g) {
    const ParamGroup& group = opt.group(g);
    const std::string prefix = "param_groups." + std::to_string(g) + ".";
    for (const auto& [key, value] : group.options) all[prefix + key] = scalar_f64(value);
    Tensor ids = empty({int64_t(group.count)}, TSR_INT64, TSR_CONTIGUOUS_FORMAT, kCpu);
    for (size_t k = 0; k < group.count; ++k) ids.data<int64_t>()[k] = int64_t(group.first + k);
    all[prefix + "params"] = ids;
  }
  NamedTensors out;
  for (auto& [name, t] : all) {
    out.names.push_back(name);
    out.tensors.push_back(std::move(t));
  }
  return out;
}

void load_state_dict(Optimizer& opt, const std::vector<std::string>& names, const std::vector<Tensor>& tensors) {
  // Sort the entries by kind; names of other forms (a model's) are skipped.
  std::map<size_t, Options> options;
  std::map<size_t, std::vector<int64_t>> saved_ids;
  std::vector<std::tuple<size_t, std::string, Tensor>> saved_state;  // (saved id, key, tensor)
  for (size_t n = 0; n < names.size(); ++n) {
    const std::string& name = names[n];
    const Tensor& t = tensors[n];
    const bool is_group = name.rfind("param_groups.", 0) == 0, is_state = name.rfind("state.", 0) == 0;
    if (!is_group && !is_state) continue;
    const std::string_view rest = std::string_view(name).substr(is_group ? 13 : 6);
    const size_t dot = rest.find('.');
    size_t index = 0;
    TSR_CHECK(dot != std::string_view::npos && dot + 1 < rest.size() && parse_index(rest.substr(0, dot), index),
              TSR_ERR_INVALID_ARGUMENT, "load_state_dict: \"", name,
              "\" is not of the form param_groups.<g>.<option> or state.<i>.<key>");
    const std::string key(rest.substr(dot + 1));
    if (is_state) {
      TSR_CHECK(opt.knows_key(key), TSR_ERR_INVALID_ARGUMENT, "load_state_dict: \"", name,
                "\": this optimizer keeps no state \"", key, "\"");
      saved_state.emplace_back(index, key, t);
    } else if (key == "params") {
      TSR_CHECK(t.ndim() == 1 && is_integral(t.dtype(), false), TSR_ERR_INVALID_ARGUMENT, "load_state_dict: \"",
                name, "\" must be a 1-dim integer tensor, not ", dtype_name(t.dtype()), " of sizes ", t.sizes());
      const Tensor ids = host(t, TSR_INT64);
      saved_ids[index].assign(ids.data<int64_t>(), ids.data<int64_t>() + ids.numel());
    } else {
      TSR_CHECK(t.numel() == 1 && t.dtype() != TSR_BOOL, TSR_ERR_INVALID_ARGUMENT, "load_state_dict: \"", name,
                "\" must hold one number, not ", t.numel(), " elements of ", dtype_name(t.dtype()));
      options[index][key] = host(t, TSR_FLOAT64).data<double>()[0];
    }
  }

  // torch's checks: the same number of groups, each of the same size.
  TSR_CHECK(saved_ids.size() == opt.num_groups() &&
                (saved_ids.empty() || saved_ids.rbegin()->first == saved_ids.size() - 1),
            TSR_ERR_INVALID_ARGUMENT, "loaded state dict has a different number of parameter groups");
  for (const auto& [g, _] : options)
    TSR_CHECK(g < opt.num_groups(), TSR_ERR_INVALID_ARGUMENT, "load_state_dict: param_groups.", g,
              " has options but no params");
  std::map<int64_t, size_t> id_map;  // saved id -> our parameter, by position as torch's zip
  std::vector<Options> new_options(opt.num_groups());
  for (size_t g = 0; g < opt.num_groups(); ++g) {
    const ParamGroup& group = opt.group(g);
    TSR_CHECK(saved_ids[g].size() == group.count, TSR_ERR_INVALID_ARGUMENT,
              "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
    for (size_t k = 0; k < group.count; ++k) id_map[saved_ids[g][k]] = group.first + k;
    Options& o = new_options[g];
    o = options[g];
    for (const auto& [key, _] : opt.defaults())
      TSR_CHECK(o.find(key) != o.end(), TSR_ERR_INVALID_ARGUMENT, "load_state_dict: param_groups.", g,
                ".", key, " is missing");
    opt.check_options(o);
  }

  std::vector<State> states(opt.num_params());
  for (const auto& [id, key, t] : saved_state) {
    auto it = id_map.find(int64_t(id));
    TSR_CHECK(it != id_map.end(), TSR_ERR_INVALID_ARGUMENT, "load_state_dict: state.", id, ".", key,
              " names no parameter of the loaded param_groups");
    const Tensor& p = opt.param(it->second);
    if (key == "step") {
      // torch keeps "step" as it is; tessera's Adam counts in a 0-dim
      // float32 CPU tensor.
      TSR_CHECK(t.numel() == 1, TSR_ERR_INVALID_ARGUMENT, "load_state_dict: state.", id,
                ".step must hold one number, not ", t.numel());
      states[it->second][key] = ops::clone(ops::reshape(host(t, TSR_FLOAT32), Shape{}), TSR_CONTIGUOUS_FORMAT);
      continue;
    }
    TSR_CHECK(t.sizes() == p.sizes(), TSR_ERR_INVALID_ARGUMENT, "load_state_dict: state.", id, ".", key,
              " has sizes ", t.sizes(), " but its parameter has sizes ", p.sizes());
    // value.to(dtype=param.dtype, device=param.device), deep-copied.
    Tensor v = ops::to_device(ops::to_dtype(t, p.dtype()), p.device(), false);
    states[it->second][key] = ops::clone(v, TSR_PRESERVE_FORMAT);
  }
  for (size_t i = 0; i < states.size(); ++i) opt.check_state(i, states[i]);
  opt.replace_state(std::move(states), std::move(new_options));
}

}  // namespace tsr::optim
