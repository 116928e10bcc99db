// parse() and parse_expression(): UTF-8 check, ANTLR lexing, lexical and nesting checks, parsing
// with readable error recovery, then the parse tree → AST builders.
#include "frontend/parse.hpp"

#include <exception>
#include <memory>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "frontend/parse_build.hpp"
#include "frontend/parse_errors.hpp"
#include "frontend/parse_utf8.hpp"

#include "SgdNetLexer.h"  // ANTLR last: it undefines EOF.

namespace sgdnet::frontend {

namespace {

using G = sgdnet_grammar::SgdNetParser;
using L = sgdnet_grammar::SgdNetLexer;

/// Counts lexical diagnostics of one file against detail::kMaxLexicalErrors.
struct LexicalReporter {
    Diagnostics& diags;
    uint32_t file;
    std::set<uint32_t> lines;  // lines with a lexical error
    std::size_t count = 0;

    void error(SourceLoc at, std::string message) {
        lines.insert(at.line);
        if (count > detail::kMaxLexicalErrors) return;
        ++count;
        if (count > detail::kMaxLexicalErrors) {
            message = "too many invalid characters; the rest of this file is not checked for them";
        }
        diags.error(SourceRange{file, at, at}, std::move(message));
    }
};

/// The text handed to ANTLR: valid UTF-8, every invalid byte replaced by one U+FFFD (so columns,
/// counted in code points, stay those of the original), a leading BOM replaced by a space.
/// `replaced` receives the code-point index of each replacement.
std::string sanitize(const std::string& text, LexicalReporter& report,
                     std::unordered_set<std::size_t>& replaced) {
    std::string out;
    out.reserve(text.size());
    SourceLoc loc{1, 1};
    std::size_t index = 0;
    bool in_bad_run = false;
    for (std::size_t i = 0; i < text.size(); ++index) {
        char32_t cp = 0;
        bool valid = true;
        const std::size_t n = utf8::next(text, i, cp, valid);
        if (!valid) {
            if (!in_bad_run) {
                static const char* hex = "0123456789abcdef";
                const auto b = static_cast<unsigned char>(text[i]);
                report.error(loc, std::string("invalid UTF-8 byte 0x") + hex[b >> 4] + hex[b & 15]);
            }
            replaced.insert(index);
        }
        in_bad_run = !valid;
        if (index == 0 && cp == 0xFEFF) cp = ' ';
        utf8::append(out, cp);
        if (cp == '\n') {
            ++loc.line;
            loc.col = 1;
        } else {
            ++loc.col;
        }
        i += n;
    }
    return out;
}

/// Owns the ANTLR objects of one parse (they must outlive the parse tree).
struct Frontend {
    Frontend(Diagnostics& d, uint32_t f)
        : diags(d), file(f), lexical{d, f, {}, 0}, strategy(std::make_shared<detail::SyntaxErrorStrategy>(d, f)),
          listener(*strategy) {}

    Diagnostics& diags;
    uint32_t file;
    LexicalReporter lexical;
    std::shared_ptr<detail::SyntaxErrorStrategy> strategy;
    detail::SyntaxErrorListener listener;
    std::unique_ptr<antlr4::ANTLRInputStream> input;
    std::unique_ptr<L> lexer;
    std::unique_ptr<antlr4::CommonTokenStream> tokens;
    std::unique_ptr<G> parser;

    /// Lexes the file and reports lexical errors; false when the nesting is too deep to parse.
    bool prepare() {
        std::unordered_set<std::size_t> replaced;
        const std::string text = sanitize(diags.file_text(file), lexical, replaced);
        input = std::make_unique<antlr4::ANTLRInputStream>(text);
        lexer = std::make_unique<L>(input.get());
        lexer->removeErrorListeners();
        lexer->addErrorListener(&listener);
        tokens = std::make_unique<antlr4::CommonTokenStream>(lexer.get());
        tokens->fill();
        report_lexical(replaced);
        if (!check_nesting()) return false;
        parser = std::make_unique<G>(tokens.get());
        parser->removeErrorListeners();
        parser->addErrorListener(&listener);
        parser->setErrorHandler(strategy);
        for (uint32_t line : lexical.lines) strategy->suppress_line(line);
        return true;
    }

