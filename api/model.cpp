// The public Model: compiling through compiler::compile, emitting through emit/, solving through
// solver::solve.
#include "sgdnet/model.hpp"

#include <stdexcept>
#include <utility>

#include "api/convert.hpp"
#include "compiler/compile.hpp"
#include "emit/emit.hpp"
#include "solver/solve.hpp"

namespace sgdnet {

struct Model::Impl {
    net::PetriNet net;
    std::vector<Diagnostic> warnings;
};

/// Builds Models from compiled nets; the only code besides Model that sees its constructor.
struct ModelAccess {
    static Model make(net::PetriNet net, std::vector<Diagnostic> warnings) {
        auto impl = std::make_shared<Model::Impl>();
        impl->net = std::move(net);
        impl->warnings = std::move(warnings);
        return Model(std::move(impl));
    }
    static const net::PetriNet& net(const Model& m) { return m.impl_->net; }
};

namespace {

/// The model, or CompileError with every diagnostic when the compiler reported an error.
Model finish(std::optional<net::PetriNet> net, const frontend::Diagnostics& diags) {
    std::vector<Diagnostic> all = api::diagnostics(diags);
    if (diags.has_errors() || !net) throw CompileError(std::move(all), diags.render());
    std::vector<Diagnostic> warnings;
    for (Diagnostic& d : all) {
        if (d.severity == Diagnostic::Severity::Warning) warnings.push_back(std::move(d));
    }
    return ModelAccess::make(std::move(*net), std::move(warnings));
}

}  // namespace

CompileError::CompileError(std::vector<Diagnostic> diagnostics, std::string rendered)
    : std::runtime_error(rendered.empty() ? "compilation failed" : rendered),
      diagnostics_(std::move(diagnostics)),
      rendered_(std::move(rendered)) {}

Model Model::compile_file(const std::string& path, const CompileOptions& options) {
    frontend::Diagnostics diags;
    auto net = compiler::compile_file(path, api::compile_options(options), diags);
    return finish(std::move(net), diags);
}

Model Model::compile(const std::string& text, const std::string& display_name,
                     const CompileOptions& options) {
    frontend::Diagnostics diags;
    auto net = compiler::compile(text, display_name, api::compile_options(options), diags);
    return finish(std::move(net), diags);
}

const std::string& Model::name() const { return impl_->net.name; }

std::vector<std::string> Model::measure_names() const {
    std::vector<std::string> names;
    for (const auto& m : impl_->net.measures) names.push_back(m.name);
    return names;
}

std::vector<std::pair<std::string, double>> Model::params() const {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& p : impl_->net.params) out.emplace_back(p.name, p.value);
    return out;
}

const std::vector<Diagnostic>& Model::warnings() const { return impl_->warnings; }

ModelStats Model::stats() const {
    const net::PetriNet& n = impl_->net;
    ModelStats s;
    s.places = n.places.size();
    s.measures = n.measures.size();
    for (const auto& t : n.transitions) {
        (t.kind == net::TransitionKind::Immediate ? s.immediate : s.timed) += 1;
        s.arcs += t.inputs.size() + t.outputs.size() + t.inhibitors.size();
    }
    return s;
}

std::string Model::emit(EmitFormat format) const {
    switch (format) {
        case EmitFormat::Net:
            return emit::to_net_text(impl_->net);
        case EmitFormat::Dot:
            return emit::to_dot(impl_->net);
        case EmitFormat::Pnml:
            return emit::to_pnml(impl_->net);
        case EmitFormat::Json:
            return emit::to_json(impl_->net);
    }
    return {};
}

Result Model::run(const RunOptions& options) const {
    const solver::SolveOptions solve_options = api::solve_options(options);
    try {
        return api::result(solver::solve(impl_->net, solve_options));
    } catch (const solver::SolveError& e) {
        throw api::solve_error(e, impl_->net);
    }
}

const Measure& Result::measure(const std::string& name) const {
    for (const Measure& m : measures) {
        if (m.name == name) return m;
    }
    throw std::out_of_range("no measure '" + name + "' in the result");
}

}  // namespace sgdnet
