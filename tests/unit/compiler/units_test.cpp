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
    CHECK(format_quantity({0.004, Dim::seconds()}) == "4 ms");
}

TEST_CASE("quantities for people: readable units, at most 6 significant digits") {
    CHECK(format_readable(-3125000000, Dim::rate()) == "-25 Gbps");
    CHECK(format_readable(1.25e9, Dim::rate()) == "10 Gbps");
    CHECK(format_readable(0, Dim::rate()) == "0 bps");
    CHECK(format_readable(3.2e6, Dim::bytes()) == "3.2 MB");
    CHECK(format_readable(102.228e6, Dim::bytes()) == "102.228 MB");
    CHECK(format_readable(512, Dim::bytes()) == "512 B");
    CHECK(format_readable(1.9999999999999998e-05, Dim::seconds()) == "20 us");
    CHECK(format_readable(0.1234567, Dim::seconds()) == "123.457 ms");
    CHECK(format_readable(0.9999999, Dim::seconds()) == "1 s");  // not "1000 ms"
    CHECK(format_readable(7200, Dim::seconds()) == "7200 s");
    CHECK(format_readable(0, Dim::seconds()) == "0 s");
    CHECK(format_readable(2.5e-10, Dim::seconds()) == "0.25 ns");
    CHECK(format_readable(9.523809523809524, Dim::frequency()) == "9.52381 /s");
    CHECK(format_readable(0.5, Dim::none()) == "0.5");
    CHECK(format_readable(6e-10, Dim::seconds() / Dim::bytes()) == "6e-10 s/B");
    const ReadableUnit u = readable_unit(1.25e9, Dim::rate());
    CHECK(u.name == "Gbps");
    CHECK(u.factor == 1.25e8);
    // Every readable unit reads back in the language.
    for (const char* name : {"ns", "us", "ms", "s", "B", "KB", "MB", "GB", "TB", "bps", "Kbps",
                             "Mbps", "Gbps", "Tbps", "/s"}) {
        CHECK(find_unit(name) != nullptr);
    }
}

TEST_CASE("did you mean picks the closest plausible name") {
    CHECK(edit_distance("kitten", "sitting") == 3);
    CHECK(did_you_mean("bandwith", {"bandwidth", "latency"}) == "; did you mean `bandwidth`?");
    CHECK(did_you_mean("zzz", {"bandwidth", "latency"}).empty());
    CHECK(closest_name("N", {"M", "bw"}) == std::optional<std::string>("M"));
}
