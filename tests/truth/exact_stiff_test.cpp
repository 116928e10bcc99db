// Truth test of the multiprecision mode: a stiff birth–death chain where double precision fails.
#include <doctest/doctest.h>

#include <boost/multiprecision/cpp_bin_float.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "solver/solve.hpp"
#include "tests/support/test_nets.hpp"

using sgdnet::testing::measure;
using sgdnet::testing::NetBuilder;

TEST_CASE("stiff birth-death chain: double loses accuracy, --arith mp recovers it") {
    // One token on levels l0..l8, up_i: l_i → l_{i+1} at birth[i], down_i back at death[i];
    // rates span 1e-12..1e12 (microsecond links next to hour-long failures, and worse).
    // Closed form: π_{i+1} = π_i birth[i]/death[i], computed here in 50-digit arithmetic;
    // X(up_i) = π_i birth[i]. The π_i span ~60 orders of magnitude, so the small ones are
    // below double's rounding of the large ones in any elimination that mixes them.
    using Mp = boost::multiprecision::cpp_bin_float_50;
    const std::vector<double> birth{1e12, 1e-12, 1e9, 1e-3, 1e12, 1e-9, 1e6, 1e-12};
    const std::vector<double> death{1e-12, 1e12, 1e-6, 1e3, 1e-12, 1e9, 1e-6, 1e12};
    std::vector<Mp> pi{Mp(1)};
    for (size_t i = 0; i < birth.size(); ++i) pi.push_back(pi.back() * Mp(birth[i]) / Mp(death[i]));
    Mp total = 0;
    for (const Mp& p : pi) total += p;
    for (Mp& p : pi) p /= total;

    NetBuilder b;
    b.birth_death_chain(birth, death);

    auto worst_error = [&](const sgdnet::solver::SolveResult& r) {
        double worst = 0;
        for (size_t i = 0; i <= birth.size(); ++i) {
            const double truth = static_cast<double>(pi[i]);
            worst = std::max(worst, std::abs(measure(r, "p" + std::to_string(i)) - truth) / truth);
        }
        for (size_t i = 0; i < birth.size(); ++i) {
            const double truth = static_cast<double>(pi[i] * Mp(birth[i]));
            worst = std::max(worst, std::abs(measure(r, "x" + std::to_string(i)) - truth) / truth);
        }
        return worst;
    };
    sgdnet::solver::SolveOptions o;
    o.solver = sgdnet::solver::SolverKind::Exact;
    const auto rd = sgdnet::solver::solve_exact(b.net, o);
    o.arithmetic = sgdnet::solver::Arithmetic::Multiprecision;
    const auto rm = sgdnet::solver::solve_exact(b.net, o);
    const double err_double = worst_error(rd);
    const double err_mp = worst_error(rm);
    MESSAGE("worst relative error: double " << err_double << ", multiprecision " << err_mp);
    CHECK(*rd.stats.method == "sparse-lu");
    CHECK(*rm.stats.method == "gth-mp50");
    CHECK(err_double > 1e-3);  // visibly wrong in double
    CHECK(err_mp < 1e-9);      // recovered
}
