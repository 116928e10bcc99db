// Compares `sgdnet run --format json` output with the closed form in an example's header
// (`// expect NAME = VALUE` lines). Usage: example_check FILE.sgdnet RESULT.json sim|exact
//
// sim:   |mean - expected| <= 2 * half-width (the 95% CI widened to twice its half-width: a
//        correct estimator misses it with probability ~1e-4 per measure), and the CI is not
//        uselessly wide: half-width <= 10% of |expected| (first measure: it stopped at 1%).
// exact: |mean - expected| <= 1e-6 * max(1, |expected|) and ci_low == ci_high == mean.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::cerr << "usage: example_check FILE.sgdnet RESULT.json sim|exact\n";
        return 2;
    }
    const std::string mode = argv[3];
    std::ifstream src(argv[1]);
    std::ifstream res(argv[2]);
    if (!src || !res) {
        std::cerr << "cannot read inputs\n";
        return 2;
    }
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(res);
    } catch (const std::exception& e) {
        std::cerr << "invalid JSON: " << e.what() << "\n";
        return 1;
    }
    const std::regex expect_re(R"(^// expect ([A-Za-z_][A-Za-z0-9_.\[\]]*) = ([-+0-9.eE]+)\s*$)");
    int checked = 0, failed = 0;
    std::string line;
    while (std::getline(src, line)) {
        std::smatch m;
        if (!std::regex_match(line, m, expect_re)) continue;
        const std::string name = m[1];
        const double expected = std::stod(m[2]);
        ++checked;
        if (!j["measures"].contains(name)) {
            std::cerr << name << ": missing from the result\n";
            ++failed;
            continue;
        }
        const auto& e = j["measures"][name];
        const double mean = e["mean"], lo = e["ci_low"], hi = e["ci_high"];
        bool ok;
        if (mode == "exact") {
            ok = std::abs(mean - expected) <= 1e-6 * std::max(1.0, std::abs(expected)) &&
                 lo == mean && hi == mean;
        } else {
            const double hw = (hi - lo) / 2;
            ok = lo <= mean && mean <= hi && std::abs(mean - expected) <= 2 * hw &&
                 hw <= 0.1 * std::abs(expected);
        }
        std::printf("%-8s %-10s expected %.10g got %.10g [%.10g, %.10g]\n",
                    ok ? "ok" : "MISMATCH", name.c_str(), expected, mean, lo, hi);
        if (!ok) ++failed;
    }
    if (checked == 0) {
        std::cerr << "no `// expect NAME = VALUE` line in " << argv[1] << "\n";
        return 1;
    }
    return failed == 0 ? 0 : 1;
}
