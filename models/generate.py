#!/usr/bin/env python3
"""Writes the ready-made models of models/ (run from anywhere: python3 models/generate.py).

The fine models share one ResNet-50-like layer table: the 161 parameter tensors of torchvision's
resnet50 (53 convolutions, 53 batch norms with weight and bias, the final fc weight and bias;
25,557,032 fp32 parameters = 102.2 MB) in forward order. Times are synthetic but shaped like a
V100-class GPU at batch 32: forward 35 ms and backward 70 ms per step, spread over the
convolutions in proportion to their FLOPs (85%) and over the batch norms in proportion to their
activation sizes (15%); biases take no time of their own. Convolution and fc times are lognormal
with cv 0.1, batch-norm times deterministic.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FWD_TOTAL_MS, BWD_TOTAL_MS = 35.0, 70.0


def resnet50_tensors():
    """(name, kind, params, flops-or-activations) in forward order."""
    rows = []

    def conv(name, cin, cout, k, hw_out):
        rows.append((name + "_w", "conv", cin * cout * k * k, cin * cout * k * k * hw_out * hw_out))

    def bn(name, c, hw):
        rows.append((name + "_w", "bn", c, c * hw * hw))
        rows.append((name + "_b", "bias", c, 0))

    conv("conv1", 3, 64, 7, 112)
    bn("bn1", 64, 112)
    cin = 64
    for stage, (width, blocks, hw) in enumerate([(64, 3, 56), (128, 4, 28), (256, 6, 14),
                                                 (512, 3, 7)], start=1):
        for b in range(blocks):
            p = f"l{stage}_{b}"
            conv(p + "_conv1", cin, width, 1, hw if b > 0 or stage == 1 else hw * 2)
            bn(p + "_bn1", width, hw if b > 0 or stage == 1 else hw * 2)
            conv(p + "_conv2", width, width, 3, hw)
            bn(p + "_bn2", width, hw)
            conv(p + "_conv3", width, width * 4, 1, hw)
            bn(p + "_bn3", width * 4, hw)
            if b == 0:
                conv(p + "_down", cin, width * 4, 1, hw)
                bn(p + "_down_bn", width * 4, hw)
            cin = width * 4
    rows.append(("fc_w", "conv", 2048 * 1000, 2048 * 1000))
    rows.append(("fc_b", "bias", 1000, 0))
    return rows


def layer_table():
    rows = resnet50_tensors()
    assert len(rows) == 161, len(rows)
    params = sum(r[2] for r in rows)
    assert params == 25_557_032, params
    conv_work = sum(r[3] for r in rows if r[1] == "conv")
    bn_work = sum(r[3] for r in rows if r[1] == "bn")
    lines = ["// ResNet-50-like layer table (models/generate.py): 161 parameter tensors,",
             f"// {params:,} fp32 parameters = {params * 4 / 1e6:.1f} MB; forward {FWD_TOTAL_MS:g} ms,",
             f"// backward {BWD_TOTAL_MS:g} ms per step (batch 32).",
             "layers resnet50 {"]
    for name, kind, n, work in rows:
        if kind == "conv":
            share = 0.85 * work / conv_work
            f, b = FWD_TOTAL_MS * share, BWD_TOTAL_MS * share
            fwd = f"lognormal(mean = {f:.4f} ms, cv = 0.1)"
            bwd = f"lognormal(mean = {b:.4f} ms, cv = 0.1)"
        elif kind == "bn":
            share = 0.15 * work / bn_work
            fwd = f"det({FWD_TOTAL_MS * share:.4f} ms)"
            bwd = f"det({BWD_TOTAL_MS * share:.4f} ms)"
        else:
            fwd = bwd = "det(0 ms)"
        lines.append(f"  {name}: fwd = {fwd}, bwd = {bwd}, bytes = {n * 4} B;")
    lines.append("}")
    return "\n".join(lines), params * 4


SCHEMES = {
    "ps_sync": ("ps_sync", "synchronous parameter server: every step waits for all N gradients"),
    "ps_async": ("ps_async", "asynchronous parameter server: each worker loops pull, compute, push"),
    "ps_ssp": ("ps_ssp(staleness = S)", "stale-synchronous parameter server (bounded staleness)"),
    "allreduce_ring": ("allreduce_ring", "ring all-reduce (2(N-1) rounds of model_bytes/N)"),
    "allreduce_tree": ("allreduce_tree", "binary-tree reduce then broadcast, rooted at worker 0"),
    "gossip": ("gossip", "decentralized gossip averaging with a random ring neighbour"),
}


def model(scheme, granularity, table, model_bytes):
    sync, what = SCHEMES[scheme]
    ps = scheme.startswith("ps_")
    n_default = 8
    out = [f"// {scheme}_{granularity}: {what}; {granularity}-grained.",
           "//",
           "// A ResNet-50-like job (25.6 M parameters, 102.2 MB of fp32 gradients per step, batch 32",
           "// per worker) on cloud VMs with 10 Gbps NICs and 25 us one-way latency"
           + (", plus parameter-server shards with 25 Gbps NICs." if ps else "."),
           "// Run: sgdnet run models/" + f"{scheme}_{granularity}.sgdnet [--set N=16]"
           + (" [--set S=4]" if scheme == "ps_ssp" else ""),
           f"// See models/README_{scheme}.md for the net it compiles to.",
           f"model {scheme}_{granularity};",
           "",
           f"param N  = {n_default};           // workers",
           "param bw = 10 Gbps;     // worker NIC, each direction"]
    if ps:
        out += ["param K  = 2;           // parameter-server shards",
                "param sbw = 25 Gbps;    // server NIC"]
    if scheme == "ps_ssp":
        out.append("param S  = 2;           // staleness bound")
    out.append("")
    if granularity == "fine":
        out += [table, ""]
    out.append("worker w[N] {")
    if granularity == "fine":
        out.append("  layers    = resnet50;                              // per-layer fwd/bwd")
    else:
        total = FWD_TOTAL_MS + BWD_TOTAL_MS
        out.append(f"  compute   = lognormal(mean = {total:g} ms, cv = 0.05);   // forward + backward")
    out += ["  update    = " + ("det(0 ms);                            // the servers apply updates"
                                 if ps else "det(6 ms);                            // optimizer step (SGD + momentum)"),
            "  bandwidth = bw;",
            "  latency   = 25 us;",
            "  batch     = 32;",
            "}"]
    if ps:
        out += ["",
                "server ps[K] {",
                "  update    = det(8 ms);      // apply one whole-model gradient (split over shards' layers)",
                "  bandwidth = sbw;",
                "  latency   = 25 us;",
                "}"]
    out += ["",
            "training {",
            f"  sync        = {sync.replace('= S', '= S')};",
            f"  granularity = {granularity};"]
    if granularity == "coarse":
        out.append(f"  model_bytes = {model_bytes / 1e6:.3f} MB;   // = Σ bytes of the ResNet-50 table")
        if scheme.startswith("allreduce"):
            out.append("  overlap     = 0.5;          // half of the communication hidden behind backward")
    else:
        if scheme.startswith("allreduce"):
            out += ["  bucket       = 25 MiB;      // PyTorch DDP defaults",
                    "  first_bucket = 1 MiB;"]
        out.append("  overlap     = true;")
    out += ["  sharing     = fair;", "}", ""]
    return "\n".join(out)


def main():
    table, model_bytes = layer_table()
    for scheme in SCHEMES:
        for granularity in ("fine", "coarse"):
            path = os.path.join(HERE, f"{scheme}_{granularity}.sgdnet")
            with open(path, "w") as f:
                f.write(model(scheme, granularity, table, model_bytes))


if __name__ == "__main__":
    main()
