"""Fixtures: synth jobs written once per session, the CLI binary, the corpus."""

import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("TRAINSCOPE_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
BINARY = os.environ.get("TRAINSCOPE_BIN")


def corpus_dir():
    given = os.environ.get("TRAINSCOPE_CORPUS")
    return pathlib.Path(given) if given else SOURCE_DIR.parent / "shared" / "corpus"


def cli(*args, check=True):
    """Runs the trainscope executable (not the module): the reference the module must equal."""
    if not BINARY:
        pytest.skip("TRAINSCOPE_BIN is not set (ctest sets it to the built trainscope)")
    return subprocess.run([BINARY, *map(str, args)], capture_output=True, check=check)


def cli_json(*args):
    """The bytes the CLI writes with --json - for these arguments."""
    return cli(*args, "--json", "-").stdout


@pytest.fixture(scope="session")
def synth_job(tmp_path_factory):
    out = tmp_path_factory.mktemp("synth") / "job"
    cli("synth", "--out", out, "--ranks", "2", "--steps", "3", "--seed", "7")
    return out


@pytest.fixture(scope="session")
def demo_job(tmp_path_factory):
    """The built-in demo job, as scripts/demo.sh writes it (with its report.html beside)."""
    out = tmp_path_factory.mktemp("demo") / "demo-job"
    cli("demo", "--out", out)
    return out


@pytest.fixture(scope="session")
def fused_job(tmp_path_factory):
    out = tmp_path_factory.mktemp("synth_fused") / "job"
    cli("synth", "--out", out, "--ranks", "2", "--steps", "3", "--seed", "7", "--fused", "all")
    return out


@pytest.fixture(scope="session")
def dumps(tmp_path_factory):
    out = tmp_path_factory.mktemp("dumps")
    cli("synth", "--out", out, "--accuracy", "epsilon")
    return out


def corpus_path(relative):
    path = corpus_dir() / relative
    if not path.exists():
        pytest.skip(f"corpus input {relative} not found under {corpus_dir()} (set TRAINSCOPE_CORPUS)")
    return path
