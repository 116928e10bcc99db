// Syntax-error listener and error strategy: ANTLR's recovery, readable messages into Diagnostics.
#include "frontend/parse_errors.hpp"

#include <string>
#include <vector>

#include "frontend/parse_utf8.hpp"

namespace sgdnet::frontend::detail {

using antlr4::Token;
using P = sgdnet_grammar::SgdNetParser;

namespace {

bool has(const antlr4::misc::IntervalSet& set, size_t type) {
    return set.contains(type);
}

bool is_name_keyword(size_t type) {
    switch (type) {
        case P::MODEL: case P::PARAM: case P::LET: case P::LAYERS: case P::HOST:
        case P::WORKER: case P::SERVER: case P::TRAINING: case P::NET: case P::PLACE:
        case P::TRANSITION: case P::IMMEDIATE: case P::MEASURE: case P::IN: case P::OUT:
        case P::INHIBIT: case P::BOUND:
            return true;
        default:
            return false;
    }
}

bool can_start_expression(size_t type) {
    switch (type) {
        case P::NUMBER: case P::QUANTITY: case P::BAD_QUANTITY: case P::STRING:
        case P::UNTERMINATED_STRING: case P::TRUE: case P::FALSE: case P::ID: case P::LPAREN:
        case P::LBRACK: case P::MINUS: case P::NOT:
            return true;
        default:
            return is_name_keyword(type);
    }
}

bool is_expression_rule(size_t rule) {
    return rule == P::RuleExpr || rule == P::RulePrimary || rule == P::RuleArg ||
           rule == P::RuleNameRef || rule == P::RuleExprOnly;
}

/// What the rule being parsed is called in messages ("expected ';' after property").
std::string noun(antlr4::ParserRuleContext* ctx) {
    if (ctx == nullptr) return "input";
    switch (ctx->getRuleIndex()) {
        case P::RuleModelDecl: return "model declaration";
        case P::RuleParamDecl:
            return ctx->getStart() && ctx->getStart()->getType() == P::LET ? "let declaration"
                                                                            : "parameter";
        case P::RuleMeasureDecl: return "measure";
        case P::RuleLayersDecl: return "layer table";
        case P::RuleLayerRow: case P::RuleLayerName: return "layer row";
        case P::RuleHostDecl: return "host block";
        case P::RuleNodeDecl:
            return ctx->getStart() && ctx->getStart()->getType() == P::SERVER ? "server block"
                                                                               : "worker block";
        case P::RuleTrainingDecl: return "training block";
        case P::RulePropertyStmt: case P::RuleAssignment: return "property";
        case P::RuleNetDecl: case P::RuleNetItem: return "net";
        case P::RulePlaceDecl: return "place";
        case P::RuleArraySpec: return "array size";
        case P::RuleTransitionDecl: return "transition";
        case P::RuleAttribute: return "transition attribute";
        case P::RuleArcBlock: return "arc list";
        case P::RuleArc: case P::RuleArcPlace: return "arc";
        case P::RuleName: return "name";
        case P::RuleFile: case P::RuleDecl: return "file";
        default: return "expression";
    }
}

std::string quote_literal(const antlr4::dfa::Vocabulary& vocab, size_t type) {
    if (type == Token::EOF) return "end of file";
    if (type == P::ID) return "a name";
    if (type == P::NUMBER || type == P::QUANTITY) return "a number";
    if (type == P::STRING) return "a string";
    return vocab.getDisplayName(type);  // literal tokens display as 'x'
}

/// The expected-token set in words: "an expression", "a declaration (…)", "';' or '}'".
std::string describe_expected(antlr4::Parser* parser, const antlr4::misc::IntervalSet& set) {
    if (set.isEmpty()) return "";
    if (has(set, P::NUMBER) && has(set, P::LPAREN)) return "an expression";
    if (has(set, P::MODEL) && has(set, P::WORKER) && has(set, P::NET) &&
        !has(set, P::ID)) {
        return "a declaration (model, param, let, layers, host, worker, server, training, net, "
               "measure)";
    }
    std::vector<std::string> items;
    bool names = has(set, P::ID);
    if (names) items.push_back("a name");
    for (size_t type : set.toList()) {
        if (type == P::ID || (names && is_name_keyword(type))) continue;
        if (type == P::QUANTITY || type == P::BAD_QUANTITY) continue;
        items.push_back(quote_literal(parser->getVocabulary(), type));
    }
    if (items.empty() || items.size() > 6) return "";
    std::string out = items[0];
    for (std::size_t k = 1; k < items.size(); ++k) {
        out += k + 1 == items.size() ? " or " : ", ";
        out += items[k];
    }
    return out;
}

/// The token before the current one on the parser's channel (null at the start).
const Token* previous_token(antlr4::Parser* parser) {
    return parser->getTokenStream()->LT(-1);
}

/// Where to point for an error at `t`: at `t`, or just after the last token when `t` is the end
/// of the file (so the caret sits on a real line).
SourceLoc where(antlr4::Parser* parser, const Token* t) {
    const Token* prev = previous_token(parser);
    if (t != nullptr && t->getType() == Token::EOF && prev != nullptr) return end_of(prev);
    return begin_of(t);
}

}  // namespace

SourceLoc begin_of(const Token* t) {
    if (t == nullptr) return {1, 1};
    return {static_cast<uint32_t>(t->getLine()),
            static_cast<uint32_t>(t->getCharPositionInLine() + 1)};
}

SourceLoc end_of(const Token* t) {
    SourceLoc loc = begin_of(t);
    if (t != nullptr && t->getType() != Token::EOF && t->getStopIndex() >= t->getStartIndex() &&
        t->getStartIndex() != static_cast<size_t>(-1)) {
        loc.col += static_cast<uint32_t>(t->getStopIndex() - t->getStartIndex() + 1);
    }
    return loc;
}

std::string describe_char(char32_t c) {
    static const char* hex = "0123456789abcdef";
    std::string out;
    if (c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0)) {
        out = "\\x";
        out += hex[(c >> 4) & 0xF];
        out += hex[c & 0xF];
    } else if (c == '\'' || c == '\\') {
        out = "\\";
        out += static_cast<char>(c);
    } else {
        utf8::append(out, c);
    }
    return out;
}

