// Syntax-error reporting for the ANTLR parser: readable messages recorded into Diagnostics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "frontend/diagnostics.hpp"

#include "SgdNetParser.h"  // ANTLR last: it undefines EOF.

namespace sgdnet::frontend::detail {

/// Syntax errors per file after which parsing stops (ParseCancellationException).
inline constexpr std::size_t kMaxSyntaxErrors = 200;
/// Lexical diagnostics (bad characters, invalid UTF-8, unterminated tokens) per file.
inline constexpr std::size_t kMaxLexicalErrors = 20;
/// Deepest nesting of parentheses, brackets and right-recursive operators accepted.
inline constexpr std::size_t kMaxNesting = 256;

/// 1-based position of the first character of `t` (ANTLR columns are 0-based code points).
SourceLoc begin_of(const antlr4::Token* t);
/// Position just after the last character of `t`.
SourceLoc end_of(const antlr4::Token* t);
/// `t` as shown in a message: `'foo'`, `end of file`; control characters escaped.
std::string describe_token(const antlr4::Token* t);
/// One character as shown in a message: `é`, `\x01`.
std::string describe_char(char32_t c);

/// Replaces ANTLR's messages (`mismatched input … expecting {…}`) with targeted ones and records
/// them in `diags`; after kMaxSyntaxErrors errors it throws ParseCancellationException.
class SyntaxErrorStrategy : public antlr4::DefaultErrorStrategy {
public:
    SyntaxErrorStrategy(Diagnostics& diags, uint32_t file) : diags_(diags), file_(file) {}
    std::size_t count() const { return count_; }
    /// Records one syntax error (also used by the listener below).
    void emit(SourceLoc at, std::string message);
    /// Drops later syntax errors on `line` (it has a lexical error they would only echo).
    void suppress_line(uint32_t line) { suppressed_.insert(line); }

protected:
    void reportNoViableAlternative(antlr4::Parser* parser,
                                   const antlr4::NoViableAltException& e) override;
    void reportInputMismatch(antlr4::Parser* parser,
                             const antlr4::InputMismatchException& e) override;
    void reportUnwantedToken(antlr4::Parser* parser) override;
    void reportMissingToken(antlr4::Parser* parser) override;
    /// Never deletes `;`, `{` or `}`: statement structure is a better resync point.
    antlr4::Token* singleTokenDeletion(antlr4::Parser* parser) override;
    /// Like ANTLR's resync, but skips a `{ … }` block whole, so one bad statement does not make
    /// its closing brace end the enclosing block.
    void consumeUntil(antlr4::Parser* parser, const antlr4::misc::IntervalSet& set) override;

private:
    /// True (and nothing is reported) when the error only echoes an unterminated string.
    bool echoes_lexical_error(antlr4::Parser* parser);
    /// Reports a block left open at the end of the file; true when `t` is that case.
    bool report_unclosed_block(antlr4::Parser* parser, const antlr4::Token* t,
                               const antlr4::misc::IntervalSet& expected);

    Diagnostics& diags_;
    uint32_t file_;
    std::size_t count_ = 0;
    std::set<uint32_t> suppressed_;
};

/// Catches whatever does not go through the strategy (lexer, failed predicates).
class SyntaxErrorListener : public antlr4::BaseErrorListener {
public:
    explicit SyntaxErrorListener(SyntaxErrorStrategy& sink) : sink_(sink) {}
    void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, size_t line,
                     size_t col, const std::string& msg, std::exception_ptr e) override;

private:
    SyntaxErrorStrategy& sink_;
};

}  // namespace sgdnet::frontend::detail
