// The _sgdnet sweep binding: sgdnet::Sweep compiled from Python arguments and run with rows handed to Python in grid order, Ctrl-C cancelling it.
#include "python/sweep.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#include "python/convert.hpp"
#include "sgdnet/sweep.hpp"

namespace sgdnet::python {
namespace {

using Sets = std::vector<std::pair<std::string, std::string>>;

/// Compiles a sweep of a file (`is_path`) or of model text. `axes` are `NAME=RANGE` texts.
Sweep compile_sweep(const std::string& source, bool is_path, const std::vector<std::string>& axes,
                    Sets set, const std::string& granularity, bool zip,
                    const py::dict& run_arguments) {
    std::vector<SweepAxis> parsed;
    for (const std::string& axis : axes) parsed.push_back(SweepAxis::parse(axis));
    SweepOptions options;
    options.compile = compile_options(std::move(set), granularity);
    options.run = run_options(run_arguments);
    options.zip = zip;
    options.threads = options.run.threads;
    py::gil_scoped_release release;
    if (is_path) return Sweep::compile_file(source, parsed, options);
    return Sweep::compile(source, "<string>", parsed, options);
}

py::list values_list(const std::vector<SweepValue>& values) {
    py::list out;
    for (const SweepValue& v : values) out.append(py::make_tuple(v.name, v.text, v.value));
    return out;
}

/// A row as (index, [(name, text, value)…], result dict or None, (message, kind) or None).
py::tuple row_tuple(const SweepRow& row) {
    py::object result = row.result ? py::object(result_dict(*row.result)) : py::none();
    py::object error = py::none();
    if (row.error) error = py::make_tuple(row.error->what(), solve_error_kind(row.error->kind()));
    return py::make_tuple(row.index, values_list(row.params), result, error);
}

/// What the solving thread hands to the Python thread, under `mu`.
struct Mailbox {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<SweepRow> rows;
    std::optional<SweepProgress> progress;  // the latest counters not yet shown
    bool done = false;
    SweepSummary summary;
    std::exception_ptr error;
};

/// What the Python thread takes from the mailbox in one go.
struct Delivery {
    std::deque<SweepRow> rows;
    std::optional<SweepProgress> progress;
    bool done = false;
};

/// Waits (GIL released) up to 50 ms for rows, progress or the end, and takes them.
Delivery wait_for_delivery(Mailbox& box) {
    py::gil_scoped_release release;
    std::unique_lock lock(box.mu);
    box.cv.wait_for(lock, std::chrono::milliseconds(50),
                    [&] { return !box.rows.empty() || box.progress || box.done; });
    Delivery d;
    d.rows.swap(box.rows);
    d.progress = std::exchange(box.progress, std::nullopt);
    d.done = box.done;
    return d;
}

/// Runs `sweep` on its own thread while this (Python) thread hands rows to `on_row` and
/// counters to `on_progress` in order and checks for signals between them. A KeyboardInterrupt
/// — from Ctrl-C, or raised by a callback — sets the cancel flag: the points in progress finish
/// and their rows are still handed over; the summary then says "interrupted". Any other Python
/// exception cancels the sweep too, waits for it, and propagates.
class Runner {
public:
    Runner(const Sweep& sweep, py::function on_row, py::object on_progress)
        : sweep_(sweep), on_row_(std::move(on_row)), on_progress_(std::move(on_progress)) {}

    py::dict run() {
        std::thread worker([this] { solve(); });
        try {
            pump();
        } catch (...) {
            cancel_.store(true);
            finish(worker);
            throw;
        }
        finish(worker);
        if (box_.error) std::rethrow_exception(box_.error);
        py::dict summary;
        summary["points"] = box_.summary.points;
        summary["solved"] = box_.summary.solved;
        summary["failed"] = box_.summary.failed;
        summary["not_run"] = box_.summary.not_run;
        summary["precision_reached"] = box_.summary.precision_reached;
        summary["interrupted"] = interrupted_;
        return summary;
    }

private:
    void solve() {
        try {
            const SweepSummary s = sweep_.run(
                [this](const SweepRow& row) {
                    std::lock_guard lock(box_.mu);
                    box_.rows.push_back(row);
                    box_.cv.notify_one();
                },
                &cancel_, {},
                [this](const SweepProgress& p) {
                    std::lock_guard lock(box_.mu);
                    box_.progress = p;
                    box_.cv.notify_one();
                });
            std::lock_guard lock(box_.mu);
            box_.summary = s;
        } catch (...) {
            std::lock_guard lock(box_.mu);
            box_.error = std::current_exception();
        }
        std::lock_guard lock(box_.mu);
        box_.done = true;
        box_.cv.notify_one();
    }

    /// Hands everything over until the solving thread is done.
    void pump() {
        for (;;) {
            Delivery d = wait_for_delivery(box_);
            for (const SweepRow& row : d.rows) guarded([&] { on_row_(row_tuple(row)); });
            if (d.progress && !on_progress_.is_none()) {
                guarded([&] {
                    on_progress_(d.progress->solved, d.progress->failed, d.progress->to_solve);
                });
            }
            guarded([] {
                if (PyErr_CheckSignals() != 0) throw py::error_already_set();
            });
            if (d.done) return;
        }
    }

    /// Calls `f`; a KeyboardInterrupt it raises cancels the sweep instead of propagating.
    template <class F>
    void guarded(F&& f) {
        try {
            f();
        } catch (py::error_already_set& e) {
            if (!e.matches(PyExc_KeyboardInterrupt)) throw;
            interrupted_ = true;
            cancel_.store(true);
        }
    }

    /// Waits for the solving thread with the GIL released (its callbacks never take it).
    static void finish(std::thread& worker) {
        py::gil_scoped_release release;
        if (worker.joinable()) worker.join();
    }

    const Sweep& sweep_;
    py::function on_row_;
    py::object on_progress_;
    Mailbox box_;
    std::atomic<bool> cancel_{false};
    bool interrupted_ = false;
};

}  // namespace

void define_sweep(py::module_& m) {
    py::class_<Sweep>(m, "Sweep", "A compiled sweep of the C++ library (sgdnet.sweep runs it).")
        .def("size", &Sweep::size)
        .def("columns", &Sweep::columns)
        .def("measure_names", &Sweep::measure_names)
        .def("point",
             [](const Sweep& s, std::size_t k) {
                 if (k >= s.size()) throw py::index_error("no point " + std::to_string(k));
                 return values_list(s.point(k));
             })
        .def("run",
             [](const Sweep& s, py::function on_row, py::object on_progress) {
                 return Runner(s, std::move(on_row), std::move(on_progress)).run();
             },
             py::arg("on_row"), py::arg("on_progress") = py::none());
    m.def("compile_sweep", &compile_sweep, py::arg("source"), py::arg("is_path"),
          py::arg("axes"), py::arg("set"), py::arg("granularity"), py::arg("zip"),
          py::arg("run"));
}

}  // namespace sgdnet::python
