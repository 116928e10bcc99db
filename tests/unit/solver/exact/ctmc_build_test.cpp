// Unit tests of the exact solver: reachability, vanishing elimination, errors, phase types.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "solver/exact/ctmc_build.hpp"
#include "solver/exact/ctmc_solve.hpp"
#include "solver/exact/phase_type.hpp"
#include "solver/solve.hpp"
#include "tests/support/test_nets.hpp"

using sgdnet::solver::SolveError;
using sgdnet::solver::SolveOptions;
using sgdnet::solver::solve_exact;
using sgdnet::testing::measure;
using sgdnet::testing::NetBuilder;

namespace {

SolveOptions exact_options() {
    SolveOptions o;
    o.solver = sgdnet::solver::SolverKind::Exact;
    return o;
}

SolveError::Kind error_kind(const sgdnet::net::PetriNet& net, const SolveOptions& o,
                            std::string& message) {
    try {
        solve_exact(net, o);
    } catch (const SolveError& e) {
        message = e.what();
        return e.kind();
    }
    FAIL("no SolveError thrown");
    return SolveError::Kind::Invalid;
}

}  // namespace

TEST_CASE("closed cycle: state count is the number of token placements") {
    // 3 places, 4 tokens: C(4+2, 2) = 15 markings, all tangible.
    NetBuilder b;
    const auto p0 = b.place("p0", 4), p1 = b.place("p1"), p2 = b.place("p2");
    b.timed("t0", 1, {{p0, 1}}, {{p1, 1}});
    b.timed("t1", 2, {{p1, 1}}, {{p2, 1}});
    b.timed("t2", 3, {{p2, 1}}, {{p0, 1}});
    b.tokens("n0", p0);
    const auto r = solve_exact(b.net, exact_options());
    CHECK(r.solver == "exact");
    CHECK(*r.stats.states == 15);
    CHECK(*r.stats.method == "sparse-lu");
    CHECK(*r.stats.residual < 1e-12);
    CHECK(r.measures[0].ci_low == r.measures[0].mean);
    CHECK(r.measures[0].ci_high == r.measures[0].mean);
}

TEST_CASE("immediate routing: weights split the flow, throughput of immediates tracked") {
    // Poisson arrivals (λ = 2) are routed by immediates with weights 1 and 3 to two
    // independent exponential servers; the routers fire λ/4 and 3λ/4 times per second. The
    // chain is kept finite by inhibitors that block arrivals while either queue holds 3.
    NetBuilder b;
    const auto in = b.place("in"), q1 = b.place("q1"), q2 = b.place("q2");
    const auto arrive = b.timed("arrive", 2, {}, {{in, 1}}, {{q1, 3}, {q2, 3}});
    const auto r1 = b.immediate("r1", 1, 1, {{in, 1}}, {{q1, 1}});
    const auto r2 = b.immediate("r2", 1, 3, {{in, 1}}, {{q2, 1}});
    b.timed("s1", 5, {{q1, 1}}, {});
    b.timed("s2", 5, {{q2, 1}}, {});
    b.throughput("x_arrive", {{arrive, 1}});
    b.throughput("x1", {{r1, 1}});
    b.throughput("x2", {{r2, 1}});
    b.throughput("inv", {{r1, 1}, {r2, 1}}, true);
    const auto r = solve_exact(b.net, exact_options());
    // Every arrival is routed: X(r1) + X(r2) = X(arrive), split 1 : 3.
    const double xa = measure(r, "x_arrive");
    CHECK(measure(r, "x1") == doctest::Approx(xa / 4).epsilon(1e-12));
    CHECK(measure(r, "x2") == doctest::Approx(3 * xa / 4).epsilon(1e-12));
    CHECK(measure(r, "inv") == doctest::Approx(4 / xa + 4 / (3 * xa)).epsilon(1e-12));
    // Tangible markings: (q1, q2) in {0..3}² except (3, 3): arrivals stop once either queue
    // holds 3, so the other cannot reach 3 as well. `in` is always 0 in tangible markings.
    CHECK(*r.stats.states == 15);
}

