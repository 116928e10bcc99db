// Unit tests of the command's pure parts: number and unit formats, readable values, CSV quoting, the JSON shape, --set pairs and durations, the run progress line.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/output.hpp"

using namespace sgdnet;

namespace {

solver::SolveResult sim_result() {
    solver::SolveResult r;
    r.solver = "sim";
    r.measures = {{"steps_per_s", 5.3323, 5.31823, 5.34637, "1/s"},
                  {"step_time", 0.187541, 0.187044, 0.188037, "s"},
                  {"bytes", 3.2e9, 3.1e9, 3.3e9, "B/s"},
                  {"util", 0.5, 0.49, 0.51, ""}};
    r.stats.replications = 16;
    r.stats.events = 553469;
    r.stats.simulated_s = 392.9;
    r.stats.wall_s = 0.0218;
    return r;
}

net::PetriNet named_net() {
    net::PetriNet n;
    n.name = "ring";
    n.params = {{"N", 8, ""}, {"bw", 1.25e9, "B/s"}, {"S", 2.0e-5, "s"}};
    return n;
}

}  // namespace

TEST_CASE("number: the shortest text that reads back as the same double") {
    CHECK(cli::number(0.1) == "0.1");
    CHECK(cli::number(1250000000) == "1250000000");
    CHECK(std::stod(cli::number(1.0 / 3)) == 1.0 / 3);
    CHECK(cli::number(std::numeric_limits<double>::infinity()) == "inf");
    CHECK(cli::number(-std::numeric_limits<double>::infinity()) == "-inf");
    CHECK(cli::number(std::nan("")) == "nan");
}

TEST_CASE("relative half-width: (high - low) / 2 / |mean|, with the zero-mean cases") {
    CHECK(cli::relative_half_width({"x", 2, 1.9, 2.1, ""}) == doctest::Approx(0.05));
    CHECK(cli::relative_half_width({"x", -2, -2.1, -1.9, ""}) == doctest::Approx(0.05));
    CHECK(cli::relative_half_width({"x", 0, 0, 0, ""}) == 0);
    CHECK(std::isinf(cli::relative_half_width({"x", 0, -1, 1, ""})));
}

TEST_CASE("CSV: fields with a comma, quote or newline are quoted, quotes doubled") {
    CHECK(cli::csv_line({"a", "b"}) == "a,b\n");
    CHECK(cli::csv_line({"util.w[0]", "x,y", "say \"hi\"", "two\nlines"}) ==
          "util.w[0],\"x,y\",\"say \"\"hi\"\"\",\"two\nlines\"\n");
    const solver::SolveResult r = sim_result();
    CHECK(cli::csv_measure_columns(r).size() == 12);
    CHECK(cli::csv_measure_columns(r)[1] == "steps_per_s_ci_low");
    CHECK(cli::format_csv(r).rfind("steps_per_s,steps_per_s_ci_low,steps_per_s_ci_high,", 0) == 0);
    CHECK(cli::csv_measure_cells(r)[3] == "0.187541");  // canonical seconds, not ms
}

TEST_CASE("JSON: model, solver, params, measures and stats in canonical units, in order") {
    const auto j = nlohmann::ordered_json::parse(cli::format_json(named_net(), sim_result()));
    std::vector<std::string> keys;
    for (const auto& [k, v] : j.items()) keys.push_back(k);
    CHECK(keys == std::vector<std::string>{"model", "solver", "params", "measures", "stats"});
    CHECK(j["params"]["bw"] == 1.25e9);
    CHECK(j["measures"]["step_time"]["mean"] == 0.187541);
    CHECK(j["stats"]["events"] == 553469);
    CHECK(!j["stats"].contains("states"));

    solver::SolveResult exact = sim_result();
    exact.solver = "exact";
    exact.stats.states = 6;
    exact.stats.residual = 2e-16;
    exact.stats.iterations = 0;
    exact.stats.method = "sparse-lu";
    const auto e = nlohmann::json::parse(cli::format_json(named_net(), exact));
    CHECK(e["stats"]["states"] == 6);
    CHECK(e["stats"]["method"] == "sparse-lu");
    CHECK(e["stats"]["residual"] == 2e-16);
}

TEST_CASE("table: readable units (ms, Gbps, /s), six significant digits, the CI level") {
    solver::SolveOptions options;
    options.confidence = 0.9;
    const std::string t = cli::format_table(named_net(), sim_result(), options);
    CHECK(t.find("model ring, solver sim: 16 replications, 553469 events") == 0);
    CHECK(t.find("params: N=8, bw=10 Gbps, S=20 us\n") != std::string::npos);
    CHECK(t.find("90% CI low") != std::string::npos);
    CHECK(t.find("187.541") != std::string::npos);  // 0.187541 s shown in ms
    CHECK(t.find(" ms\n") != std::string::npos);
    CHECK(t.find("25.6  ") != std::string::npos);     // 3.2e9 B/s = 25.6 Gbps
    CHECK(t.find(" Gbps\n") != std::string::npos);
    CHECK(t.find("5.3323") != std::string::npos);
    CHECK(t.find(" /s\n") != std::string::npos);
}

TEST_CASE("readable: canonical values in the units people read; other units kept") {
    CHECK(cli::readable(-3125000000, "B/s") == "-25 Gbps");
    CHECK(cli::readable(3.2e6, "B") == "3.2 MB");
    CHECK(cli::readable(1.9999999999999998e-05, "s") == "20 us");
    CHECK(cli::readable(9.523809523809524, "1/s") == "9.52381 /s");
    CHECK(cli::readable(0.5, "") == "0.5");
    CHECK(cli::readable(3.5, "tokens") == "3.5 tokens");
}

TEST_CASE("run's progress line: half-width against the target, events/s, elapsed") {
    CHECK(cli::progress_line(nullptr, 2.2) == "solving: 00:00:02 elapsed");
    solver::SimProgress p;
    p.rounds = 3;
    p.relative_half_width = 0.0321;
    p.precision = 0.01;
    p.events = 3'000'000;
    p.wall_s = 2;
    CHECK(cli::progress_line(&p, 65) ==
          "simulating: half-width 3.21% (target 1%), 1.5 M events/s, 00:01:05 elapsed");
    p.events = 2'000;
    CHECK(cli::progress_line(&p, 3).find(", 1 k events/s, ") != std::string::npos);
}

TEST_CASE("--set pairs and durations") {
    const auto sets = cli::parse_sets({"N=16", "bw=25 Gbps"});
    REQUIRE(sets);
    CHECK((*sets)[1].first == "bw");
    CHECK((*sets)[1].second == "25 Gbps");
    CHECK(!cli::parse_sets({"N"}));
    CHECK(cli::parse_duration("30s") == doctest::Approx(30));
    CHECK(cli::parse_duration("2 min") == doctest::Approx(120));
    CHECK(cli::parse_duration("500 ms") == doctest::Approx(0.5));
    CHECK(!cli::parse_duration("5 GB"));
}
