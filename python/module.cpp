// The _sgdnet extension: compile, run, sweep, emit and import_profile of the C++ library, with the GIL released while the library works.
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python/convert.hpp"
#include "python/sweep.hpp"
#include "sgdnet/sgdnet.hpp"

namespace sgdnet::python {
namespace {

using Sets = std::vector<std::pair<std::string, std::string>>;

Model compile_file(const std::string& path, Sets set, const std::string& granularity) {
    const CompileOptions options = compile_options(std::move(set), granularity);
    py::gil_scoped_release release;
    return Model::compile_file(path, options);
}

Model compile_text(const std::string& text, const std::string& display_name, Sets set,
                   const std::string& granularity) {
    const CompileOptions options = compile_options(std::move(set), granularity);
    py::gil_scoped_release release;
    return Model::compile(text, display_name, options);
}

/// Model.run with the options of the package's run_arguments.
py::dict run(const Model& model, const py::kwargs& options) {
    const RunOptions run_options = python::run_options(options);
    Result result;
    {
        py::gil_scoped_release release;
        result = model.run(run_options);
    }
    return result_dict(result);
}

py::list params(const Model& model) {
    py::list out;
    for (const auto& [name, value] : model.params()) out.append(py::make_tuple(name, value));
    return out;
}

std::string emit(const Model& model, const std::string& format) {
    const EmitFormat f = emit_format_of(format);
    py::gil_scoped_release release;
    return model.emit(f);
}

std::string import_profile_text(const std::string& path, const std::string& name) {
    py::gil_scoped_release release;
    return import_profile(path, name);
}

void define_model(py::module_& m) {
    py::class_<Model>(m, "Model", "A compiled model of the C++ library (sgdnet.Model wraps it).")
        .def_property_readonly("name", &Model::name)
        .def("measure_names", &Model::measure_names)
        .def("params", &params)
        .def("warnings", [](const Model& model) { return diagnostic_list(model.warnings()); })
        .def("stats", [](const Model& model) { return model_stats_dict(model.stats()); })
        .def("emit", &emit, py::arg("format"))
        .def("run", &run);
}

}  // namespace
}  // namespace sgdnet::python

PYBIND11_MODULE(_sgdnet, m) {
    using namespace sgdnet::python;
    m.doc() = "The C++ library behind the sgdnet package; use the package, not this module.";
    register_exception_translators();
    define_model(m);
    define_sweep(m);
    m.def("compile_file", &compile_file, py::arg("path"), py::arg("set"), py::arg("granularity"));
    m.def("compile_text", &compile_text, py::arg("text"), py::arg("display_name"), py::arg("set"),
          py::arg("granularity"));
    m.def("import_profile", &import_profile_text, py::arg("path"), py::arg("name"));
    m.def("version", &sgdnet::version);
}
