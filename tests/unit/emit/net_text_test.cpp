// Unit tests of emit::to_net_text, the canonical text form of a net (`--emit net`).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "emit/emit.hpp"
#include "net/petri_net.hpp"
#include "tests/support/sample_net.hpp"

using namespace sgdnet::net;
using sgdnet::emit::to_net_text;
using sgdnet::testing::sample_net;

TEST_CASE("net text: canonical layout with header counts, params, places, arcs, measures") {
    const PetriNet n = sample_net();
    const std::vector<std::string> names = {"mm1k.queue", "mm1k.idle"};
    // Distribution and expression texts come from their own (separately tested) printers.
    const std::string expected =
        "net mm1k\n"
        "  places 2, timed 2, immediate 1, arcs 5, measures 3\n"
        "params\n"
        "  K = 3\n"
        "  lambda = 0.5\n"
        "places\n"
        "  mm1k.queue = 0\n"
        "  mm1k.idle = 1 bound 1\n"
        "transitions\n"
        "  timed mm1k.arrive ~ " +
        to_string(n.transitions[0].delay) +
        " server single memory enabling\n"
        "    out mm1k.queue\n"
        "    inhibit mm1k.queue*3\n"
        "  timed mm1k.serve ~ " +
        to_string(n.transitions[1].delay) + " server infinite memory age speed " +
        MarkingExpr::tokens(1).to_string(names) +
        "\n"
        "    in mm1k.queue*2\n"
        "  immediate mm1k.pick priority 2 weight 0.3\n"
        "    in mm1k.idle\n"
        "    out mm1k.idle\n"
        "measures\n"
        "  thr = throughput(mm1k.serve) + 0.5*throughput(mm1k.arrive) [1/s]\n"
        "  qlen = average(" +
        MarkingExpr::tokens(0).to_string(names) +
        ") [tokens]\n"
        "  step_time = 0.5/throughput(mm1k.serve) [s]\n";
    CHECK(to_net_text(n) == expected);
}

TEST_CASE("net text: deterministic, shortest exact numbers, empty sections omitted") {
    PetriNet n;
    n.name = "tiny";
    n.params = {{"bw", 1.25e9}, {"third", 1.0 / 3.0}, {"tenth", 0.1}};
    const std::string text = to_net_text(n);
    CHECK(text == to_net_text(n));
    // 1/3 needs 16 significant digits to read back exactly; 0.1 needs one.
    CHECK(text ==
          "net tiny\n"
          "  places 0, timed 0, immediate 0, arcs 0, measures 0\n"
          "params\n"
          "  bw = 1.25e+09\n"
          "  third = 0.3333333333333333\n"
          "  tenth = 0.1\n");
    CHECK(std::stod("0.3333333333333333") == 1.0 / 3.0);
}

TEST_CASE("net text: K servers are printed as a number") {
    PetriNet n = sample_net();
    n.transitions[0].servers = 4;
    CHECK(to_net_text(n).find("timed mm1k.arrive ~ " + to_string(n.transitions[0].delay) +
                              " server 4 memory enabling\n") != std::string::npos);
}