    void report_lexical(const std::unordered_set<std::size_t>& replaced) {
        const std::vector<antlr4::Token*> all = tokens->getTokens();
        for (std::size_t k = 0; k < all.size(); ++k) {
            antlr4::Token* t = all[k];
            switch (t->getType()) {
                case L::UNTERMINATED_COMMENT:
                    lexical.error(detail::begin_of(t), "unterminated comment");
                    break;
                case L::UNTERMINATED_STRING:
                    lexical.error(detail::begin_of(t), "unterminated string");
                    break;
                case L::ERROR_CHAR: {
                    // One diagnostic per run of adjacent bad characters.
                    std::size_t end = k;
                    while (end + 1 < all.size() && all[end + 1]->getType() == L::ERROR_CHAR &&
                           all[end + 1]->getStartIndex() == all[end]->getStopIndex() + 1) {
                        ++end;
                    }
                    std::string shown;
                    std::size_t shown_count = 0;
                    antlr4::Token* first_bad = nullptr;
                    for (std::size_t j = k; j <= end; ++j) {
                        if (replaced.count(all[j]->getStartIndex()) != 0) continue;
                        if (first_bad == nullptr) first_bad = all[j];
                        if (++shown_count <= 8) {
                            shown += detail::describe_char(decode_first(all[j]->getText()));
                        }
                    }
                    if (first_bad != nullptr) {
                        if (shown_count == 1) {
                            lexical.error(detail::begin_of(first_bad),
                                          "unexpected character '" + shown + "'");
                        } else {
                            lexical.error(detail::begin_of(first_bad),
                                          "unexpected characters '" + shown +
                                              (shown_count > 8 ? "...' (" : "' (") +
                                              std::to_string(shown_count) + " characters)");
                        }
                    }
                    k = end;
                    break;
                }
                default:
                    break;
            }
        }
    }

    static char32_t decode_first(const std::string& s) {
        char32_t cp = 0;
        bool valid = true;
        utf8::next(s, 0, cp, valid);
        return cp;
    }

    /// ANTLR and the AST passes recurse once per level of an expression tree: each bracket and
    /// each operator (a chain `1+1+…` is a left-deep tree). Reject input whose estimated depth
    /// exceeds detail::kMaxNesting before anything recurses (a comma starts a new subtree, `;`
    /// and braces a new statement).
    bool check_nesting() {
        std::vector<std::size_t> levels{0};  // operators since the last bracket or comma
        std::size_t depth = 0;               // open brackets + all counts in `levels`
        for (antlr4::Token* t : tokens->getTokens()) {
            if (t->getChannel() != antlr4::Token::DEFAULT_CHANNEL) continue;
            switch (t->getType()) {
                case L::LPAREN:
                case L::LBRACK:
                    levels.push_back(0);
                    ++depth;
                    break;
                case L::RPAREN:
                case L::RBRACK:
                    if (levels.size() > 1) {
                        depth -= levels.back() + 1;
                        levels.pop_back();
                    }
                    break;
                case L::COMMA:
                    depth -= levels.back();
                    levels.back() = 0;
                    break;
                case L::SEMI:
                case L::LBRACE:
                case L::RBRACE:
                    levels.assign(1, 0);
                    depth = 0;
                    break;
                case L::CARET: case L::QUESTION: case L::MINUS: case L::NOT: case L::PLUS:
                case L::STAR: case L::SLASH: case L::PERCENT: case L::EQ: case L::NE:
                case L::LT: case L::LE: case L::GT: case L::GE: case L::ANDAND: case L::OROR:
                    ++levels.back();
                    ++depth;
                    break;
                default:
                    break;
            }
            if (depth > detail::kMaxNesting) {
                diags.error(SourceRange{file, detail::begin_of(t), detail::end_of(t)},
                            "expression too deeply nested or too long (more than " +
                                std::to_string(detail::kMaxNesting) +
                                " levels of brackets and operators)");
                return false;
            }
        }
        return true;
    }

    /// Runs one parser entry point; false when parsing was abandoned (error cap, internal error).
    template <typename Rule>
    bool run(Rule rule, typename std::invoke_result_t<Rule, G&>& out) {
        try {
            out = rule(*parser);
            return true;
        } catch (const antlr4::ParseCancellationException&) {
            return false;  // the cap was reached; the errors are reported
        } catch (const std::exception& e) {
            diags.error(SourceRange{file, {}, {}}, std::string("internal parser error: ") + e.what());
            return false;
        }
    }
};

}  // namespace

Ast parse(uint32_t file, Diagnostics& diags) {
    Ast ast;
    ast.file = file;
    Frontend fe(diags, file);
    if (!fe.prepare()) return ast;
    G::FileContext* tree = nullptr;
    if (!fe.run([](G& p) { return p.file(); }, tree) || tree == nullptr) return ast;
    build::Ctx cx{diags, file};
    for (G::DeclContext* d : tree->decl()) {
        if (auto decl = build::build_decl(cx, d)) ast.decls.push_back(std::move(*decl));
    }
    return ast;
}

ExprPtr parse_expression(uint32_t file, Diagnostics& diags) {
    const std::size_t errors_before = diags.error_count();
    Frontend fe(diags, file);
    if (!fe.prepare()) return nullptr;
    G::ExprOnlyContext* tree = nullptr;
    if (!fe.run([](G& p) { return p.exprOnly(); }, tree) || tree == nullptr) return nullptr;
    build::Ctx cx{diags, file};
    ExprPtr e = build::build_expr(cx, tree->expr());
    if (diags.error_count() != errors_before) return nullptr;
    if (!e) {
        diags.error(SourceRange{file, {1, 1}, {1, 1}}, "expected an expression");
        return nullptr;
    }
    return e;
}

}  // namespace sgdnet::frontend
