// Assertion helper of the simulator's truth tests: the truth lies in the CI and the CI is narrow.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "solver/solve_result.hpp"

namespace sgdnet::testing {

/// Checks ci_low <= truth <= ci_high and half-width <= max_rel_half_width · |truth|.
inline void check_covers(const solver::MeasureEstimate& e, double truth, double max_rel_half_width) {
    INFO(e.name << ": mean " << e.mean << " CI [" << e.ci_low << ", " << e.ci_high << "], truth "
                << truth);
    CHECK(e.ci_low <= truth);
    CHECK(truth <= e.ci_high);
    CHECK((e.ci_high - e.ci_low) / 2 <= max_rel_half_width * std::fabs(truth));
}

}  // namespace sgdnet::testing
