// Net size statistics: the compiled net's counts and the fine net behind a coarse reduction.
#include "compiler/net_statistics.hpp"

#include <fstream>
#include <sstream>
#include <variant>

#include "frontend/ast.hpp"
#include "compiler/training_properties.hpp"
#include "frontend/parse.hpp"

namespace sgdnet::compiler {

NetSize net_size(const net::PetriNet& net) {
    NetSize s;
    s.places = net.places.size();
    for (const auto& t : net.transitions) {
        (t.kind == net::TransitionKind::Timed ? s.timed : s.immediate) += 1;
        s.arcs += t.inputs.size() + t.outputs.size() + t.inhibitors.size();
    }
    s.measures = net.measures.size();
    return s;
}

std::string to_string(const NetSize& s) {
    return "places " + std::to_string(s.places) + ", timed " + std::to_string(s.timed) +
           ", immediate " + std::to_string(s.immediate) + ", arcs " + std::to_string(s.arcs) +
           ", measures " + std::to_string(s.measures);
}

std::vector<std::string> NetStatistics::lines() const {
    if (!fine) return {};
    return {"  coarse (reduced) net; the fine net it reduces: " + to_string(*fine)};
}

namespace {

/// True when `ast` is a training model with layer tables lowered at coarse granularity: some
/// worker has `layers`, and the granularity is coarse by option or by the training block (with
/// layers the default is fine, docs/language.md §5).
bool coarse_with_layers(const Ast& ast, const CompileOptions& options) {
    bool layers = false;
    const TrainingDecl* training = nullptr;
    for (const Decl& d : ast.decls) {
        if (auto* n = std::get_if<NodeDecl>(&d); n && n->kind == NodeDecl::Kind::Worker)
            layers = layers || find_property(n->properties, PropertyId::Layers) != nullptr;
        if (auto* t = std::get_if<TrainingDecl>(&d); t && !training) training = t;
    }
    if (!layers) return false;
    if (options.granularity) return *options.granularity == Granularity::Coarse;
    if (!training) return false;
    const Property* g = find_property(training->properties, PropertyId::Granularity);
    if (!g) return false;
    return keyword_value(property_rule(PropertyId::Granularity), *g->value) ==
           static_cast<int>(Granularity::Coarse);
}

}  // namespace

NetStatistics net_statistics(const net::PetriNet& net, std::string_view text,
                             const std::string& display_name, const CompileOptions& options) {
    NetStatistics out;
    out.net = net_size(net);
    Diagnostics diags;
    const Ast ast = parse(diags.add_source(display_name, std::string(text)), diags);
    if (diags.has_errors() || !coarse_with_layers(ast, options)) return out;
    CompileOptions fine_options = options;
    fine_options.granularity = Granularity::Fine;
    Diagnostics fine_diags;
    if (auto fine = compile(text, display_name, fine_options, fine_diags))
        out.fine = net_size(*fine);
    return out;
}

NetStatistics net_statistics_file(const net::PetriNet& net, const std::string& path,
                                  const CompileOptions& options) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return NetStatistics{net_size(net), std::nullopt};
    std::ostringstream text;
    text << in.rdbuf();
    return net_statistics(net, text.str(), path, options);
}

}  // namespace sgdnet::compiler
