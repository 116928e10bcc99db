// The kinds of a training system (docs/language.md §5) that both the compiler and the lowering
// name: the coordination scheme, the granularity, the sharing of a NIC direction and the
// protocol. Header-only and dependency-free, so that the compiler's public headers (compile.hpp,
// eval.hpp) and the TrainingSpec use the very same enums.
#pragma once

namespace sgdnet::training {

/// `sync = …` (§5.2).
enum class SyncKind { PsSync, PsAsync, PsSsp, AllreduceRing, AllreduceTree, Gossip };

/// ps_sync, ps_async, ps_ssp: the schemes that need a `server` declaration.
constexpr bool parameter_server(SyncKind k) {
    return k == SyncKind::PsSync || k == SyncKind::PsAsync || k == SyncKind::PsSsp;
}

/// `granularity = …` / `--granularity` (§5): per-layer (fine) or one compute per step (coarse).
enum class Granularity { Fine, Coarse };

/// `sharing = …` (§5.1): how the messages of one NIC direction share it.
enum class SharingKind { Fair, Fifo };

/// `protocol = …` (§5.1): whether a message's data waits for its receiver's posted receive.
enum class Protocol { Eager, Rendezvous };

}  // namespace sgdnet::training
