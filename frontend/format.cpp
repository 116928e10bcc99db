// The canonical layout of a `.sgdnet` file (`sgdnet fmt`): the same tokens and comments, laid out
// by fixed rules, so that formatting never changes what the file means.
#include "frontend/format.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "frontend/parse.hpp"

#include "SgdNetLexer.h"  // ANTLR last: it undefines EOF.

namespace sgdnet::frontend {

namespace {

using L = sgdnet_grammar::SgdNetLexer;

/// A token or a comment, with the number of line breaks between it and the one before.
struct Item {
    const antlr4::Token* token;
    bool comment;
    int newlines_before;
    size_t type() const { return token->getType(); }
};

std::vector<Item> items_of(antlr4::CommonTokenStream& tokens) {
    std::vector<Item> out;
    int newlines = 0;
    for (const antlr4::Token* t : tokens.getTokens()) {
        const size_t type = t->getType();
        if (type == antlr4::Token::EOF) break;
        if (type == L::WS) {
            const std::string text = t->getText();
            newlines += static_cast<int>(std::count(text.begin(), text.end(), '\n'));
            continue;
        }
        const bool comment = type == L::LINE_COMMENT || type == L::BLOCK_COMMENT;
        if (!comment && t->getChannel() != antlr4::Token::DEFAULT_CHANNEL) continue;  // a BOM
        out.push_back({t, comment, newlines});
        newlines = 0;
    }
    return out;
}

bool is_name_keyword(size_t type) {
    switch (type) {
        case L::MODEL: case L::PARAM: case L::LET: case L::LAYERS: case L::HOST: case L::WORKER:
        case L::SERVER: case L::TRAINING: case L::NET: case L::PLACE: case L::TRANSITION:
        case L::IMMEDIATE: case L::MEASURE: case L::IN: case L::OUT: case L::INHIBIT:
        case L::BOUND:
            return true;
        default:
            return false;
    }
}

bool is_name(size_t type) { return type == L::ID || is_name_keyword(type); }

/// True when a `-` or `!` after a token of this type is binary (the token ends a value).
bool ends_value(size_t type) {
    switch (type) {
        case L::ID: case L::NUMBER: case L::QUANTITY: case L::BAD_QUANTITY: case L::STRING:
        case L::TRUE: case L::FALSE: case L::RPAREN: case L::RBRACK:
            return true;
        default:
            return is_name_keyword(type) && type != L::IN;
    }
}

/// The output text: pending line breaks are written (with the indentation) only when the next
/// text comes, so that a break can still be replaced by a blank line or dropped.
class Writer {
public:
    void want(int breaks) { breaks_ = std::max(breaks_, breaks); }
    void set_breaks(int breaks) { breaks_ = breaks; }
    int breaks() const { return breaks_; }
    bool line_empty() const { return out_.empty() || out_.back() == '\n'; }

    void put(const std::string& text, int indent, bool space) {
        if (out_.empty()) breaks_ = 0;
        if (breaks_ > 0) {
            out_ += breaks_ >= 2 ? "\n\n" : "\n";
            out_.append(static_cast<std::size_t>(std::max(indent, 0)) * 4, ' ');
            breaks_ = 0;
        } else if (space && !line_empty()) {
            out_ += ' ';
        }
        out_ += text;
    }

    std::string finish() const { return out_.empty() ? out_ : out_ + "\n"; }

private:
    std::string out_;
    int breaks_ = 0;
};

class Formatter {
public:
    explicit Formatter(std::vector<Item> items) : items_(std::move(items)) {}

    std::string run() {
        for (std::size_t k = 0; k < items_.size(); ++k) {
            if (items_[k].comment)
                comment(k);
            else
                token(k);
        }
        return out_.finish();
    }

private:
    std::vector<Item> items_;
    Writer out_;
    int depth_ = 0;             // open braces
    int brackets_ = 0;          // open parentheses and square brackets
    int ternary_ = 0;           // `?` waiting for their `:`
    size_t prev_ = 0;           // type of the last token written (0: none yet)
    bool prev_unary_ = false;   // the last token was a unary `-` or `!`
    bool prev_tight_ = false;   // the last token was an arc multiplicity `*`
    bool arc_ = false;          // inside `in …;`, `out …;`, `inhibit …;`
    bool after_inline_comment_ = false;
    bool decl_ended_ = false;   // a top-level declaration just ended
    bool decl_braced_ = false;  // the current top-level declaration has a `{`

    bool statement_start() const {
        return prev_ == 0 || prev_ == L::SEMI || prev_ == L::LBRACE || prev_ == L::RBRACE;
    }
    int indent() const { return statement_start() ? depth_ : depth_ + 1; }

    /// Index of the next token (not comment) after `k`, or items_.size().
    std::size_t next_token(std::size_t k) const {
        for (++k; k < items_.size() && items_[k].comment; ++k) {}
        return k;
    }

    /// True when the top-level declaration starting at token `k` has no block.
    bool one_line_decl(std::size_t k) const {
        int brackets = 0;
        for (; k < items_.size(); ++k) {
            if (items_[k].comment) continue;
            const size_t t = items_[k].type();
            if (t == L::LPAREN || t == L::LBRACK) ++brackets;
            if (t == L::RPAREN || t == L::RBRACK) --brackets;
            if (t == L::LBRACE) return false;
            if (t == L::SEMI && brackets <= 0) return true;
        }
        return true;
    }

