// Exact-solver scale benchmark: a closed cyclic net of M stations and N tokens, checked by MVA.
//
// Usage: exact_bench [STATIONS=6] [TOKENS=40]. Prints tangible states, build and solve times,
// states/s, the method, residual and the relative error of the throughput against exact Mean
// Value Analysis (tests/support/mva.hpp; the net is a closed product-form network of
// single-server stations, built by tests/support/test_nets.hpp).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "net/petri_net.hpp"
#include "solver/exact/ctmc_build.hpp"
#include "solver/exact/ctmc_solve.hpp"
#include "tests/support/mva.hpp"
#include "tests/support/test_nets.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
    using namespace sgdnet;
    const int stations = argc > 1 ? std::atoi(argv[1]) : 6;
    const int tokens = argc > 2 ? std::atoi(argv[2]) : 40;
    std::vector<double> mu, service_s;
    for (int i = 0; i < stations; ++i) {
        mu.push_back(1.0 + 0.5 * i);
        service_s.push_back(1 / mu.back());
    }
    testing::NetBuilder b("cyclic");
    b.cyclic_network(mu, static_cast<uint32_t>(tokens));
    const net::PetriNet& pn = b.net;
    solver::SolveOptions options;
    options.solver = solver::SolverKind::Exact;
    options.max_states = 100'000'000;  // a scale benchmark: 60 tokens are 8.26 M states

    const auto t0 = Clock::now();
    const solver::Ctmc c = solver::build_ctmc(pn, options, {0});
    const double build_s = seconds_since(t0);
    const auto t1 = Clock::now();
    const solver::SteadyState ss = solver::steady_state(c, pn, options.arithmetic);
    const double solve_s = seconds_since(t1);
    double x = 0;
    for (uint64_t s = 0; s < c.num_states; ++s) x += ss.pi[s] * c.flow[0][s];

    const double x_mva = testing::cyclic_mva(service_s, tokens).throughput;
    const double total_s = build_s + solve_s;
    std::printf("stations %d tokens %d\n", stations, tokens);
    std::printf("tangible states     %llu\n", static_cast<unsigned long long>(c.num_states));
    std::printf("generator entries   %llu\n", static_cast<unsigned long long>(c.num_rates()));
    std::printf("build s             %.3f (%.0f states/s)\n", build_s,
                static_cast<double>(c.num_states) / build_s);
    std::printf("steady state s      %.3f (%s, %llu iterations, residual %.3g)\n", solve_s,
                ss.method.c_str(), static_cast<unsigned long long>(ss.iterations), ss.residual);
    std::printf("total s             %.3f (%.0f states/s)\n", total_s,
                static_cast<double>(c.num_states) / total_s);
    std::printf("throughput          %.12g (MVA %.12g, rel. error %.2e)\n", x, x_mva,
                std::abs(x - x_mva) / x_mva);
    return 0;
}
