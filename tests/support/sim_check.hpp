// Options and assertion of the simulator's truth tests: the truth lies in a narrow CI.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "solver/solve.hpp"
#include "solver/solve_result.hpp"

namespace sgdnet::testing {

/// Simulation to `precision` (relative half-width of the first measure) at 99.9% confidence, so
/// that the dozens of coverage assertions of the truth tier fail by chance with negligible
/// probability (the 95% calibration is checked by tests/truth/sim_coverage_test.cpp); 60 s cap.
inline solver::SolveOptions truth_options(double precision, uint64_t seed) {
    solver::SolveOptions o;
    o.precision = precision;
    o.confidence = 0.999;
    o.seed = seed;
    o.max_time_s = 60;
    return o;
}

/// Checks ci_low <= truth <= ci_high and half-width <= max_rel_half_width · |truth|.
inline void check_covers(const solver::MeasureEstimate& e, double truth,
                         double max_rel_half_width) {
    INFO(e.name << ": mean " << e.mean << " CI [" << e.ci_low << ", " << e.ci_high << "], truth "
                << truth);
    CHECK(e.ci_low <= truth);
    CHECK(truth <= e.ci_high);
    CHECK((e.ci_high - e.ci_low) / 2 <= max_rel_half_width * std::fabs(truth));
}

}  // namespace sgdnet::testing
