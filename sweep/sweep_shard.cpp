// Shards of a sweep for batch schedulers: shard selection, part tag lines, checks of a set of
// parts.
#include "sweep/sweep_shard.hpp"

#include <charconv>
#include <cstdio>
#include <map>
#include <sstream>

namespace sgdnet::sweep {
namespace {

constexpr const char* kTagPrefix = "# sgdnet sweep part ";

/// A whole decimal number of `text`, nothing else.
std::optional<std::uint64_t> whole_number(const std::string& text) {
    std::uint64_t v = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return v;
}

/// Splits on tabs.
std::vector<std::string> split_tabs(const std::string& text) {
    std::vector<std::string> out(1);
    for (const char c : text) {
        if (c == '\t') {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

/// Sets the field `key=value` of a tag; false for an unknown key or a malformed value.
bool set_tag_field(PartTag& tag, const std::string& key, const std::string& value) {
    if (key == "set") {
        tag.ranges.push_back(value);
        return true;
    }
    if (key == "config") {
        tag.config = value;
        return true;
    }
    const auto n = whole_number(value);
    if (!n) return false;
    if (key == "points")
        tag.points = *n;
    else if (key == "seed")
        tag.seed = *n;
    else if (key == "zip")
        tag.zip = *n != 0;
    else
        return false;
    return true;
}

std::string grid_text(const PartTag& tag) {
    std::string text;
    for (const auto& r : tag.ranges) text += (text.empty() ? "--set " : " --set ") + r;
    return tag.zip ? text + " --zip" : text;
}

/// Why `tag` (of file `name`) is not from the same sweep as `first` (of `first_name`).
std::optional<std::string> mismatch(const PartTag& first, const std::string& first_name,
                                    const PartTag& tag, const std::string& name) {
    const std::string head = name + " comes from another sweep than " + first_name + ": ";
    if (tag.ranges != first.ranges || tag.zip != first.zip) {
        return head + "grid '" + grid_text(tag) + "', not '" + grid_text(first) + "'";
    }
    if (tag.seed != first.seed) {
        return head + "seed " + std::to_string(tag.seed) + ", not " + std::to_string(first.seed);
    }
    if (tag.points != first.points) {
        return head + std::to_string(tag.points) + " points, not " + std::to_string(first.points);
    }
    if (tag.config != first.config) {
        return head + "another model or other options (config " + tag.config + ", not " +
               first.config + ")";
    }
    if (tag.shard.count != first.shard.count) {
        return head + "split in " + std::to_string(tag.shard.count) + " parts, not " +
               std::to_string(first.shard.count);
    }
    return std::nullopt;
}

}  // namespace

std::optional<Shard> parse_shard(const std::string& text, std::string& error) {
    const auto slash = text.find('/');
    const auto index = whole_number(text.substr(0, slash));
    const auto count =
        slash == std::string::npos ? std::nullopt : whole_number(text.substr(slash + 1));
    if (!index || !count || *count < 1 || *index < 1 || *index > *count) {
        error = "--shard " + text + ": expected I/K with 1 <= I <= K (e.g. 2/8)";
        return std::nullopt;
    }
    return Shard{*index, *count};
}

bool in_shard(std::size_t k, const Shard& shard) { return k % shard.count == shard.index - 1; }

std::size_t shard_size(std::size_t points, const Shard& shard) {
    const std::size_t first = shard.index - 1;
    return points > first ? (points - first + shard.count - 1) / shard.count : 0;
}

std::string format_part_tag(const PartTag& tag) {
    std::string line =
        kTagPrefix + std::to_string(tag.shard.index) + "/" + std::to_string(tag.shard.count);
    line += "\tpoints=" + std::to_string(tag.points) + "\tseed=" + std::to_string(tag.seed) +
            "\tconfig=" + tag.config + "\tzip=" + (tag.zip ? "1" : "0");
    for (const auto& r : tag.ranges) line += "\tset=" + r;
    return line + "\n";
}

std::optional<PartTag> parse_part_tag(const std::string& line) {
    const std::string prefix = kTagPrefix;
    if (line.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    const auto fields = split_tabs(line.substr(prefix.size()));
    std::string error;
    const auto shard = parse_shard(fields[0], error);
    if (!shard) return std::nullopt;
    PartTag tag;
    tag.shard = *shard;
    for (std::size_t f = 1; f < fields.size(); ++f) {
        const auto eq = fields[f].find('=');
        if (eq == std::string::npos) return std::nullopt;
        if (!set_tag_field(tag, fields[f].substr(0, eq), fields[f].substr(eq + 1))) {
            return std::nullopt;
        }
    }
    return tag;
}

std::string fingerprint(const std::string& text) {
    std::uint64_t h = 14695981039346656037ull;
    for (const unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

std::optional<std::string> check_parts(const std::vector<PartTag>& tags,
                                       const std::vector<std::string>& names) {
    if (tags.empty()) return "no part given";
    std::map<std::size_t, std::size_t> file_of_index;  // shard index → position in tags
    for (std::size_t p = 0; p < tags.size(); ++p) {
        if (auto why = mismatch(tags[0], names[0], tags[p], names[p])) return why;
        const auto [it, inserted] = file_of_index.emplace(tags[p].shard.index, p);
        if (!inserted) {
            return "part " + std::to_string(tags[p].shard.index) + "/" +
                   std::to_string(tags[p].shard.count) + " is given twice: " + names[it->second] +
                   " and " + names[p];
        }
    }
    const std::size_t count = tags[0].shard.count;
    for (std::size_t i = 1; i <= count; ++i) {
        if (!file_of_index.contains(i)) {
            return "part " + std::to_string(i) + "/" + std::to_string(count) +
                   " is missing (run sgdnet sweep ... --shard " + std::to_string(i) + "/" +
                   std::to_string(count) + ")";
        }
    }
    return std::nullopt;
}

}  // namespace sgdnet::sweep