std::string describe_token(const Token* t) {
    if (t == nullptr || t->getType() == Token::EOF) return "end of file";
    const std::string text = t->getText();
    std::string shown;
    std::size_t n = 0;
    for (std::size_t i = 0; i < text.size(); ++n) {
        char32_t cp = 0;
        bool valid = true;
        i += utf8::next(text, i, cp, valid);
        if (n == 24) {
            shown += "...";
            break;
        }
        shown += cp == '\'' ? std::string("'") : describe_char(cp);
    }
    return "'" + shown + "'";
}

void SyntaxErrorStrategy::emit(SourceLoc at, std::string message) {
    if (suppressed_.count(at.line) != 0) return;
    ++count_;
    diags_.error(SourceRange{file_, at, at}, std::move(message));
    if (count_ >= kMaxSyntaxErrors) throw antlr4::ParseCancellationException("too many errors");
}

bool SyntaxErrorStrategy::echoes_lexical_error(antlr4::Parser* parser) {
    const Token* prev = previous_token(parser);
    return prev != nullptr && prev->getType() == P::UNTERMINATED_STRING;
}

bool SyntaxErrorStrategy::report_unclosed_block(antlr4::Parser* parser, const Token* t,
                                                const antlr4::misc::IntervalSet& expected) {
    if (t == nullptr || t->getType() != Token::EOF || !has(expected, P::RBRACE)) return false;
    emit(where(parser, t), "expected '}' at end of file");
    for (antlr4::ParserRuleContext* c = parser->getContext(); c != nullptr;
         c = dynamic_cast<antlr4::ParserRuleContext*>(c->parent)) {
        const size_t rule = c->getRuleIndex();
        if (rule == P::RuleHostDecl || rule == P::RuleNodeDecl || rule == P::RuleTrainingDecl ||
            rule == P::RuleNetDecl || rule == P::RuleLayersDecl || rule == P::RuleArcBlock) {
            const SourceLoc at = begin_of(c->getStart());
            diags_.note(SourceRange{file_, at, at}, "the " + noun(c) + " opened here");
            break;
        }
    }
    return true;
}

void SyntaxErrorStrategy::reportMissingToken(antlr4::Parser* parser) {
    if (inErrorRecoveryMode(parser)) return;
    beginErrorCondition(parser);
    if (echoes_lexical_error(parser)) return;
    const Token* current = parser->getCurrentToken();
    const antlr4::misc::IntervalSet expected = getExpectedTokens(parser);
    const Token* prev = previous_token(parser);
    const SourceLoc at = prev != nullptr ? end_of(prev) : where(parser, current);
    std::string what = describe_expected(parser, expected);
    if (what.empty()) what = "more input";
    if (expected.size() == 1 && has(expected, P::SEMI)) {
        emit(at, "expected ';' after " + noun(parser->getContext()));
    } else {
        const std::string in = noun(parser->getContext());
        emit(at, "expected " + what + (in == "name" ? "" : " in " + in) + " before " +
                     describe_token(current));
    }
}

antlr4::Token* SyntaxErrorStrategy::singleTokenDeletion(antlr4::Parser* parser) {
    const size_t type = parser->getCurrentToken()->getType();
    if (type == P::SEMI || type == P::LBRACE || type == P::RBRACE) return nullptr;
    return DefaultErrorStrategy::singleTokenDeletion(parser);
}

