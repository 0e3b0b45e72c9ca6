// optimizer.state_dict() / load_state_dict() of torch 1.13 as flat named
// tensors ("state.<i>.<key>", "param_groups.<g>.<option>",
// "param_groups.<g>.params"), so that an optimizer saves and loads through
// the same safetensors files as a model (include/tessera/optim.h).
#pragma once

#include <string>
#include <vector>

#include "optim/optimizer.h"

namespace tsr::optim {

struct NamedTensors {
  std::vector<std::string> names;  // byte order
  std::vector<Tensor> tensors;
};

NamedTensors state_dict(const Optimizer& opt);
// Checks everything first; on failure opt is unchanged.
void load_state_dict(Optimizer& opt, const std::vector<std::string>& names, const std::vector<Tensor>& tensors);

}  // namespace tsr::optim
