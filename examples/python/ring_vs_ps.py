#!/usr/bin/env python3
# Notebook-style example of the Python module: sweeps ring all-reduce against a synchronous parameter server over N workers and plots samples/s with matplotlib to a PNG.
"""Ring all-reduce vs synchronous parameter server, from Python.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/ring_vs_ps.py [-o ring_vs_ps.png]

Each cell below is what one would type in a notebook: sweep the two coarse models of models/
over N at 10 Gbps, look at the DataFrame, plot samples/s with its confidence interval.
"""
import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")  # files only; a notebook shows the figure inline instead
import matplotlib.pyplot as plt

import sgdnet

MODELS = pathlib.Path(__file__).resolve().parent.parent.parent / "models"
SCHEMES = {"ring all-reduce": "allreduce_ring_coarse.sgdnet",
           "PS sync (2 shards)": "ps_sync_coarse.sgdnet"}

parser = argparse.ArgumentParser(description="Ring all-reduce vs PS over N, plotted to a PNG.")
parser.add_argument("-o", "--output", default="ring_vs_ps.png", help="the PNG to write")
parser.add_argument("--max-n", type=int, default=32, help="largest number of workers")
args = parser.parse_args()

# %% Sweep both schemes over N by simulation (their delays are not all exponential), with the
# same seed, so the numbers are those of `sgdnet sweep --seed 1`.
grid = {"N": [n for n in (2, 4, 8, 12, 16, 24, 32, 48, 64) if n <= args.max_n],
        "bw": ["10Gbps"]}
frames = {label: sgdnet.sweep(MODELS / file, grid=grid, solver="sim", seed=1,
                                   progress=False)
          for label, file in SCHEMES.items()}

# %% The numbers: samples/s per scheme, one row per N.
columns = ["N", "samples_per_s", "samples_per_s_ci_low", "samples_per_s_ci_high"]
for label, frame in frames.items():
    print(f"{label}:")
    print(frame[columns].to_string(index=False))

# %% The plot: samples/s against N, with the 95% confidence interval as error bars.
fig, ax = plt.subplots(figsize=(7, 4.2))
for label, frame in frames.items():
    mean = frame["samples_per_s"]
    error = [mean - frame["samples_per_s_ci_low"], frame["samples_per_s_ci_high"] - mean]
    ax.errorbar(frame["N"], mean, yerr=error, marker="o", capsize=3, label=label)
ax.set_xlabel("workers N")
ax.set_ylabel("training throughput [samples/s]")
ax.set_title("ResNet-50-like job, 10 Gbps NICs (sgdnet coarse models)")
ax.grid(True, alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(args.output, dpi=100)
print(f"wrote {args.output}")
