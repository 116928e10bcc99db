// Unit tests of net::validate, the structural invariants of a net.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "net/petri_net.hpp"
#include "tests/support/sample_net.hpp"

using namespace sgdnet::net;
using sgdnet::testing::sample_net;

namespace {

bool has_message(const std::vector<std::string>& errors, const std::string& part) {
    return std::any_of(errors.begin(), errors.end(),
                       [&](const std::string& e) { return e.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("validate: a well-formed net has no violations") {
    CHECK(validate(sample_net()).empty());
}

TEST_CASE("validate: names must be unique per kind") {
    PetriNet n = sample_net();
    n.places[1].name = "mm1k.queue";
    n.transitions[2].name = "mm1k.serve";
    n.measures[1].name = "thr";
    const auto errors = validate(n);
    CHECK(has_message(errors, "duplicate place 'mm1k.queue'"));
    CHECK(has_message(errors, "duplicate transition 'mm1k.serve'"));
    CHECK(has_message(errors, "duplicate measure 'thr'"));
    CHECK(errors.size() == 3);
}

TEST_CASE("validate: arcs need ids in range and multiplicities >= 1") {
    PetriNet n = sample_net();
    n.transitions[0].outputs[0].place = PlaceId{7};
    n.transitions[1].inputs[0].multiplicity = 0;
    const auto errors = validate(n);
    CHECK(has_message(errors, "transition 'mm1k.arrive': output arc to place id 7 out of range"));
    CHECK(has_message(errors, "transition 'mm1k.serve': input arc with multiplicity 0"));
    CHECK(errors.size() == 2);
}

TEST_CASE("validate: weights > 0, servers >= 1, initial within bound") {
    PetriNet n = sample_net();
    n.transitions[2].weight = 0;
    n.transitions[0].servers = 0;
    n.places[1].initial = 2;
    const auto errors = validate(n);
    CHECK(has_message(errors, "transition 'mm1k.pick': weight 0 is not positive"));
    CHECK(has_message(errors, "transition 'mm1k.arrive': 0 servers"));
    CHECK(has_message(errors, "place 'mm1k.idle': initial marking 2 exceeds its bound 1"));
    CHECK(errors.size() == 3);
}

TEST_CASE("validate: distribution parameters finite and non-negative, recursively") {
    PetriNet n = sample_net();
    SUBCASE("negative det") {
        n.transitions[0].delay = Distribution{Det{-1}};
        CHECK(has_message(validate(n), "det: invalid value -1"));
    }
    SUBCASE("zero exponential rate") {
        n.transitions[0].delay = Distribution{Exp{0}};
        CHECK(has_message(validate(n), "exp: invalid rate 0"));
    }
    SUBCASE("infinite lognormal mean") {
        n.transitions[0].delay = Distribution{Lognormal{INFINITY, 0.1}};
        CHECK(has_message(validate(n), "lognormal: invalid mean inf"));
    }
    SUBCASE("uniform with high < low") {
        n.transitions[0].delay = Distribution{Uniform{2, 1}};
        CHECK(has_message(validate(n), "uniform: invalid high bound 1"));
    }
    SUBCASE("mixture probabilities must sum to 1 and parts are checked") {
        Mixture m;
        m.probs = {0.5, 0.4};
        m.parts = {Distribution{Det{1}}, Distribution{Gamma{1, -0.5}}};
        n.transitions[0].delay = Distribution{m};
        const auto errors = validate(n);
        CHECK(has_message(errors, "mixture: probabilities sum to 0.9"));
        CHECK(has_message(errors, "gamma: invalid cv -0.5"));
    }
    SUBCASE("scaled by a non-positive factor") {
        Scaled s;
        s.base = {Distribution{Exp{1}}};
        s.factor = 0;
        n.transitions[0].delay = Distribution{s};
        CHECK(has_message(validate(n), "scaled: invalid factor 0"));
    }
    SUBCASE("empty empirical") {
        n.transitions[0].delay = Distribution{Empirical{}};
        CHECK(has_message(validate(n), "empirical: no values"));
    }
}

TEST_CASE("validate: measures and speed expressions reference valid ids") {
    PetriNet n = sample_net();
    n.measures[0].terms[0].transition = TransitionId{9};
    n.measures[1].expr = MarkingExpr::tokens(5);
    n.transitions[1].speed = MarkingExpr::tokens(4);
    n.measures[2].terms.clear();
    const auto errors = validate(n);
    CHECK(has_message(errors, "measure 'thr': transition id 9 out of range (3 transitions)"));
    CHECK(has_message(errors, "measure 'qlen': expression reads place id 5 out of range"));
    CHECK(has_message(errors, "transition 'mm1k.serve' speed: expression reads place id 4"));
    CHECK(has_message(errors, "measure 'step_time': no transitions"));
    CHECK(errors.size() == 4);
}
