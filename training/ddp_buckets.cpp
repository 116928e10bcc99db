// PyTorch DDP's gradient bucketing: the bucket rule, the gradient-ready order, the buckets of a layer table.
#include "training/ddp_buckets.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

namespace sgdnet::training {

std::vector<std::vector<int>> ddp_bucket_assignment(const std::vector<int>& ready,
                                                    const std::vector<double>& bytes,
                                                    double bucket_cap_B,
                                                    double first_bucket_cap_B) {
    std::vector<std::vector<int>> out;
    std::vector<int> current;
    double size = 0;
    double cap = first_bucket_cap_B;
    for (int i : ready) {
        current.push_back(i);
        size += bytes[static_cast<std::size_t>(i)];
        if (size >= cap) {  // closed once it holds at least its cap, after adding the layer
            out.push_back(std::move(current));
            current.clear();
            size = 0;
            cap = bucket_cap_B;
        }
    }
    if (!current.empty()) out.push_back(std::move(current));
    return out;
}

std::vector<int> gradient_ready_order(const std::vector<LayerSpec>& layers) {
    std::vector<int> order(layers.size());
    std::iota(order.begin(), order.end(), 0);
    const bool recorded = !layers.empty() && std::all_of(layers.begin(), layers.end(),
        [](const LayerSpec& l) { return l.bwd_order.has_value(); });
    if (recorded) {
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return *layers[static_cast<std::size_t>(a)].bwd_order <
                   *layers[static_cast<std::size_t>(b)].bwd_order;
        });
    } else {
        std::reverse(order.begin(), order.end());
    }
    return order;
}

std::vector<Bucket> make_buckets(const std::vector<LayerSpec>& layers, double first_cap,
                                 double cap) {
    std::vector<double> bytes;
    for (const LayerSpec& l : layers) bytes.push_back(l.bytes);
    std::vector<Bucket> buckets;
    for (auto& members : ddp_bucket_assignment(gradient_ready_order(layers), bytes, cap, first_cap)) {
        Bucket b;
        for (int k : members) b.bytes += bytes[static_cast<std::size_t>(k)];
        b.layers = std::move(members);
        buckets.push_back(std::move(b));
    }
    return buckets;
}

}  // namespace sgdnet::training
