// Name look-ups on the net IR and the spelling of measure kinds.
#include "net/petri_net.hpp"

namespace sgdnet::net {

const char* to_string(Measure::Kind kind) {
    switch (kind) {
        case Measure::Kind::Throughput: return "throughput";
        case Measure::Kind::TimeAverage: return "time_average";
        case Measure::Kind::MeanInverseThroughput: return "mean_inverse_throughput";
    }
    return "unknown";
}

std::optional<PlaceId> PetriNet::find_place(const std::string& name) const {
    for (uint32_t j = 0; j < places.size(); ++j)
        if (places[j].name == name) return PlaceId{j};
    return std::nullopt;
}

std::optional<TransitionId> PetriNet::find_transition(const std::string& name) const {
    for (uint32_t j = 0; j < transitions.size(); ++j)
        if (transitions[j].name == name) return TransitionId{j};
    return std::nullopt;
}

}  // namespace sgdnet::net
