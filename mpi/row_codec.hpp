// A finished sweep point as bytes for a message between ranks: the solver's numbers bit for bit,
// so a row written by rank 0 is the row a single process writes.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "sweep/sweep_run.hpp"

namespace sgdnet::mpi {

/// Thrown by decode_row on bytes encode_row did not write.
class CodecError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// The row's index and its result (every field of SolveResult) or error (kind, message, place,
/// transition). The swept params are not sent: the receiver knows the plan.
std::string encode_row(const sweep::SweepRow& row);

/// The row encode_row encoded, with `params` left empty. Throws CodecError on truncated or
/// malformed bytes.
sweep::SweepRow decode_row(const std::string& bytes);

}  // namespace sgdnet::mpi
