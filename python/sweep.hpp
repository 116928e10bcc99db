// The _sgdnet sweep binding: sgdnet::Sweep compiled from Python arguments and run with rows handed to Python in grid order, Ctrl-C cancelling it.
#pragma once

#include <pybind11/pybind11.h>

namespace sgdnet::python {

/// Adds `compile_sweep(...) -> Sweep` and the class `Sweep` (size, columns, measure_names,
/// point, run) to the module.
void define_sweep(pybind11::module_& m);

}  // namespace sgdnet::python
