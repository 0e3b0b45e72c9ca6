// The aten op names of every primitive (Primitive::op()), so that a user's
// list of names (a checkpoint keep list, a profiler filter) can be checked.
// Each op family registers its names at load time.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace tsr::prim {

// Adds names; returns true so a family can write
//   const bool registered = register_op_names({"add", "sub"});
bool register_op_names(std::initializer_list<const char*> names);
bool is_known_op(std::string_view name);
// "add, clone, div, ..." sorted, for error messages.
std::string known_op_names();

}  // namespace tsr::prim
