# Model.run from Python against the `sgdnet` command and the examples' closed forms: identical numbers for the same seed.
import threading
import time

import pytest
import sgdnet

from conftest import cli_run_json, expected_values

# Three models: two queueing examples and a training model with params set.
CASES = [
    ("examples/mm1k.sgdnet", {}, ["--seed", "7"], 7),
    ("examples/repairman.sgdnet", {}, ["--seed", "3"], 3),
    ("models/allreduce_ring_coarse.sgdnet", {"N": 4, "bw": "25Gbps"},
     ["--seed", "11", "--set", "N=4", "--set", "bw=25Gbps"], 11),
]


@pytest.mark.parametrize("path,params,options,seed", CASES)
def test_same_numbers_as_the_command(source_dir, path, params, options, seed):
    cli = cli_run_json(source_dir / path, *options)
    result = sgdnet.compile(source_dir / path, **params).run(solver="sim", seed=seed)
    mine = result.to_dict()
    assert mine["model"] == cli["model"]
    assert mine["solver"] == cli["solver"] == "sim"
    assert mine["params"] == cli["params"]
    assert list(mine["measures"]) == list(cli["measures"])
    for name, m in cli["measures"].items():
        got = mine["measures"][name]
        assert (got["mean"], got["ci_low"], got["ci_high"]) == (m["mean"], m["ci_low"],
                                                                m["ci_high"]), name
    for key in ("replications", "events", "simulated_s"):
        assert mine["stats"][key] == cli["stats"][key]


def test_exact_solver_same_as_command_and_closed_form(source_dir):
    path = source_dir / "examples/mm1k.sgdnet"
    cli = cli_run_json(path, "--solver", "exact")
    result = sgdnet.compile(path).run(solver="exact")
    assert result.solver == "exact"
    assert result.stats.states == cli["stats"]["states"]
    for name, value in expected_values(path).items():
        assert result[name].mean == cli["measures"][name]["mean"]
        assert result[name].mean == pytest.approx(value, rel=1e-9)
        assert result[name].ci_low == result[name].ci_high == result[name].mean


@pytest.mark.parametrize("example", ["mm1", "repairman", "cyclic"])
def test_simulation_finds_the_closed_forms(source_dir, example):
    path = source_dir / "examples" / f"{example}.sgdnet"
    result = sgdnet.compile(path).run(solver="sim", seed=1)
    assert result.precision_reached
    for name, value in expected_values(path).items():
        m = result.measures[name]
        slack = 3 * max(m.half_width, 1e-12)  # a 95% interval misses now and then
        assert abs(m.mean - value) <= slack, (name, m, value)


def test_threads_do_not_change_the_numbers(source_dir):
    model = sgdnet.compile(source_dir / "examples/repairman.sgdnet")
    one = model.run(solver="sim", seed=5, threads=1).to_dict()["measures"]
    two = model.run(solver="sim", seed=5, threads=2).to_dict()["measures"]
    assert one == two


def test_result_api(source_dir):
    result = sgdnet.compile(source_dir / "examples/mm1k.sgdnet", **{"mm1k.K": 8}).run(seed=2)
    assert result.params == {"mm1k.K": 8.0}
    assert result.solver == "exact"  # auto: a small exponential model is solved exactly
    m = result.measures["thr"]
    assert m.unit == "1/s" and m.name == "thr"
    assert result.measures["qlen"].unit == "tokens"
    assert result.measures["full"].unit == ""
    assert result["thr"] is m
    d = result.to_dict()
    assert d["measures"]["thr"] == {"mean": m.mean, "ci_low": m.ci_low, "ci_high": m.ci_high,
                                    "unit": "1/s"}
    assert "states" in d["stats"]
    html = result._repr_html_()
    assert "<table>" in html and "thr" in html
    assert "thr" in repr(result)


def test_model_properties(source_dir):
    model = sgdnet.compile(source_dir / "models/allreduce_ring_coarse.sgdnet", N=3)
    assert model.name == "allreduce_ring_coarse"
    assert model.params == {"N": 3.0, "bw": 1.25e9}
    assert model.measure_names[0] == "steps_per_s"
    assert model.stats.places > 0 and model.stats.transitions > 0
    assert model.stats.transitions == model.stats.timed + model.stats.immediate
    assert model.warnings == []


def test_compile_text_and_durations():
    text = ("model tiny;\nnet q {\n  place p = 0;\n"
            "  transition a ~ exp(rate = 2 /s) { out p; }\n"
            "  transition s ~ exp(rate = 4 /s) { in p; }\n}\n"
            "measure thr = throughput(q.s);\n")
    model = sgdnet.compile(text)
    assert model.name == "tiny"
    r = model.run(solver="sim", seed=1, precision=0.05, max_time="30s")
    assert r.measures["thr"].mean == pytest.approx(2, rel=0.1)


def test_the_gil_is_released_while_solving(source_dir):
    model = sgdnet.compile(source_dir / "examples/mm1.sgdnet")
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.002)

    ticker = threading.Thread(target=tick)
    ticker.start()
    start = time.monotonic()
    try:
        model.run(solver="sim", seed=1, precision=0.003, threads=1)
    finally:
        stop.set()
        ticker.join()
    elapsed = time.monotonic() - start
    during = [t for t in ticks if start < t < start + elapsed]
    # A held GIL would freeze the ticker for the whole solve.
    assert elapsed < 0.05 or len(during) >= 5, (elapsed, len(during))
