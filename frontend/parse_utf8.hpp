// UTF-8 decoding shared by the front end: code points for columns, invalid bytes counted as one.
#pragma once

#include <cstddef>
#include <string_view>

namespace sgdnet::frontend::utf8 {

/// Decodes the code point starting at byte `i` of `s` (i < s.size()). Returns the number of bytes
/// it takes (1–4). An invalid byte (bad lead, truncated or overlong sequence, surrogate, > U+10FFFF)
/// yields `cp = 0xFFFD`, `valid = false` and takes exactly one byte.
inline std::size_t next(std::string_view s, std::size_t i, char32_t& cp, bool& valid) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    valid = true;
    if (b0 < 0x80) {
        cp = b0;
        return 1;
    }
    std::size_t len = 0;
    char32_t min = 0;
    if ((b0 & 0xE0) == 0xC0) {
        len = 2, cp = b0 & 0x1F, min = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
        len = 3, cp = b0 & 0x0F, min = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
        len = 4, cp = b0 & 0x07, min = 0x10000;
    }
    if (len != 0 && i + len <= s.size()) {
        bool ok = true;
        for (std::size_t k = 1; k < len && ok; ++k) {
            const auto b = static_cast<unsigned char>(s[i + k]);
            ok = (b & 0xC0) == 0x80;
            cp = (cp << 6) | (b & 0x3F);
        }
        if (ok && cp >= min && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF)) return len;
    }
    cp = 0xFFFD;
    valid = false;
    return 1;
}

/// Number of code points of `s` (an invalid byte counts as one).
inline std::size_t length(std::string_view s) {
    std::size_t n = 0;
    char32_t cp = 0;
    bool valid = true;
    for (std::size_t i = 0; i < s.size(); ++n) i += next(s, i, cp, valid);
    return n;
}

/// Appends the UTF-8 encoding of `cp` to `out`.
template <typename String>
inline void append(String& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

}  // namespace sgdnet::frontend::utf8
