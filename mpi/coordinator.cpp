// Rank 0's bookkeeping of a distributed sweep: points handed out in order, points in flight by
// rank, finished rows delivered in point order.
#include "mpi/coordinator.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace sgdnet::mpi {

Coordinator::Coordinator(const sweep::CompiledSweep& sweep, const sweep::SweepOptions& options,
                         const sweep::RowCallback& on_row)
    : sweep_(sweep), options_(options), on_row_(on_row) {
    const std::size_t points = sweep.plan.points.size();
    if (!options.skip.empty() && options.skip.size() != points) {
        throw std::invalid_argument("Coordinator: options.skip has " +
                                    std::to_string(options.skip.size()) + " flags for " +
                                    std::to_string(points) + " points");
    }
    for (std::size_t k = 0; k < points; ++k) {
        if (options.skip.empty() || !options.skip[k]) todo_.push_back(k);
    }
    rows_.resize(todo_.size());
    progress_.to_solve = todo_.size();
}

std::optional<std::size_t> Coordinator::hand_out(int rank) {
    if (stopped_ || next_ == todo_.size()) return std::nullopt;
    in_flight_[rank] = next_;
    return todo_[next_++];
}

void Coordinator::finish(int rank, sweep::SweepRow&& row) {
    const auto it = in_flight_.find(rank);
    if (it == in_flight_.end() || todo_[it->second] != row.index) {
        throw std::invalid_argument("Coordinator: rank " + std::to_string(rank) +
                                    " returned point " + std::to_string(row.index) +
                                    ", which it was not solving");
    }
    const std::size_t slot = it->second;
    in_flight_.erase(it);
    progress_.point = row.index;
    progress_.point_failed = row.error.has_value();
    if (row.error) {
        ++progress_.failed;
    } else {
        ++progress_.solved;
        if (!row.result->precision_reached) precision_reached_ = false;
    }
    row.params = sweep::point_params(sweep_.plan, row.index);
    rows_[slot] = std::move(row);
    while (delivered_ < rows_.size() && rows_[delivered_]) deliver(delivered_++);
    if (options_.on_progress) options_.on_progress(progress_);
}

std::vector<InFlight> Coordinator::in_flight() const {
    std::vector<InFlight> out;
    for (const auto& [rank, slot] : in_flight_) out.push_back({rank, todo_[slot]});
    return out;
}

void Coordinator::deliver_rest() {
    for (std::size_t slot = delivered_; slot < rows_.size(); ++slot) {
        if (rows_[slot]) deliver(slot);
    }
    delivered_ = rows_.size();
}

sweep::SweepSummary Coordinator::summary() const {
    sweep::SweepSummary s;
    s.points = sweep_.plan.points.size();
    s.skipped = s.points - todo_.size();
    s.solved = progress_.solved;
    s.failed = progress_.failed;
    s.not_run = todo_.size() - progress_.solved - progress_.failed;
    s.precision_reached = precision_reached_;
    return s;
}

void Coordinator::deliver(std::size_t slot) {
    sweep::SweepRow row = std::move(*rows_[slot]);
    rows_[slot].reset();
    on_row_(std::move(row));
}

}  // namespace sgdnet::mpi
