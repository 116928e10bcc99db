// PyTorch DDP's gradient bucketing: the bucket rule, the gradient-ready order, the buckets of a layer table.
#pragma once

#include <vector>

#include "training/training_spec.hpp"

namespace sgdnet::training {

/// PyTorch DDP's bucket rule (torch/csrc/distributed/c10d/reducer.cpp,
/// compute_bucket_assignment_by_size), the one implementation used by profile import's
/// ddp_buckets and by the training lowering (make_buckets): the layers `ready` (indexes into `bytes`, in
/// gradient-ready order) are added one by one to the open bucket; right after adding one, the
/// bucket is closed if it holds at least its cap (`first_bucket_cap_B` for the first bucket,
/// `bucket_cap_B` after). What remains at the end is the last bucket. Returns the buckets in
/// all-reduce order, each a list of layer indexes in ready order.
std::vector<std::vector<int>> ddp_bucket_assignment(const std::vector<int>& ready,
                                                    const std::vector<double>& bytes,
                                                    double bucket_cap_B,
                                                    double first_bucket_cap_B);

/// A gradient bucket of fine all-reduce: layer indexes (forward order) in gradient-ready order.
struct Bucket {
    std::vector<int> layers;
    double bytes = 0;
};

/// The order in which the layers' gradients become ready: ascending `bwd_order` when every
/// layer records one, else reverse layer order. Returns layer indexes.
std::vector<int> gradient_ready_order(const std::vector<LayerSpec>& layers);

/// DDP bucketing (docs/language.md §5 `bucket`, `first_bucket`) exactly as PyTorch DDP forms its
/// buckets: layers in gradient-ready order are added to the open bucket, which is closed as soon
/// as it holds at least its cap (`first_cap` for the first bucket, `cap` after), so a bucket may
/// exceed its cap by its last layer (docs/language.md explains this deviation from "at most").
/// The rule is ddp_bucket_assignment, shared with profile import's ddp_buckets.
std::vector<Bucket> make_buckets(const std::vector<LayerSpec>& layers, double first_cap,
                                 double cap);

}  // namespace sgdnet::training
