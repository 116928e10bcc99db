// Unit tests of the diagnostics sink: source lines, sorting, deduplication, cap, caret rendering.
#include <string>

#include <doctest/doctest.h>

#include "frontend/diagnostics.hpp"

using sgdnet::frontend::Diagnostic;
using sgdnet::frontend::Diagnostics;
using sgdnet::frontend::SourceLoc;
using sgdnet::frontend::SourceRange;

namespace {
SourceRange at(uint32_t file, uint32_t line, uint32_t col) {
    return SourceRange{file, SourceLoc{line, col}, SourceLoc{line, col + 1}};
}
}  // namespace

TEST_CASE("diagnostics: line_text splits on \\n, strips \\r, is empty out of range") {
    Diagnostics d;
    const auto f = d.add_source("a.sgdnet", "first\r\nsecond\n\nlast");
    CHECK(d.file_name(f) == "a.sgdnet");
    CHECK(d.line_text(f, 1) == "first");
    CHECK(d.line_text(f, 2) == "second");
    CHECK(d.line_text(f, 3) == "");
    CHECK(d.line_text(f, 4) == "last");
    CHECK(d.line_text(f, 5) == "");
    CHECK(d.line_text(f, 0) == "");
    CHECK(d.line_text(7, 1) == "");
    CHECK(d.file_names().size() == 1);
}

TEST_CASE("diagnostics: render prints FILE:LINE:COL, the line and a caret under the column") {
    Diagnostics d;
    const auto f = d.add_source("m.sgdnet", "param x = 1\nparam y = 2;\n");
    d.error(at(f, 1, 12), "expected ';' after parameter");
    CHECK(d.has_errors());
    CHECK(d.error_count() == 1);
    CHECK(d.render() ==
          "m.sgdnet:1:12: error: expected ';' after parameter\n"
          "  param x = 1\n"
          "             ^\n");
}

TEST_CASE("diagnostics: columns are code points, so multi-byte UTF-8 before the column counts once") {
    Diagnostics d;
    // "é" is 2 bytes, "€" 3 bytes: '$' is byte 14 but code point 11.
    const auto f = d.add_source("u.sgdnet", "let é€ = 1 $;\n");
    d.error(at(f, 1, 12), "unexpected character '$'");
    CHECK(d.render() ==
          "u.sgdnet:1:12: error: unexpected character '$'\n"
          "  let é€ = 1 $;\n"
          "             ^\n");
}

TEST_CASE("diagnostics: tabs before the column are kept in the caret line") {
    Diagnostics d;
    const auto f = d.add_source("t.sgdnet", "\tx\t= @;\n");
    d.error(at(f, 1, 6), "unexpected character '@'");
    CHECK(d.render() ==
          "t.sgdnet:1:6: error: unexpected character '@'\n"
          "  \tx\t= @;\n"
          "  \t \t  ^\n");
}

TEST_CASE("diagnostics: control characters and invalid bytes are shown as '?' (one cell each)") {
    Diagnostics d;
    const auto f = d.add_source("b.sgdnet", std::string("a\x01\xff" "b\0c", 6));
    d.error(at(f, 1, 5), "x");
    CHECK(d.render() ==
          "b.sgdnet:1:5: error: x\n"
          "  a??b?c\n"
          "      ^\n");
}

TEST_CASE("diagnostics: sorted by position, duplicates removed, notes follow their error") {
    Diagnostics d;
    const auto f = d.add_source("s.sgdnet", "aaa\nbbb\nccc\n");
    d.error(at(f, 3, 1), "third");
    d.error(at(f, 1, 2), "first");
    d.note(at(f, 2, 1), "see here");
    d.error(at(f, 3, 1), "third");  // duplicate
    d.warning(at(f, 2, 3), "second");
    const auto sorted = d.sorted();
    REQUIRE(sorted.size() == 3);
    CHECK(sorted[0].message == "first");
    CHECK(sorted[1].message == "second");
    CHECK(sorted[1].severity == Diagnostic::Severity::Warning);
    CHECK(sorted[2].message == "third");
    CHECK(d.error_count() == 3);  // counted as added
    CHECK(d.render() ==
          "s.sgdnet:1:2: error: first\n"
          "  aaa\n"
          "   ^\n"
          "s.sgdnet:2:1: note: see here\n"
          "  bbb\n"
          "  ^\n"
          "s.sgdnet:2:3: warning: second\n"
          "  bbb\n"
          "    ^\n"
          "s.sgdnet:3:1: error: third\n"
          "  ccc\n"
          "  ^\n");
}

TEST_CASE("diagnostics: one about a whole file prints FILE:1:1, one about no file FILE: only") {
    Diagnostics d;
    const auto f = d.add_source("e.sgdnet", "");
    d.error(SourceRange{f, {}, {}}, "file is empty");
    CHECK(d.render() == "e.sgdnet:1:1: error: file is empty\n");
    // Pseudo-files (a `--set` value, unnamed input) have no start to point at.
    Diagnostics s;
    const auto g = s.add_source("--set N", "-3");
    s.error(SourceRange{g, {}, {}}, "bad value");
    CHECK(s.render() == "--set N: error: bad value\n");
    // The summary of a capped list is about the list, not a place.
    Diagnostics capped(1);
    const auto h = capped.add_source("c.sgdnet", "a\nb\n");
    capped.error(SourceRange{h, {1, 1}, {1, 2}}, "first");
    capped.error(SourceRange{h, {2, 1}, {2, 2}}, "second");
    CHECK(capped.render().find("c.sgdnet: error: too many errors, stopping\n") != std::string::npos);
}

TEST_CASE("diagnostics: the cap keeps max_errors errors, then one 'too many errors' line") {
    Diagnostics d(3);
    const auto f = d.add_source("c.sgdnet", "x\nx\nx\nx\nx\n");
    for (uint32_t line = 5; line >= 1; --line) d.error(at(f, line, 1), "e" + std::to_string(line));
    const auto sorted = d.sorted();
    REQUIRE(sorted.size() == 4);
    CHECK(sorted[0].message == "e1");
    CHECK(sorted[2].message == "e3");
    CHECK(d.render().ends_with("c.sgdnet:3:1: error: e3\n  x\n  ^\nc.sgdnet: error: too many errors, stopping\n"));
}

TEST_CASE("diagnostics: a very long line is shown as a window around the column") {
    Diagnostics d;
    std::string line(1000, 'a');
    line[600] = '$';
    const auto f = d.add_source("l.sgdnet", line);
    d.error(at(f, 1, 601), "unexpected character '$'");
    const std::string out = d.render();
    // Window of 200 code points starting 100 before the column: "..." + 200 chars + "...".
    const std::string expected_text = "  ..." + line.substr(500, 200) + "...\n";
    const std::string expected_caret = "  " + std::string(3 + 100, ' ') + "^\n";
    CHECK(out == "l.sgdnet:1:601: error: unexpected character '$'\n" + expected_text +
                     expected_caret);
}
