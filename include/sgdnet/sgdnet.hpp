// Public API of sgdnet: compile .sgdnet models, solve their steady state, sweep params, emit nets.
//
//     #include <sgdnet/sgdnet.hpp>
//     sgdnet::Model model = sgdnet::Model::compile_file("ring.sgdnet", {.set = {{"N", "16"}}});
//     sgdnet::Result r = model.run({.seed = 1});
//     double steps = r.measure("steps_per_s").mean;
//
// CMake: find_package(sgdnet CONFIG REQUIRED) and target_link_libraries(app sgdnet::sgdnet).
// The library never prints; errors are exceptions (CompileError, SolveError,
// std::invalid_argument), documented on each function. docs/api.md has the guide.
#pragma once

#include <string>

#include "sgdnet/model.hpp"
#include "sgdnet/profile.hpp"
#include "sgdnet/result.hpp"
#include "sgdnet/sweep.hpp"

namespace sgdnet {

/// The library's version, `MAJOR.MINOR.PATCH` (the `sgdnet --version` of the same build).
std::string version();

}  // namespace sgdnet