void SyntaxErrorStrategy::consumeUntil(antlr4::Parser* parser,
                                       const antlr4::misc::IntervalSet& set) {
    std::size_t depth = 0;
    for (size_t type = parser->getInputStream()->LA(1); type != Token::EOF;
         type = parser->getInputStream()->LA(1)) {
        if (depth == 0 && set.contains(type)) return;
        if (type == P::LBRACE) ++depth;
        if (type == P::RBRACE && depth > 0) --depth;
        parser->consume();
    }
}

/// True when `t` starts a new line after `prev`: a missing `;` is then the likely mistake.
/// (or `t` closes the block: `{ out q }`).
static bool on_new_line(const Token* prev, const Token* t) {
    return prev != nullptr && t != nullptr &&
           (t->getType() == Token::EOF || t->getType() == P::RBRACE ||
            t->getLine() > prev->getLine());
}

void SyntaxErrorStrategy::reportUnwantedToken(antlr4::Parser* parser) {
    if (inErrorRecoveryMode(parser)) return;
    beginErrorCondition(parser);
    if (echoes_lexical_error(parser)) return;
    const Token* t = parser->getCurrentToken();
    const Token* prev = previous_token(parser);
    const antlr4::misc::IntervalSet expected = getExpectedTokens(parser);
    if (report_unclosed_block(parser, t, expected)) return;
    if (has(expected, P::SEMI) && on_new_line(prev, t)) {
        emit(end_of(prev), "expected ';' after " + noun(parser->getContext()));
        return;
    }
    std::string msg;
    if (t->getType() == P::ID && prev != nullptr &&
        (prev->getType() == P::NUMBER || prev->getType() == P::QUANTITY) &&
        prev->getLine() == t->getLine()) {
        emit(begin_of(t), "unknown unit " + describe_token(t) +
                              " (units are listed in docs/language.md §3)");
        return;
    } else {
        msg = "unexpected " + describe_token(t);
    }
    const std::string what = describe_expected(parser, expected);
    if (what == "an expression" && !can_start_expression(t->getType())) {
        msg = "expected an expression, found " + describe_token(t);
    } else if (!what.empty()) {
        msg += "; expected " + what;
    }
    emit(where(parser, t), msg);
}

void SyntaxErrorStrategy::reportInputMismatch(antlr4::Parser* parser,
                                              const antlr4::InputMismatchException& e) {
    if (echoes_lexical_error(parser)) return;
    const Token* t = e.getOffendingToken();
    const antlr4::misc::IntervalSet expected = e.getExpectedTokens();
    if (report_unclosed_block(parser, t, expected)) return;
    auto* ctx = dynamic_cast<antlr4::ParserRuleContext*>(e.getCtx());
    if (ctx == nullptr) ctx = parser->getContext();
    const Token* prev = previous_token(parser);
    if ((expected.size() == 1 || on_new_line(prev, t)) && has(expected, P::SEMI) &&
        prev != nullptr) {
        emit(end_of(prev), "expected ';' after " + noun(ctx));
        return;
    }
    const std::string what = describe_expected(parser, expected);
    if (what.empty()) {
        emit(where(parser, t), "unexpected " + describe_token(t) + " in " + noun(ctx));
    } else {
        emit(where(parser, t), "expected " + what + ", found " + describe_token(t));
    }
}

void SyntaxErrorStrategy::reportNoViableAlternative(antlr4::Parser* parser,
                                                    const antlr4::NoViableAltException& e) {
    if (echoes_lexical_error(parser)) return;
    const Token* t = e.getOffendingToken();
    if (report_unclosed_block(parser, t, parser->getExpectedTokens())) return;
    auto* ctx = dynamic_cast<antlr4::ParserRuleContext*>(e.getCtx());
    if (ctx == nullptr) ctx = parser->getContext();
    const size_t rule = ctx != nullptr ? ctx->getRuleIndex() : size_t{P::RuleFile};
    const bool at_start = e.getStartToken() == e.getOffendingToken();
    if (is_expression_rule(rule) && at_start && !can_start_expression(t->getType())) {
        emit(where(parser, t), "expected an expression, found " + describe_token(t));
        return;
    }
    if (at_start) {
        const std::string what = describe_expected(parser, parser->getExpectedTokens());
        if (!what.empty()) {
            emit(where(parser, t), "expected " + what + ", found " + describe_token(t));
            return;
        }
    }
    if (t->getType() == Token::EOF) {
        emit(where(parser, t), "unexpected end of file in " + noun(ctx));
    } else {
        emit(where(parser, t), "unexpected " + describe_token(t) + " in " + noun(ctx));
    }
}

void SyntaxErrorListener::syntaxError(antlr4::Recognizer*, antlr4::Token*, size_t line, size_t col,
                                      const std::string& msg, std::exception_ptr) {
    sink_.emit(SourceLoc{static_cast<uint32_t>(line), static_cast<uint32_t>(col + 1)}, msg);
}

}  // namespace sgdnet::frontend::detail
