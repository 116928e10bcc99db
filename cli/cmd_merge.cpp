// `sgdnet merge PART…`: checks that the parts written by `sweep --shard I/K` are the whole of one
// sweep, every point once, and writes the file the unsharded sweep writes.
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "sweep/sweep_shard.hpp"
#include "sweep/sweep_spec.hpp"

namespace sgdnet::cli {
namespace {

/// One part file: its tag, its CSV header line and its rows (lines without '\n').
struct Part {
    std::string name;
    sweep::PartTag tag;
    std::string header;
    std::vector<std::string> rows;
};

/// Reads a part; prints the error and returns nullopt when it is not one.
std::optional<Part> read_part(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::cerr << "error: cannot read '" << path << "'\n";
        return std::nullopt;
    }
    Part part;
    part.name = path;
    std::string line;
    std::vector<std::string> lines;
    while (std::getline(in, line)) {
        if (!line.empty()) lines.push_back(line);
    }
    const auto tag = lines.empty() ? std::nullopt : sweep::parse_part_tag(lines[0]);
    if (!tag || lines.size() < 2) {
        std::cerr << "error: " << path << ": not a part of a sweep (write parts with "
                  << "`sgdnet sweep ... --shard I/K -o PART`)\n";
        return std::nullopt;
    }
    part.tag = *tag;
    part.header = lines[1];
    part.rows.assign(lines.begin() + 2, lines.end());
    return part;
}

/// Every point of a part's grid: its key (point_key) and its label for messages (point_label).
struct GridPoints {
    std::vector<std::string> keys;
    std::vector<std::string> labels;
};

/// The points of the tag's grid, or nullopt when its ranges do not parse (error printed).
std::optional<GridPoints> point_keys(const Part& part) {
    sweep::SweepPlan plan;
    std::string error;
    for (const auto& r : part.tag.ranges) {
        auto p = sweep::parse_sweep_set(r, error);
        if (!p) break;
        plan.params.push_back(std::move(*p));
    }
    auto points =
        error.empty() ? sweep::sweep_points(plan.params, part.tag.zip, error) : std::nullopt;
    if (!points || points->size() != part.tag.points) {
        std::cerr << "error: " << part.name << ": its grid does not make " << part.tag.points
                  << " points" << (error.empty() ? "" : ": " + error) << "\n";
        return std::nullopt;
    }
    plan.points = std::move(*points);
    GridPoints out;
    for (std::size_t k = 0; k < plan.points.size(); ++k) {
        out.keys.push_back(point_key(sweep::point_params(plan, k)));
        out.labels.push_back(point_label(plan, k));
    }
    return out;
}

/// Checks that `part` holds exactly its shard's points, in order, each a whole row; prints the
/// first problem and returns false.
bool check_rows(const Part& part, const GridPoints& points) {
    const auto& keys = points.keys;
    const auto header = split_csv(part.header);
    const std::size_t params = part.tag.ranges.size();
    std::size_t r = 0;
    for (std::size_t k = 0; k < keys.size(); ++k) {
        if (!sweep::in_shard(k, part.tag.shard)) continue;
        const auto cells =
            r < part.rows.size() ? split_csv(part.rows[r]) : std::vector<std::string>{};
        std::string key;
        for (std::size_t d = 0; d < params && d < cells.size(); ++d) {
            key += (d ? "," : "") + cells[d];
        }
        if (key != keys[k] || cells.size() != header.size()) {
            std::cerr << "error: " << part.name << ": point " << k << " (" << points.labels[k]
                      << ") is missing or torn; finish the part with `sgdnet sweep ... --shard "
                      << part.tag.shard.index << "/" << part.tag.shard.count << " --resume`\n";
            return false;
        }
        ++r;
    }
    if (r != part.rows.size()) {
        std::cerr << "error: " << part.name << ": " << part.rows.size() - r
                  << " rows more than part " << part.tag.shard.index << "/" << part.tag.shard.count
                  << " holds\n";
        return false;
    }
    return true;
}

/// Checks the parts together (one sweep, every part once, the same header); prints the problem.
bool check_together(const std::vector<Part>& parts) {
    std::vector<sweep::PartTag> tags;
    std::vector<std::string> names;
    for (const auto& p : parts) {
        tags.push_back(p.tag);
        names.push_back(p.name);
    }
    if (const auto why = sweep::check_parts(tags, names)) {
        std::cerr << "error: " << *why << "\n";
        return false;
    }
    for (const auto& p : parts) {
        if (p.header != parts[0].header) {
            std::cerr << "error: " << p.name << " comes from another sweep than " << parts[0].name
                      << ": another CSV header\n";
            return false;
        }
    }
    return true;
}

}  // namespace

Status cmd_merge(const MergeArgs& args) {
    std::vector<Part> parts;
    for (const auto& path : args.parts) {
        auto part = read_part(path);
        if (!part) return Status::InputError;
        parts.push_back(std::move(*part));
    }
    if (!check_together(parts)) return Status::InputError;
    const auto points = point_keys(parts[0]);
    if (!points) return Status::InputError;
    const auto& keys = points->keys;
    std::vector<const Part*> by_index(parts.size());
    for (const auto& p : parts) {
        if (!check_rows(p, *points)) return Status::InputError;
        by_index[p.tag.shard.index - 1] = &p;
    }
    std::string text = parts[0].header + "\n";
    const std::size_t count = parts.size();
    for (std::size_t k = 0; k < keys.size(); ++k) {
        text += by_index[k % count]->rows[k / count] + "\n";
    }
    return write_output(args.output, text);
}

}  // namespace sgdnet::cli