    /// Line breaks before item `k`, which starts a line: a blank line between top-level
    /// declarations (not between one-line ones written together) and where the source has one
    /// inside a block, but never right after `{`.
    void breaks_before(std::size_t k) {
        const Item& it = items_[k];
        if (decl_ended_) {
            decl_ended_ = false;
            const std::size_t next = next_token(k - 1);
            const bool together = !decl_braced_ && (next == items_.size() || one_line_decl(next));
            out_.want(together && it.newlines_before < 2 ? 1 : 2);
            decl_braced_ = false;
            return;
        }
        out_.want(it.newlines_before >= 2 && prev_ != L::LBRACE ? 2 : 1);
    }

    void comment(std::size_t k) {
        const Item& it = items_[k];
        const std::string text = it.token->getText();
        if (it.newlines_before == 0 && !out_.line_empty()) {
            // At the end of a line of code (or inside it, for a block comment).
            const bool line = it.type() == L::LINE_COMMENT;
            const int pending = out_.breaks();
            out_.set_breaks(0);
            const bool opened = prev_ == L::LPAREN || prev_ == L::LBRACK;
            out_.put(line ? " " + text : text, indent(), line || !opened || pending > 0);
            out_.set_breaks(pending);
            if (line) out_.want(1);
            after_inline_comment_ = !line && pending == 0;
            return;
        }
        breaks_before(k);
        out_.put(text, indent(), true);
        after_inline_comment_ = false;
        const bool next_on_same_line = k + 1 < items_.size() && items_[k + 1].newlines_before == 0;
        if (it.type() == L::LINE_COMMENT || !next_on_same_line) out_.want(1);
        else after_inline_comment_ = true;
    }

    bool space_before(size_t t) const {
        if (t == L::RPAREN || t == L::RBRACK || t == L::COMMA || t == L::SEMI) return false;
        if (after_inline_comment_) return true;
        if (prev_ == L::LPAREN || prev_ == L::LBRACK) return false;
        if (t == L::DOT || prev_ == L::DOT || t == L::DOTDOT || prev_ == L::DOTDOT) return false;
        if (prev_unary_ || prev_tight_) return false;
        if (t == L::LPAREN) return !is_name(prev_);
        if (t == L::LBRACK) return !(is_name(prev_) || prev_ == L::RBRACK || prev_ == L::RPAREN);
        if (t == L::STAR && arc_ && brackets_ == 0) return false;
        if (t == L::COLON && ternary_ == 0) return false;
        return true;
    }

    void token(std::size_t k) {
        const Item& it = items_[k];
        const size_t t = it.type();
        const bool glued = k > 0 && !items_[k - 1].comment &&
                           ((t == L::RBRACE && items_[k - 1].type() == L::LBRACE) ||
                            (t == L::SEMI && items_[k - 1].type() == L::RBRACE));
        if (t == L::RBRACE) --depth_;
        if (glued) {
            out_.set_breaks(0);
        } else if (t == L::RBRACE) {
            out_.set_breaks(1);
        } else if (out_.breaks() > 0 || (decl_ended_ && depth_ == 0)) {
            breaks_before(k);
        }
        if (decl_ended_ && depth_ == 0 && !glued) decl_ended_ = false;
        const bool unary = (t == L::MINUS || t == L::NOT) && !ends_value(prev_);
        out_.put(it.token->getText(), t == L::RBRACE ? depth_ : indent(),
                 !glued && space_before(t));
        after_inline_comment_ = false;
        prev_tight_ = t == L::STAR && arc_ && brackets_ == 0;
        if ((t == L::IN || t == L::OUT || t == L::INHIBIT) && depth_ > 0 && statement_start() &&
            brackets_ == 0)
            arc_ = true;
        prev_unary_ = unary;
        prev_ = t;
        after_token(k, t);
    }

    /// Bookkeeping after token `k` of type `t`: nesting, line breaks, declaration ends.
    void after_token(std::size_t k, size_t t) {
        switch (t) {
            case L::LPAREN: case L::LBRACK: ++brackets_; break;
            case L::RPAREN: case L::RBRACK: brackets_ = std::max(brackets_ - 1, 0); break;
            case L::QUESTION: ++ternary_; break;
            case L::COLON: ternary_ = std::max(ternary_ - 1, 0); break;
            case L::LBRACE:
                ++depth_;
                if (depth_ == 1) decl_braced_ = true;
                out_.want(1);
                break;
            case L::RBRACE: {
                out_.want(1);
                const std::size_t next = next_token(k);
                if (depth_ == 0 && (next == items_.size() || items_[next].type() != L::SEMI))
                    decl_ended_ = true;
                break;
            }
            case L::SEMI:
                if (brackets_ > 0) break;
                arc_ = false;
                ternary_ = 0;
                out_.want(1);
                if (depth_ == 0) decl_ended_ = true;
                break;
            default: break;
        }
    }
};

}  // namespace

std::optional<std::string> format_source(uint32_t file, Diagnostics& diags) {
    const std::size_t errors_before = diags.error_count();
    parse(file, diags);
    if (diags.error_count() != errors_before) return std::nullopt;
    antlr4::ANTLRInputStream input(diags.file_text(file));
    L lexer(&input);
    lexer.removeErrorListeners();
    antlr4::CommonTokenStream tokens(&lexer);
    tokens.fill();
    return Formatter(items_of(tokens)).run();
}

}  // namespace sgdnet::frontend
