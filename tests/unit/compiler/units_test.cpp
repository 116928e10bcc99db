// Unit tests of dimensions, the unit table and quantity literals (docs/language.md §3).
#include <doctest/doctest.h>

#include "compiler/units.hpp"

using namespace sgdnet::compiler;

TEST_CASE("units convert to canonical s, B, B/s") {
    // 10 Gbps = 10e9 bit/s = 10e9/8 B/s = 1.25e9 B/s.
    CHECK(quantity_of(10, "Gbps")->value == doctest::Approx(1.25e9));
    CHECK(quantity_of(10, "Gbps")->dim == Dim::rate());
    CHECK(quantity_of(1, "KiB")->value == 1024);
    CHECK(quantity_of(1, "MiB")->value == 1048576);
    CHECK(quantity_of(2, "GiB")->value == 2.0 * 1024 * 1024 * 1024);
    CHECK(quantity_of(44.7, "MB")->value == doctest::Approx(44.7e6));
    CHECK(quantity_of(8, "b")->value == 1);          // 8 bits = 1 byte
    CHECK(quantity_of(1, "Mb")->value == 125000);    // 1e6 bits = 125000 B
    CHECK(quantity_of(100, "Mbps")->value == doctest::Approx(12.5e6));
    CHECK(quantity_of(3, "KiB/s")->value == 3072);
    CHECK(quantity_of(20, "us")->value == doctest::Approx(20e-6));
    CHECK(quantity_of(1.5, "ms")->value == doctest::Approx(1.5e-3));
    CHECK(quantity_of(2, "min")->value == 120);
    CHECK(quantity_of(1, "h")->value == 3600);
    CHECK(quantity_of(2, "/s")->dim == Dim::frequency());
    CHECK(quantity_of(2, "Hz")->value == 2);
    CHECK(quantity_of(5, "")->dim == Dim::none());
    CHECK(find_unit("KB / s") == find_unit("KB/s"));
    CHECK_FALSE(quantity_of(1, "parsec"));
    CHECK_FALSE(quantity_of(1, "kb"));  // units are case-sensitive: Kb is kilobit
}

TEST_CASE("dimension algebra") {
    CHECK(Dim::bytes() / Dim::seconds() == Dim::rate());
    CHECK(Dim::bytes() / Dim::rate() == Dim::seconds());
    CHECK(Dim::none() / Dim::seconds() == Dim::frequency());
    CHECK(Dim::seconds() * Dim::frequency() == Dim::none());
    CHECK(Dim::rate() * Dim::seconds() == Dim::bytes());
    CHECK(Dim::bytes().pow(2) == Dim{0, 2});
    CHECK(to_string(Dim{0, 2}) == "size^2");
    CHECK(to_string(Dim{1, 1}) == "time*size");
    CHECK(to_string(Dim{-2, 0}) == "1/time^2");
    CHECK(to_string(Dim::rate()) == "rate");
    CHECK(to_string(Dim::frequency()) == "frequency");
    CHECK(canonical_unit(Dim::rate()) == "B/s");
    CHECK(with_article(Dim::seconds()) == "a time");
}

TEST_CASE("44.7 MB over 10 Gbps is 35.76 ms") {
    // 44.7e6 B / 1.25e9 B/s = 0.03576 s.
    auto s = *quantity_of(44.7, "MB");
    auto r = *quantity_of(10, "Gbps");
    CHECK(s.dim / r.dim == Dim::seconds());
    CHECK(s.value / r.value == doctest::Approx(0.03576).epsilon(1e-12));
}

TEST_CASE("numbers print in their shortest exact form") {
    CHECK(format_number(0.1) == "0.1");
    CHECK(format_number(1.25e9) == "1250000000");  // integers without exponent
    CHECK(format_number(2.5e-7) == "2.5e-07");
    CHECK(format_number(5) == "5");
    CHECK(format_quantity({0.004, Dim::seconds()}) == "0.004 s");
}

TEST_CASE("did you mean picks the closest plausible name") {
    CHECK(edit_distance("kitten", "sitting") == 3);
    CHECK(did_you_mean("bandwith", {"bandwidth", "latency"}) == "; did you mean `bandwidth`?");
    CHECK(did_you_mean("zzz", {"bandwidth", "latency"}).empty());
    CHECK(closest_name("N", {"M", "bw"}) == std::optional<std::string>("M"));
}
