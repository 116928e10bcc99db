# The sgdnet Python package: compile .sgdnet models, solve them, sweep params into pandas DataFrames.
"""sgdnet: distributed-SGD throughput models compiled to stochastic timed Petri nets.

    import sgdnet
    model = sgdnet.compile("models/allreduce_ring_coarse.sgdnet", N=16, bw="25Gbps")
    print(model.run(seed=1)["samples_per_s"].mean)
    df = sgdnet.sweep("models/allreduce_ring_coarse.sgdnet", grid={"N": range(2, 17)})

docs/python.md is the guide; the numbers are those of the `sgdnet` command for the same seed.
"""
from ._errors import Diagnostic, ModelError, SolveError
from . import _sgdnet
from ._model import Measure, Model, ModelStats, Result, Stats, compile, import_profile
from ._sweep import SweepInterrupted, sweep

__version__: str = _sgdnet.version()

__all__ = [
    "Diagnostic", "Measure", "Model", "ModelError", "ModelStats", "Result", "SolveError", "Stats",
    "SweepInterrupted", "compile", "import_profile", "sweep", "__version__",
]
