// Public API: compiling a .sgdnet model (file or text, with --set values) into a solvable Model.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sgdnet/result.hpp"

namespace sgdnet {

/// One message of the compiler, with its position in the source (1-based line and column, in
/// code points; 0 when the message concerns the whole file).
struct Diagnostic {
    enum class Severity { Error, Warning, Note };
    Severity severity = Severity::Error;
    std::string file;     ///< the display name the source was registered under (its path)
    uint32_t line = 0;    ///< 1-based; 0 = no position
    uint32_t column = 0;  ///< 1-based, in code points; 0 = no position
    std::string message;
    std::vector<Diagnostic> notes;  ///< secondary locations, e.g. the earlier definition
};

/// Thrown by Model::compile and Model::compile_file when the source has errors. Carries every
/// diagnostic (errors, warnings and their notes, sorted by position) and their rendering as the
/// command prints it (`FILE:LINE:COL: error: MESSAGE`, the source line and a caret).
class CompileError : public std::runtime_error {
  public:
    CompileError(std::vector<Diagnostic> diagnostics, std::string rendered);
    /// Every diagnostic, errors and warnings, sorted by position.
    const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
    /// The diagnostics rendered like a C compiler's (what `sgdnet check` prints).
    const std::string& rendered() const { return rendered_; }

  private:
    std::vector<Diagnostic> diagnostics_;
    std::string rendered_;
};

/// The granularity of a training model (docs/language.md §5): per-layer operations, or phases.
enum class Granularity { Fine, Coarse };

/// What `sgdnet compile`/`run` take besides the file.
struct CompileOptions {
    /// `--set NAME=VALUE` pairs, applied in order; VALUE is an expression of the language, units
    /// included (`{"N", "16"}`, `{"bw", "25 Gbps"}`).
    std::vector<std::pair<std::string, std::string>> set;
    /// `--granularity`: overrides the training block's granularity when given.
    std::optional<Granularity> granularity;
};

/// Text forms of a compiled net (`sgdnet compile --emit …`).
enum class EmitFormat {
    Net,   ///< the canonical net text (deterministic; what golden tests diff)
    Dot,   ///< Graphviz DOT
    Pnml,  ///< PNML (ISO/IEC 15909-2 P/T net, sgdnet extras in <toolspecific>)
    Json,  ///< the whole net as one JSON document
};

/// Size of a compiled net.
struct ModelStats {
    std::size_t places = 0;
    std::size_t timed = 0;      ///< timed transitions
    std::size_t immediate = 0;  ///< immediate transitions
    std::size_t arcs = 0;       ///< input, output and inhibitor arcs
    std::size_t measures = 0;
};

/// A compiled model: one stochastic timed Petri net with its measures, ready to solve. Cheap to
/// copy (the net is shared and immutable); safe to run from several threads at once.
class Model {
  public:
    /// Compiles the file at `path` (relative paths inside it, e.g. `profile("p.json")`, are
    /// resolved against its directory). Throws CompileError on errors, including an unreadable
    /// file (a diagnostic without position).
    static Model compile_file(const std::string& path, const CompileOptions& options = {});

    /// Compiles `text`, registered in diagnostics as `display_name` (relative paths inside it are
    /// resolved against the directory of `display_name`). Throws CompileError on errors.
    static Model compile(const std::string& text, const std::string& display_name = "<string>",
                         const CompileOptions& options = {});

    /// The model's name (its `model` declaration, else the file's stem).
    const std::string& name() const;
    /// Names of the measures, in declaration order (training models: steps_per_s first).
    std::vector<std::string> measure_names() const;
    /// The params after --set, in canonical units (s, B, B/s), in declaration order.
    std::vector<std::pair<std::string, double>> params() const;
    /// Warnings the compiler gave (a model with warnings still compiles).
    const std::vector<Diagnostic>& warnings() const;
    ModelStats stats() const;

    /// The net as text in `format`. Never throws.
    std::string emit(EmitFormat format) const;

    /// Solves the model's steady state (simulation, exact, or auto). Throws SolveError when the
    /// model cannot be solved (deadlock, bound exceeded, state space too large, a non-exponential
    /// delay for the exact solver, …) and std::invalid_argument on invalid options. When the
    /// precision was not reached within options.max_time_s the result says so
    /// (Result::precision_reached == false); that is not an error.
    Result run(const RunOptions& options = {}) const;

    struct Impl;  ///< the compiled net; opaque to users

  private:
    explicit Model(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
    std::shared_ptr<const Impl> impl_;
    friend struct ModelAccess;
};

}  // namespace sgdnet
