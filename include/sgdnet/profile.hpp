// Public API: a one-node PyTorch profile turned into a `layers` table of the language (`sgdnet
// import-profile`).
#pragma once

#include <string>

namespace sgdnet {

/// The text `sgdnet import-profile PATH --name NAME` writes: a `layers NAME { … }` table of the
/// profile's per-layer times and gradient sizes, and `let NAME_compute`, `NAME_update`,
/// `NAME_step` (docs/profiles.md). `path` is a per-layer JSON profile or a PyTorch profiler
/// Chrome trace; `name` defaults to the file's stem, made an identifier. Throws CompileError
/// carrying every problem found (unreadable file, malformed JSON, a missing field), each with
/// its JSON pointer in the message. Warnings (what a trace cannot give) are dropped; use the
/// command to see them.
std::string import_profile(const std::string& path, const std::string& name = "");

}  // namespace sgdnet
