// Exporters of the net IR: canonical net text, Graphviz DOT, PNML (ISO/IEC 15909-2 PT-net) and JSON.
#pragma once

#include <string>

#include "net/petri_net.hpp"

namespace sgdnet::emit {

/// Canonical, deterministic text form (`sgdnet compile --emit net`; golden tests diff it).
std::string to_net_text(const net::PetriNet& net);

/// Graphviz DOT text of the net (`sgdnet compile --emit dot`): places are circles labelled with
/// their name and initial tokens, timed transitions boxes labelled with their delay distribution,
/// immediate transitions thin black bars, inhibitor arcs end in a circle (`arrowhead=odot`),
/// multiplicities other than 1 are edge labels. Renders without warnings with `dot -Tsvg`.
std::string to_dot(const net::PetriNet& net);

/// PNML text (ISO/IEC 15909-2, P/T-net type `http://www.pnml.org/version-2009/grammar/ptnet`):
/// places with initialMarking, transitions, arcs with inscriptions. What a P/T net cannot say
/// (inhibitor arcs, delays, servers, memory, speed, priority, weight, bounds, measures, params)
/// is kept in `<toolspecific tool="sgdnet" version="…">` sections. Element ids are `p<k>`,
/// `t<k>` and `a<k>` (IR order); names are the IR names, XML-escaped.
std::string to_pnml(const net::PetriNet& net);

/// The whole IR as one JSON document (pretty-printed, 2-space indent): name, files, params,
/// places, transitions (delay as a tagged object), measures, with source ranges.
std::string to_json(const net::PetriNet& net);

}  // namespace sgdnet::emit
