# Sweeping a model's params from Python: the grid as `--set NAME=RANGE` texts, rows streamed from the C++ sweep engine, a pandas DataFrame.
from __future__ import annotations

import numbers
from typing import Any, Callable, Iterable, Mapping, Optional

from ._model import SOLVERS, Source, granularity_text, is_path, param_sets, run_arguments, value_text


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during sweep(on_interrupt="raise"): `rows` (or `frame`) has every finished point."""

    def __init__(self, rows: Any, finished: int, points: int):
        super().__init__(f"sweep interrupted: {finished} of {points} points finished and kept")
        self.rows = rows
        self.finished = finished
        self.points = points


def range_text(name: str, values: Any) -> str:
    """The RANGE of `--set NAME=RANGE` for a grid axis: a range, a list, a scalar or a RANGE str."""
    if isinstance(values, str):
        return values
    if isinstance(values, range):
        if len(values) == 0:
            raise ValueError(f"grid {name}: empty range {values!r}")
        if values.step == 1:
            return f"{values.start}..{values[-1]}"
        if values.step > 0:
            return f"{values.start}..{values[-1]}:+{values.step}"
    if isinstance(values, (numbers.Real,)):
        return value_text(name, values)
    if isinstance(values, Iterable):
        texts = [value_text(name, v) for v in values]
        if not texts:
            raise ValueError(f"grid {name}: no values")
        if any("," in t for t in texts):
            raise ValueError(f"grid {name}: a value may not contain ',': {texts!r}")
        return ",".join(texts)
    raise TypeError(f"grid {name}: expected a range, a list of values or a RANGE string such as "
                    f"'1..64:x2', got {type(values).__name__}")


def sweep(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("sgdnet.sweep needs the C++ sweep engine")
