# Model.emit, Model.stats and import_profile from Python: the texts of `sgdnet compile --emit` and `sgdnet import-profile`.
import pytest
import sgdnet

from conftest import cli


@pytest.mark.parametrize("fmt", ["net", "dot", "pnml", "json"])
def test_emit_is_the_command_text(source_dir, fmt):
    path = source_dir / "models/allreduce_ring_coarse.sgdnet"
    model = sgdnet.compile(path, N=3)
    assert model.emit(fmt) == cli("compile", path, "--set", "N=3", "--emit", fmt).stdout


def test_granularity_override(source_dir):
    path = source_dir / "models/allreduce_ring_fine.sgdnet"
    coarse = sgdnet.compile(path, granularity="coarse", N=2)
    text = cli("compile", path, "--set", "N=2", "--granularity", "coarse").stdout
    # The command adds one comment line on the fine net it reduced; the net is the same.
    assert coarse.emit() == "".join(line for line in text.splitlines(keepends=True)
                                    if "the fine net it reduces" not in line)
    assert coarse.stats.transitions < sgdnet.compile(path, N=2).stats.transitions


def test_stats(source_dir):
    stats = sgdnet.compile(source_dir / "examples/mm1k.sgdnet").stats
    assert (stats.places, stats.transitions, stats.measures) == (1, 2, 3)


@pytest.mark.parametrize("profile", ["resnet18_layers.json", "mlp_trace.json"])
def test_import_profile_is_the_command_text(source_dir, profile):
    path = source_dir / "tests/data/profiles" / profile
    assert sgdnet.import_profile(path) == cli("import-profile", path).stdout
    named = cli("import-profile", path, "--name", "net1").stdout
    assert sgdnet.import_profile(path, "net1") == named


def test_import_profile_errors(source_dir):
    with pytest.raises(sgdnet.ModelError, match="truncated_layers.json"):
        sgdnet.import_profile(source_dir / "tests/data/profiles/truncated_layers.json")
