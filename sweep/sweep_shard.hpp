// Shards of a sweep for batch schedulers: which points part I of K solves, the tag line that
// names the sweep a part comes from, and the checks that a set of parts makes the whole sweep.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sgdnet::sweep {

/// Part `index` of `count` (1-based): the points k with k % count == index - 1.
struct Shard {
    std::size_t index = 1;
    std::size_t count = 1;
    bool operator==(const Shard&) const = default;
};

/// Parses `I/K` (1 ≤ I ≤ K, K ≥ 1). Returns nullopt and sets `error` otherwise.
std::optional<Shard> parse_shard(const std::string& text, std::string& error);

/// Whether point `k` belongs to `shard`.
bool in_shard(std::size_t k, const Shard& shard);

/// How many of `points` points `shard` holds.
std::size_t shard_size(std::size_t points, const Shard& shard);

/// What a part file's first line says about the sweep it comes from.
struct PartTag {
    Shard shard;
    std::size_t points = 0;           // points of the whole sweep
    std::uint64_t seed = 0;           // --seed of every point
    std::string config;               // fingerprint of the model and every other option
    std::vector<std::string> ranges;  // the --set NAME=RANGE of the grid, as given
    bool zip = false;                 // --zip
    bool operator==(const PartTag&) const = default;
};

/// The tag line, ending in '\n': `# sgdnet sweep part I/K`, then tab-separated `key=value`
/// fields (points, seed, config, zip, one `set=` per range). A CSV reader sees one comment line.
std::string format_part_tag(const PartTag& tag);

/// Reads a line written by format_part_tag (without its '\n'); nullopt for any other line.
std::optional<PartTag> parse_part_tag(const std::string& line);

/// 64-bit FNV-1a of `text` as 16 hex digits: the `config` fingerprint of a part tag.
std::string fingerprint(const std::string& text);

/// Checks that `tags` (one per part file, `names` their file names, same size) are the parts of
/// one sweep, each given once, none missing. Returns the first problem as one sentence naming
/// the files (`b.csv comes from another sweep: seed 4, not 3 as in a.csv`), or nullopt.
std::optional<std::string> check_parts(const std::vector<PartTag>& tags,
                                       const std::vector<std::string>& names);

}  // namespace sgdnet::sweep
