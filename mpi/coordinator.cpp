// Rank 0's bookkeeping of a distributed sweep: points handed out in order, points in flight by
// rank, finished rows delivered in point order.
#include "mpi/coordinator.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace sgdnet::mpi {

Coordinator::Coordinator(const sweep::CompiledSweep& sweep, const sweep::SweepOptions& options,
                         const sweep::RowCallback& on_row)
    : sweep_(sweep),
      todo_(sweep::points_to_solve(sweep.plan.points.size(), options.skip)),
      rows_(todo_.size(), on_row, options) {}

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
    row.params = sweep::point_params(sweep_.plan, row.index);
    rows_.finish(slot, std::move(row));
}

std::vector<InFlight> Coordinator::in_flight() const {
    std::vector<InFlight> out;
    for (const auto& [rank, slot] : in_flight_) out.push_back({rank, todo_[slot]});
    return out;
}

void Coordinator::deliver_rest() { rows_.deliver_rest(); }

sweep::SweepSummary Coordinator::summary() const {
    sweep::SweepSummary s;
    s.points = sweep_.plan.points.size();
    s.skipped = s.points - todo_.size();
    rows_.summarize(s);
    return s;
}

}  // namespace sgdnet::mpi
