# Errors from Python: diagnostics as ModelError with positions, SolveError with its kind, clear errors for bad arguments.
import pickle

import pytest
import sgdnet

from conftest import cli

BAD = """net bad {
  place p = 0;
  transition t ~ exp(mean = 5) { in p; }
  transition u ~ det(-1 s) { out nowhere; }
}
"""


def test_diagnostics_carry_file_line_column(tmp_path):
    path = tmp_path / "bad.sgdnet"
    path.write_text(BAD)
    with pytest.raises(sgdnet.ModelError) as info:
        sgdnet.compile(path)
    error = info.value
    assert len(error.errors) >= 2  # every error, not only the first
    for d in error.errors:
        assert d.file == str(path) and d.line >= 3 and d.column >= 1 and d.message
    # The same text as `sgdnet check`.
    assert error.rendered == cli("check", path, check=False).stderr
    assert str(error) == error.rendered.rstrip("\n")


def test_errors_pickle_with_their_data():
    with pytest.raises(sgdnet.ModelError) as info:
        sgdnet.compile(BAD)
    copy = pickle.loads(pickle.dumps(info.value))
    assert copy.diagnostics == info.value.diagnostics and str(copy) == str(info.value)
    solve = pickle.loads(pickle.dumps(sgdnet.SolveError("stuck", "deadlock")))
    assert (str(solve), solve.kind) == ("stuck", "deadlock")


def test_diagnostics_of_model_text():
    with pytest.raises(sgdnet.ModelError) as info:
        sgdnet.compile(BAD)
    d = info.value.errors[0]
    assert (d.file, d.severity) == ("<string>", "error")
    assert d.line == 3


def test_unreadable_file(tmp_path):
    with pytest.raises(sgdnet.ModelError) as info:
        sgdnet.compile(tmp_path / "missing.sgdnet")
    assert "missing.sgdnet" in str(info.value)
    assert info.value.diagnostics[0].line == 0


def test_unknown_param(source_dir):
    with pytest.raises(sgdnet.ModelError, match=r"unknown param `NN`; did you mean `N`"):
        sgdnet.compile(source_dir / "models/allreduce_ring_coarse.sgdnet", NN=4)


def test_param_of_the_wrong_dimension(source_dir):
    with pytest.raises(sgdnet.ModelError, match="expected a rate"):
        sgdnet.compile(source_dir / "models/allreduce_ring_coarse.sgdnet", bw=10)


@pytest.mark.parametrize("value", [[1, 2], None, True, {"a": 1}])
def test_param_of_the_wrong_type(source_dir, value):
    with pytest.raises(TypeError, match="param N: expected a number or a string"):
        sgdnet.compile(source_dir / "models/allreduce_ring_coarse.sgdnet", N=value)


def test_wrong_source_type():
    with pytest.raises(TypeError, match="expected a path or the text of a model"):
        sgdnet.compile(42)


@pytest.mark.parametrize("kwargs,error,match", [
    ({"solver": "fast"}, ValueError, "unknown solver 'fast'; expected 'auto', 'sim' or 'exact'"),
    ({"precision": 2}, ValueError, r"precision: expected a number in \(0, 1\)"),
    ({"confidence": "high"}, TypeError, "confidence"),
    ({"seed": -1}, ValueError, "seed"),
    ({"seed": 1.5}, TypeError, "seed: expected an integer"),
    ({"threads": "2"}, TypeError, "threads"),
    ({"max_time": "soon"}, ValueError, "max_time"),
    ({"max_time": 0}, ValueError, "max_time"),
])
def test_bad_run_arguments(source_dir, kwargs, error, match):
    model = sgdnet.compile(source_dir / "examples/mm1.sgdnet")
    with pytest.raises(error, match=match):
        model.run(**kwargs)


def test_unknown_keyword_of_run(source_dir):
    with pytest.raises(TypeError):
        sgdnet.compile(source_dir / "examples/mm1.sgdnet").run(solvr="sim")


def test_bad_granularity_and_emit_format(source_dir):
    with pytest.raises(ValueError, match="unknown granularity"):
        sgdnet.compile(source_dir / "models/allreduce_ring_coarse.sgdnet", granularity="medium")
    with pytest.raises(ValueError, match="unknown emit format 'svg'"):
        sgdnet.compile(source_dir / "examples/mm1.sgdnet").emit("svg")


def test_solve_error_has_a_kind(source_dir):
    model = sgdnet.compile(source_dir / "examples/mm1.sgdnet")
    with pytest.raises(sgdnet.SolveError) as info:
        model.run(solver="exact", max_states=1000)
    assert info.value.kind == "state_space_too_large"
    assert "mm1.sgdnet:" in str(info.value)
