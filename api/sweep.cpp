// The public Sweep: sweep/'s compile_sweep and run_sweep behind plain types.
#include "sgdnet/sweep.hpp"

#include <stdexcept>
#include <utility>

#include "api/convert.hpp"
#include "sweep/sweep_run.hpp"
#include "sweep/sweep_spec.hpp"

namespace sgdnet {

struct Sweep::Impl {
    sweep::CompiledSweep compiled;
    unsigned threads = 0;
};

namespace {

/// The internal param of an axis: its values go through the command's list syntax, which
/// checks them and computes their canonical values.
sweep::SweepParam to_param(const SweepAxis& axis) {
    if (axis.values.empty())
        throw std::invalid_argument("sweep axis '" + axis.name + "' has no values");
    std::string spec = axis.name + "=";
    for (std::size_t i = 0; i < axis.values.size(); ++i) spec += (i ? "," : "") + axis.values[i];
    std::string error;
    auto param = sweep::parse_sweep_set(spec, error);
    if (!param) throw std::invalid_argument(error);
    return std::move(*param);
}

sweep::SweepPlan make_plan(const std::vector<SweepAxis>& axes, const SweepOptions& options) {
    sweep::SweepPlan plan;
    for (const SweepAxis& axis : axes) {
        for (const auto& p : plan.params) {
            if (p.name == axis.name)
                throw std::invalid_argument("'" + axis.name + "' is swept twice");
        }
        plan.params.push_back(to_param(axis));
    }
    if (plan.params.empty()) throw std::invalid_argument("a sweep needs at least one axis");
    std::string error;
    auto points = sweep::sweep_points(plan.params, options.zip, error);
    if (!points) throw std::invalid_argument(error);
    plan.points = std::move(*points);
    plan.compile = api::compile_options(options.compile);
    plan.solve = api::solve_options(options.run);
    return plan;
}

std::vector<SweepValue> values_of(const sweep::SweepPlan& plan, std::size_t k) {
    std::vector<SweepValue> out;
    for (const auto& p : sweep::point_params(plan, k)) {
        out.push_back({p.name, p.value.text, p.value.canonical});
    }
    return out;
}

/// Compiles every point; a point that does not compile becomes a CompileError naming it.
std::shared_ptr<const Sweep::Impl> compile_plan(sweep::SweepPlan plan, unsigned threads) {
    const sweep::SweepPlan unmoved = plan;  // to name a failing point
    std::vector<Diagnostic> last;
    std::string rendered;
    try {
        auto impl = std::make_shared<Sweep::Impl>();
        impl->compiled = sweep::compile_sweep(std::move(plan),
                                              [&](std::size_t, const frontend::Diagnostics& diags) {
                                                  last = api::diagnostics(diags);
                                                  rendered = diags.render();
                                              });
        impl->threads = threads;
        return impl;
    } catch (const sweep::SweepError& e) {
        if (e.kind() == sweep::SweepError::Kind::Diagnostics) {
            std::string point;
            for (const SweepValue& v : values_of(unmoved, e.point())) {
                point += (point.empty() ? "" : ", ") + v.name + "=" + v.text;
            }
            throw CompileError(std::move(last), unmoved.model_path + ": sweep point " +
                                                    std::to_string(e.point()) + " (" + point +
                                                    ") does not compile\n" + rendered);
        }
        Diagnostic d;
        d.message = e.what();
        throw CompileError({d}, std::string("error: ") + e.what() + "\n");
    }
}

}  // namespace

SweepAxis SweepAxis::parse(const std::string& name_equals_range) {
    std::string error;
    auto param = sweep::parse_sweep_set(name_equals_range, error);
    if (!param) throw std::invalid_argument(error);
    SweepAxis axis;
    axis.name = param->name;
    for (const auto& v : param->values) axis.values.push_back(v.text);
    return axis;
}

Sweep Sweep::compile_file(const std::string& path, const std::vector<SweepAxis>& axes,
                          const SweepOptions& options) {
    sweep::SweepPlan plan = make_plan(axes, options);
    plan.model_path = path;
    return Sweep(compile_plan(std::move(plan), options.threads));
}

Sweep Sweep::compile(const std::string& text, const std::string& display_name,
                     const std::vector<SweepAxis>& axes, const SweepOptions& options) {
    sweep::SweepPlan plan = make_plan(axes, options);
    plan.model_path = display_name;
    plan.model_text = text;
    return Sweep(compile_plan(std::move(plan), options.threads));
}

std::size_t Sweep::size() const { return impl_->compiled.plan.points.size(); }

std::vector<SweepValue> Sweep::point(std::size_t k) const {
    if (k >= size())
        throw std::out_of_range("sweep point " + std::to_string(k) + " of " +
                                std::to_string(size()));
    return values_of(impl_->compiled.plan, k);
}

const std::vector<std::string>& Sweep::measure_names() const {
    return impl_->compiled.measure_names;
}

std::vector<std::string> Sweep::columns() const {
    std::vector<std::string> out;
    for (const auto& p : impl_->compiled.plan.params) out.push_back(p.name);
    for (const auto& name : measure_names()) {
        out.push_back(name);
        out.push_back(name + "_ci_low");
        out.push_back(name + "_ci_high");
    }
    return out;
}

SweepSummary Sweep::run(const RowCallback& on_row, const std::atomic<bool>* cancel,
                        const std::vector<bool>& skip, const ProgressCallback& on_progress) const {
    const sweep::CompiledSweep& compiled = impl_->compiled;
    sweep::SweepOptions options;
    options.threads = impl_->threads;
    options.skip = skip;
    if (on_progress) {
        options.on_progress = [&](const sweep::SweepProgress& p) {
            on_progress(SweepProgress{p.solved, p.failed, p.to_solve});
        };
    }
    auto deliver = [&](sweep::SweepRow&& row) {
        SweepRow out;
        out.index = row.index;
        for (auto& p : row.params) out.params.push_back({p.name, p.value.text, p.value.canonical});
        if (row.result) out.result = api::result(*row.result);
        if (row.error) out.error = api::solve_error(*row.error, compiled.nets[row.index]);
        on_row(out);
    };
    const sweep::SweepSummary s = sweep::run_sweep(compiled, options, deliver, cancel);
    SweepSummary out;
    out.points = s.points;
    out.skipped = s.skipped;
    out.solved = s.solved;
    out.failed = s.failed;
    out.not_run = s.not_run;
    out.precision_reached = s.precision_reached;
    return out;
}

}  // namespace sgdnet