TEST_CASE("priorities: the higher-priority immediate always wins") {
    NetBuilder b;
    const auto a = b.place("a", 1), x = b.place("x"), y = b.place("y");
    b.timed("go", 1, {{x, 1}}, {{a, 1}});
    b.timed("go2", 1, {{y, 1}}, {{a, 1}});
    const auto hi = b.immediate("hi", 2, 1, {{a, 1}}, {{x, 1}});
    const auto lo = b.immediate("lo", 1, 100, {{a, 1}}, {{y, 1}});
    b.throughput("hi", {{hi, 1}});
    b.throughput("lo", {{lo, 1}});
    const auto r = solve_exact(b.net, exact_options());
    CHECK(measure(r, "hi") == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(measure(r, "lo") == 0.0);
    CHECK(*r.stats.states == 1);  // only {x=1}: the initial {a=1} is vanishing
}

TEST_CASE("vanishing loop with an exit: expected immediate firings by absorption") {
    // A token leaves `home` at rate 1 to `p1`; `a` moves it p1 → p2; at p2, `back` (weight 1)
    // returns it to p1 and `done` (weight 1) to `home`. The number of `a` firings per cycle is
    // geometric with success 1/2: mean 2. Cycle time 1 s (only `leave` takes time), so
    // X(a) = 2, X(back) = 1, X(done) = 1.
    NetBuilder b;
    const auto home = b.place("home", 1), p1 = b.place("p1"), p2 = b.place("p2");
    b.timed("leave", 1, {{home, 1}}, {{p1, 1}});
    const auto a = b.immediate("a", 1, 1, {{p1, 1}}, {{p2, 1}});
    const auto back = b.immediate("back", 1, 1, {{p2, 1}}, {{p1, 1}});
    const auto done = b.immediate("done", 1, 1, {{p2, 1}}, {{home, 1}});
    b.throughput("a", {{a, 1}});
    b.throughput("back", {{back, 1}});
    b.throughput("done", {{done, 1}});
    const auto r = solve_exact(b.net, exact_options());
    CHECK(measure(r, "a") == doctest::Approx(2.0).epsilon(1e-12));
    CHECK(measure(r, "back") == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(measure(r, "done") == doctest::Approx(1.0).epsilon(1e-12));
}

TEST_CASE("vanishing loop without exit is an error naming the immediates") {
    NetBuilder b;
    const auto home = b.place("home", 1), p1 = b.place("p1"), p2 = b.place("p2");
    b.timed("leave", 1, {{home, 1}}, {{p1, 1}});
    b.immediate("ping", 1, 1, {{p1, 1}}, {{p2, 1}});
    b.immediate("pong", 1, 1, {{p2, 1}}, {{p1, 1}});
    std::string msg;
    CHECK(error_kind(b.net, exact_options(), msg) == SolveError::Kind::Invalid);
    CHECK(msg.find("vanishing loop") != std::string::npos);
    CHECK(msg.find("'ping'") != std::string::npos);
    CHECK(msg.find("'pong'") != std::string::npos);
}

TEST_CASE("deadlock is reported with the dead marking") {
    NetBuilder b;
    const auto a = b.place("a", 1), z = b.place("z");
    b.timed("t", 1, {{a, 1}}, {{z, 1}});
    std::string msg;
    CHECK(error_kind(b.net, exact_options(), msg) == SolveError::Kind::Deadlock);
    CHECK(msg.find("{z=1}") != std::string::npos);
    CHECK(msg.find("no timed transition can fire") != std::string::npos);
}

TEST_CASE("two closed classes: not ergodic") {
    // The initial immediate choice sends the token into one of two disjoint cycles.
    NetBuilder b;
    const auto s = b.place("s", 1), a1 = b.place("a1"), a2 = b.place("a2");
    const auto b1 = b.place("b1"), b2 = b.place("b2");
    b.immediate("left", 1, 1, {{s, 1}}, {{a1, 1}});
    b.immediate("right", 1, 1, {{s, 1}}, {{b1, 1}});
    b.timed("ta", 1, {{a1, 1}}, {{a2, 1}});
    b.timed("ta2", 1, {{a2, 1}}, {{a1, 1}});
    b.timed("tb", 1, {{b1, 1}}, {{b2, 1}});
    b.timed("tb2", 1, {{b2, 1}}, {{b1, 1}});
    std::string msg;
    CHECK(error_kind(b.net, exact_options(), msg) == SolveError::Kind::NotErgodic);
    CHECK(msg.find("2 closed classes") != std::string::npos);
}

TEST_CASE("transient states are fine when there is one closed class") {
    // start → (rate 1) → a cycle of two places; π(start) = 0, cycle split by rates 1 : 3.
    NetBuilder b;
    const auto s = b.place("start", 1), c1 = b.place("c1"), c2 = b.place("c2");
    b.timed("enter", 1, {{s, 1}}, {{c1, 1}});
    b.timed("f", 1, {{c1, 1}}, {{c2, 1}});
    b.timed("g", 3, {{c2, 1}}, {{c1, 1}});
    b.tokens("start", s);
    b.tokens("c1", c1);
    const auto r = solve_exact(b.net, exact_options());
    CHECK(measure(r, "start") == 0.0);
    CHECK(measure(r, "c1") == doctest::Approx(0.75).epsilon(1e-12));
}

TEST_CASE("an unbounded net hits max_states, names the growing place, suggests sim") {
    NetBuilder b;
    const auto q = b.place("queue");
    b.timed("arrive", 2, {}, {{q, 1}});
    b.timed("serve", 1, {{q, 1}}, {});
    auto o = exact_options();
    o.max_states = 5000;
    std::string msg;
    CHECK(error_kind(b.net, o, msg) == SolveError::Kind::StateSpaceTooLarge);
    CHECK(msg.find("'queue'") != std::string::npos);
    CHECK(msg.find("looks unbounded") != std::string::npos);
    CHECK(msg.find("--solver sim") != std::string::npos);
}

TEST_CASE("an explicit bound exceeded names the place") {
    NetBuilder b;
    const auto q = b.place("queue", 0, 3);
    b.timed("arrive", 2, {}, {{q, 1}}, {{q, 5}});
    b.timed("serve", 1, {{q, 1}}, {});
    try {
        solve_exact(b.net, exact_options());
        FAIL("no error");
    } catch (const SolveError& e) {
        CHECK(e.kind() == SolveError::Kind::BoundExceeded);
        CHECK(e.place() == q);
        CHECK(std::string(e.what()).find("'queue'") != std::string::npos);
    }
}

TEST_CASE("non-exponential delays: error naming the transition, or phase-type expansion") {
    // Two-station cycle with one token: station 1 is det(1 s), station 2 exp(mean 0.5 s).
    // The cycle throughput 1/(E[D1] + E[D2]) = 1/1.5 and P(token at 1) = 1/1.5 hold for any
    // distribution with those means, so the phase-type expansion reproduces them exactly.
    NetBuilder b;
    const auto p1 = b.place("p1", 1), p2 = b.place("p2");
    const auto t1 = b.timed("slow", sgdnet::net::Distribution{sgdnet::net::Det{1.0}},
                                 {{p1, 1}}, {{p2, 1}});
    b.timed("fast", 2, {{p2, 1}}, {{p1, 1}});
    b.throughput("x", {{t1, 1}});
    b.tokens("at1", p1);
    std::string msg;
    CHECK(error_kind(b.net, exact_options(), msg) == SolveError::Kind::NotExponential);
    CHECK(msg.find("'slow'") != std::string::npos);

    auto o = exact_options();
    o.phase_type = true;
    const auto r = solve_exact(b.net, o);
    CHECK(measure(r, "x") == doctest::Approx(1 / 1.5).epsilon(1e-12));
    CHECK(measure(r, "at1") == doctest::Approx(1 / 1.5).epsilon(1e-12));
    // det → Erlang-10: 10 phases with the token at p1, 1 state with it at p2.
    CHECK(*r.stats.states == 11);
    REQUIRE(r.warnings.size() == 1);
    CHECK(r.warnings[0].find("'slow'") != std::string::npos);
    CHECK(r.warnings[0].find("erlang(k=10)") != std::string::npos);
}

TEST_CASE("phase-type fits: Erlang for cv <= 1, balanced H2 matching mean and cv above") {
    using sgdnet::solver::fit_phase_type;
    const auto e = fit_phase_type(2.0, 0.5);  // 1/cv² = 4 phases
    CHECK(e.rates_per_s.size() == 4);
    CHECK(sgdnet::solver::phase_type_mean(e) == doctest::Approx(2.0).epsilon(1e-14));
    CHECK(sgdnet::solver::phase_type_variance(e) == doctest::Approx(1.0).epsilon(1e-12));
    const auto h = fit_phase_type(3.0, 2.0);
    CHECK(h.rates_per_s.size() == 2);
    CHECK(sgdnet::solver::phase_type_mean(h) == doctest::Approx(3.0).epsilon(1e-12));
    // Var = (cv·m)² = 36.
    CHECK(sgdnet::solver::phase_type_variance(h) == doctest::Approx(36.0).epsilon(1e-12));
    CHECK(fit_phase_type(1.0, 0.0).rates_per_s.size() ==
          static_cast<size_t>(sgdnet::solver::kMaxErlangPhases));
}

TEST_CASE("test arcs and multiplicities") {
    // `gate` holds a token permanently (test arc); `pair` consumes 2 tokens of `a` at once.
    // a ∈ {0,1,2}: `make` adds a token at rate 1 while a < 2 (inhibitor a*2), `pair` empties
    // a=2 at rate 4. Balance: π0 = π1 (rate 1 both ways into... ) cycle 0→1→2→0 with rates
    // 1, 1, 4: π ∝ (1, 1, 1/4) → X(pair) = 4·π2 = 4·(1/4)/(9/4) = 4/9.
    NetBuilder b;
    const auto gate = b.place("gate", 1), a = b.place("a");
    b.timed("make", 1, {{gate, 1}}, {{gate, 1}, {a, 1}}, {{a, 2}});
    const auto pair = b.timed("pair", 4, {{a, 2}, {gate, 1}}, {{gate, 1}});
    b.throughput("x", {{pair, 1}});
    const auto r = solve_exact(b.net, exact_options());
    CHECK(measure(r, "x") == doctest::Approx(4.0 / 9.0).epsilon(1e-12));
    CHECK(*r.stats.states == 3);
}

TEST_CASE("timed transitions enabled in a vanishing marking never fire; transient start") {
    // The token starts at p3 (transient), then cycles p4 →(ring4, 2.1) p0 →(ring0, 1.5) p1,
    // where the immediate i0 sends it straight back to p4: p1 is vanishing, so `x0` (enabled in
    // p1) never fires. Alternating renewal: P(p4) = (1/2.1)/(1/2.1 + 1/1.5) = 1.5/3.6, and
    // X(i0) = X(ring0) = 1/(1/2.1 + 1/1.5) = 3.15/3.6 = 0.875.
    NetBuilder b;
    const auto p0 = b.place("p0"), p1 = b.place("p1"), p3 = b.place("p3", 1), p4 = b.place("p4");
    b.timed("ring0", 1.5, {{p0, 1}}, {{p1, 1}}, {}, 2);
    b.timed("ring3", 2.8, {{p3, 1}}, {{p4, 1}});
    b.timed("ring4", 2.1, {{p4, 1}}, {{p0, 1}});
    const auto x0 = b.timed("x0", 1.9, {{p1, 1}}, {{p1, 1}});
    const auto i0 = b.immediate("i0", 1, 0.7, {{p1, 1}}, {{p4, 1}}, {{p4, 2}});
    b.tokens("at4", p4);
    b.throughput("i0", {{i0, 1}});
    b.throughput("x0", {{x0, 1}});
    const auto r = solve_exact(b.net, exact_options());
    CHECK(*r.stats.states == 3);
    CHECK(measure(r, "at4") == doctest::Approx(1.5 / 3.6).epsilon(1e-12));
    CHECK(measure(r, "i0") == doctest::Approx(3.15 / 3.6).epsilon(1e-12));
    CHECK(measure(r, "x0") == 0.0);
}

TEST_CASE("solve(): exact and auto dispatch") {
    // M/M/1/4 (λ = 1, μ = 2): X = μ(1 - π0), π0 = (1-ρ)/(1-ρ^5) with ρ = 1/2.
    NetBuilder b;
    const auto q = b.place("queue");
    b.timed("arrive", 1, {}, {{q, 1}}, {{q, 4}});
    const auto serve = b.timed("serve", 2, {{q, 1}}, {});
    b.throughput("x", {{serve, 1}});
    const double x = 2 * (1 - 0.5 / (1 - std::pow(0.5, 5)));
    SolveOptions o;
    o.solver = sgdnet::solver::SolverKind::Auto;
    auto r = sgdnet::solver::solve(b.net, o);
    CHECK(r.solver == "exact");
    CHECK(measure(r, "x") == doctest::Approx(x).epsilon(1e-12));
    o.solver = sgdnet::solver::SolverKind::Exact;
    CHECK(sgdnet::solver::solve(b.net, o).solver == "exact");

    // Over auto_max_states (5 states > 3) → simulation, with a warning saying why.
    o.solver = sgdnet::solver::SolverKind::Auto;
    o.auto_max_states = 3;
    o.max_time_s = 2;
    o.precision = 0.05;
    r = sgdnet::solver::solve(b.net, o);
    CHECK(r.solver == "sim");
    REQUIRE(!r.warnings.empty());
    CHECK(r.warnings[0].find("--solver auto chose simulation") != std::string::npos);

    // A non-exponential delay → simulation even though --phase-type would apply.
    o.auto_max_states = 1000;
    o.phase_type = true;
    b.net.transitions[serve].delay = sgdnet::net::Distribution{sgdnet::net::Det{0.5}};
    r = sgdnet::solver::solve(b.net, o);
    CHECK(r.solver == "sim");
    CHECK(r.warnings[0].find("'serve'") != std::string::npos);
}
