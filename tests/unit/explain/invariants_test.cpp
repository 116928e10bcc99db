// Unit tests of explain/invariants.hpp: place invariants and structural bounds derived by hand,
// and the bounds against the exact throughput of closed nets.
#include "explain/invariants.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "explain/explain.hpp"
#include "solver/solve.hpp"
#include "tests/support/training_support.hpp"

using namespace sgdnet;
using namespace sgdnet::training_test;

namespace {

uint32_t place(const net::PetriNet& n, const std::string& name) {
    for (uint32_t p = 0; p < n.places.size(); ++p)
        if (n.places[p].name == name) return p;
    FAIL("no place " << name);
    return 0;
}

uint32_t transition(const net::PetriNet& n, const std::string& name) {
    return n.find_transition(name)->value;
}

/// The exact steady-state value of measure `name`.
double exact(const net::PetriNet& n, const std::string& name) {
    solver::SolveOptions o;
    o.solver = solver::SolverKind::Exact;
    for (const auto& m : solver::solve_exact(n, o).measures)
        if (m.name == name) return m.mean;
    FAIL("no measure " << name);
    return 0;
}

}  // namespace

// Machine repairman, 3 machines, failure rate 1/s each, one repairer at 2/s: up + down = 3;
// failures at most 3/s (every machine up), repairs at most 2/s. The exact repair rate is
// μ(1 − p0) with p_k ∝ 3!/(3−k)! (λ/μ)^k: weights 1, 1.5, 1.5, 0.75, so 2 · 3.75/4.75.
TEST_CASE("repairman: up + down = 3, bounds 3λ and μ above the exact throughput") {
    const auto n = compile_text(R"(
        net s {
          place up = 3;
          place down = 0;
          transition fail ~ exp(rate = 1 /s) server = infinite { in up; out down; }
          transition repair ~ exp(rate = 2 /s) { in down; out up; }
        }
        measure repairs = throughput(s.repair);
        measure failures = throughput(s.fail);
    )");
    const auto b = explain::structural_bounds(n);
    REQUIRE(b.complete);
    REQUIRE(b.invariants.size() == 1);
    CHECK(b.invariants[0].tokens == 3);
    CHECK(b.invariants[0].weights.size() == 2);
    for (const auto& [p, w] : b.invariants[0].weights) CHECK(w == 1);
    CHECK(*b.place_tokens[place(n, "s.up")] == 3);
    CHECK(*b.place_tokens[place(n, "s.down")] == 3);
    CHECK(*b.firings_per_s[transition(n, "s.fail")] == doctest::Approx(3.0));
    CHECK(*b.firings_per_s[transition(n, "s.repair")] == doctest::Approx(2.0));
    const double repairs = exact(n, "repairs");
    CHECK(repairs == doctest::Approx(2.0 * 3.75 / 4.75).epsilon(1e-9));
    CHECK(repairs <= *b.firings_per_s[transition(n, "s.repair")]);
    CHECK(exact(n, "failures") <= *b.firings_per_s[transition(n, "s.fail")]);
}

// Weighted: `split` takes 2 tokens of a and gives 1 to b, `join` gives them back, so
// a + 2b = 4 whatever fires: a holds at most 4, b at most 2; `join` (2 servers, mean 0.5 s)
// can have at most 2 firings in progress: 4 firings/s.
TEST_CASE("weighted invariant a + 2b = 4 and the bounds it implies") {
    const auto n = compile_text(R"(
        net w {
          place a = 4;
          place b = 0;
          transition split ~ exp(rate = 3 /s) { in a*2; out b; }
          transition join ~ det(500 ms) server = 2 { in b; out a*2; }
        }
        measure joins = throughput(w.join);
    )");
    const auto b = explain::structural_bounds(n);
    REQUIRE(b.invariants.size() == 1);
    const auto& inv = b.invariants[0];
    CHECK(inv.tokens == 4);
    for (const auto& [p, w] : inv.weights) CHECK(w == (p == place(n, "w.a") ? 1 : 2));
    CHECK(*b.place_tokens[place(n, "w.a")] == 4);
    CHECK(*b.place_tokens[place(n, "w.b")] == 2);
    // split: one server, enabled at most once: 3/s; join: min(2 servers, 2 tokens) / 0.5 s.
    CHECK(*b.firings_per_s[transition(n, "w.split")] == doctest::Approx(3.0));
    CHECK(*b.firings_per_s[transition(n, "w.join")] == doctest::Approx(4.0));
}

// An open queue conserves nothing: its place is unbounded, the source fires at most at its own
// rate (tight: it is never disabled), the server at its rate. An explicit `bound` is a bound.
TEST_CASE("M/M/1: no invariant, the source's rate is tight, explicit bounds count") {
    const auto n = compile_text(R"(
        net q {
          place queue = 0 bound = 50;
          place other = 0;
          transition arrive ~ exp(rate = 1 /s) { out queue; }
          transition serve ~ exp(mean = 800 ms) { in queue; }
          transition slow ~ uniform(1 s, 3 s) { in queue; out other; }
          transition drain ~ exp(rate = 1 /s) server = infinite { in other; }
        }
        measure thr = throughput(q.arrive);
    )");
    const auto b = explain::structural_bounds(n);
    CHECK(b.complete);
    CHECK(b.invariants.empty());
    CHECK(*b.place_tokens[place(n, "q.queue")] == 50);
    CHECK_FALSE(b.place_tokens[place(n, "q.other")]);
    CHECK(*b.firings_per_s[transition(n, "q.arrive")] == doctest::Approx(1.0));
    CHECK(*b.firings_per_s[transition(n, "q.serve")] == doctest::Approx(1.25));
    // A uniform delay under enabling memory: preemption could favour short draws, no bound.
    CHECK_FALSE(b.firings_per_s[transition(n, "q.slow")]);
    // Infinite servers on an unbounded place: no bound.
    CHECK_FALSE(b.firings_per_s[transition(n, "q.drain")]);
}

// Two independent cycles: two invariants, each place bounded by its own cycle's tokens; the
// activity report carries them as text and every simulated rate is below its bound.
TEST_CASE("net_activity: invariants as text and simulated rates below the bounds") {
    const auto n = compile_text(R"(
        net c {
          place a = 2;
          place b = 0;
          place x = 1;
          place y = 0;
          transition ab ~ exp(rate = 1 /s) { in a; out b; }
          transition ba ~ exp(rate = 4 /s) server = 2 { in b; out a; }
          transition xy ~ det(250 ms) { in x; out y; }
          transition yx ~ exp(rate = 2 /s) { in y; out x; }
        }
        measure thr = throughput(c.ab);
    )");
    const auto a = explain::net_activity(n, sim_options(0.01));
    REQUIRE(a.invariants_complete);
    REQUIRE(a.invariants.size() == 2);
    CHECK((a.invariants[0] == "c.a + c.b = 2" || a.invariants[1] == "c.a + c.b = 2"));
    CHECK((a.invariants[0] == "c.x + c.y = 1" || a.invariants[1] == "c.x + c.y = 1"));
    for (const auto& t : a.transitions) {
        CAPTURE(t.name);
        REQUIRE(t.bound);
        CHECK(t.ci_low <= *t.bound);
    }
    for (const auto& p : a.places) {
        CAPTURE(p.name);
        REQUIRE(p.bound);
        CHECK(p.value <= *p.bound);
    }
}
