// Unit tests of sweep shards: `--shard I/K` parsing and point selection, part tag lines, and the
// checks `sgdnet merge` makes on a set of parts (another sweep, a part twice, a part missing).
#include "sweep/sweep_shard.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace sgdnet::sweep;

namespace {

PartTag tag_of(std::size_t index, std::size_t count) {
    PartTag tag;
    tag.shard = {index, count};
    tag.points = 40;
    tag.seed = 3;
    tag.config = fingerprint("model and options");
    tag.ranges = {"w.N=2..64:x2", "bw=1Gbps,10 Gbps"};
    return tag;
}

}  // namespace

TEST_CASE("parse_shard: I/K with 1 <= I <= K") {
    std::string error;
    CHECK(parse_shard("2/3", error) == Shard{2, 3});
    CHECK(parse_shard("1/1", error) == Shard{1, 1});
    for (const char* bad : {"0/3", "4/3", "1/0", "3", "/3", "1/", "a/b", "1/3x", "-1/3", ""}) {
        error.clear();
        INFO(bad);
        CHECK_FALSE(parse_shard(bad, error));
        CHECK(error.find("--shard") != std::string::npos);
    }
}

TEST_CASE("shards: every point in exactly one part, sizes add up") {
    for (std::size_t points : {0, 1, 2, 7, 40, 41}) {
        for (std::size_t count : {1, 2, 3, 8, 50}) {
            std::size_t total = 0;
            for (std::size_t i = 1; i <= count; ++i) {
                std::size_t held = 0;
                for (std::size_t k = 0; k < points; ++k) held += in_shard(k, {i, count});
                CHECK(held == shard_size(points, {i, count}));
                total += held;
            }
            CHECK(total == points);
        }
    }
    CHECK(in_shard(0, {1, 3}));
    CHECK(in_shard(4, {2, 3}));
    CHECK_FALSE(in_shard(4, {1, 3}));
}

TEST_CASE("part tag: written and read back, other lines are not tags") {
    PartTag tag = tag_of(2, 3);
    tag.zip = true;
    const std::string line = format_part_tag(tag);
    CHECK(line.rfind("# sgdnet sweep part 2/3\t", 0) == 0);
    CHECK(line.back() == '\n');
    const auto back = parse_part_tag(line.substr(0, line.size() - 1));
    REQUIRE(back);
    CHECK(*back == tag);
    CHECK_FALSE(parse_part_tag("w.N,thr,thr_ci_low,thr_ci_high"));
    CHECK_FALSE(parse_part_tag("# sgdnet sweep part 4/3\tpoints=40"));
    CHECK_FALSE(parse_part_tag("# sgdnet sweep part 1/3\tpoints=forty"));
    CHECK_FALSE(parse_part_tag("# sgdnet sweep part 1/3\tcolour=blue"));
}

TEST_CASE("fingerprint: 16 hex digits, differs with the text") {
    CHECK(fingerprint("").size() == 16);
    CHECK(fingerprint("") == "cbf29ce484222325");
    CHECK(fingerprint("a") != fingerprint("b"));
}

TEST_CASE("check_parts: the parts of one sweep, each once") {
    const std::vector<std::string> names = {"p1.csv", "p2.csv", "p3.csv"};
    CHECK_FALSE(check_parts({tag_of(3, 3), tag_of(1, 3), tag_of(2, 3)}, names));

    const auto missing = check_parts({tag_of(1, 3), tag_of(2, 3)}, {"p1.csv", "p2.csv"});
    REQUIRE(missing);
    CHECK(missing->find("part 3/3 is missing") != std::string::npos);

    const auto twice = check_parts({tag_of(1, 3), tag_of(2, 3), tag_of(2, 3)}, names);
    REQUIRE(twice);
    CHECK(twice->find("part 2/3 is given twice: p2.csv and p3.csv") != std::string::npos);

    auto other_seed = tag_of(2, 3);
    other_seed.seed = 4;
    const auto seed = check_parts({tag_of(1, 3), other_seed, tag_of(3, 3)}, names);
    REQUIRE(seed);
    CHECK(seed->find("p2.csv comes from another sweep than p1.csv: seed 4, not 3") !=
          std::string::npos);

    auto other_grid = tag_of(3, 3);
    other_grid.ranges[0] = "w.N=2..32:x2";
    const auto grid = check_parts({tag_of(1, 3), tag_of(2, 3), other_grid}, names);
    REQUIRE(grid);
    CHECK(grid->find("p3.csv comes from another sweep than p1.csv: grid") != std::string::npos);

    auto other_config = tag_of(2, 3);
    other_config.config = fingerprint("another model");
    CHECK(check_parts({tag_of(1, 3), other_config, tag_of(3, 3)}, names));
    CHECK(check_parts({tag_of(1, 3), tag_of(2, 2)}, {"p1.csv", "p2.csv"}));
    CHECK(check_parts({}, {}));
}
