"""The Python module equals the CLI: same documents, same errors, tables that add up."""

import json
import threading

import pytest

import trainscope
from conftest import SOURCE_DIR, cli, cli_json, corpus_path

pd = pytest.importorskip("pandas")
np = pytest.importorskip("numpy")


def test_analyze_document_is_the_cli_json_byte_for_byte(synth_job):
    job = trainscope.analyze(synth_job, threads=2)
    assert job.to_json().encode() == cli_json("analyze", synth_job, "--threads", "2")
    assert job.document["schema"].startswith("trainscope.analysis/")
    assert job.findings, "the synth job plants unfused patterns: there are findings"
    assert job.findings[0]["id"] == json.loads(cli_json("analyze", synth_job))["findings"][0]["id"]


def test_demo_job_as_the_readme_shows(demo_job):
    # README / docs/python.md: trainscope.analyze('build/demo-job').findings[0]['id']
    job = trainscope.analyze(demo_job)
    reference = cli_json("analyze", demo_job)
    assert job.to_json().encode() == reference
    assert job.findings[0]["id"] == json.loads(reference)["findings"][0]["id"]


@pytest.mark.parametrize("relative", [
    "ascend/msinsight-pytorch-2rank-text-level1",
    "kineto/hta_ddp_v100_rank0_ns_resolution",
])
def test_corpus_documents_equal_the_cli(relative):
    path = corpus_path(relative)
    job = trainscope.analyze(path)
    assert job.to_json().encode() == cli_json("analyze", path)


def test_kernel_table_adds_up_to_the_json_counts(synth_job):
    job = trainscope.analyze(synth_job)
    table = job.kernels()
    assert set(table["rank"].unique()) == {r["rank"] for r in job.ranks}
    assert table["name"].dtype == "category" and table["family"].dtype == "category"
    assert table["start_ns"].dtype == np.int64 and table["duration_ns"].dtype == np.int64
    for entry in job.ranks:
        step = entry["selected_step"]
        selected = job.kernels(rank=entry["rank"], step=step)
        counted = next(s for s in entry["steps"] if s["step"] == step)["kernels"]
        assert len(selected) == counted["count"]
        kinds = selected["kind"].value_counts()
        assert kinds.get("compute", 0) == counted["compute_count"]
        assert kinds.get("communication", 0) == counted["communication_count"]


def test_family_times_equal_the_json_families(synth_job):
    job = trainscope.analyze(synth_job)
    families = job.families
    entry = job.ranks[0]
    step = entry["selected_step"]
    table = job.kernels(rank=entry["rank"], step=step)
    compute = table[table["kind"] == "compute"]
    by_family = compute.groupby("family", observed=True)["duration_ns"].sum() / 1000.0
    ours = families[(families["rank"] == entry["rank"]) & (families["step"] == step)]
    assert not ours.empty
    for _, row in ours.iterrows():
        if row["name"] in by_family.index:
            assert by_family[row["name"]] == pytest.approx(row["total_us"], rel=1e-6, abs=0.01)


def test_numeric_columns_share_the_library_memory(synth_job):
    job = trainscope.analyze(synth_job)
    table = job.kernels(rank=job.ranks[0]["rank"])
    column = table["start_ns"].to_numpy()
    # A view over the library's buffer: not writeable, and not owning its data.
    assert not column.flags.writeable
    assert not column.flags.owndata


def test_tables_are_dataframes(synth_job):
    job = trainscope.analyze(synth_job)
    assert isinstance(job.steps, pd.DataFrame) and len(job.steps) == len(job.document["steps_table"]["rows"])
    assert isinstance(job.motifs, pd.DataFrame) and {"rank", "step"} <= set(job.motifs.columns)
    assert isinstance(job.collectives, pd.DataFrame)
    assert isinstance(job.memory, pd.DataFrame)


def test_html_report_is_written(synth_job, tmp_path):
    job = trainscope.analyze(synth_job)
    out = job.html(tmp_path / "report.html")
    text = (tmp_path / "report.html").read_text()
    assert out == tmp_path / "report.html" and text.startswith("<!DOCTYPE html>")


def test_compare_equals_the_cli(synth_job, fused_job):
    document = trainscope.compare(synth_job, fused_job)
    assert document == json.loads(cli_json("compare", synth_job, fused_job))
    assert document["schema"].startswith("trainscope.compare/")


def test_compare_gate_returns_its_verdict_without_raising(synth_job, fused_job):
    # Whatever the gate decides (exit 0, 3 or 4), the document comes back.
    document = trainscope.compare(synth_job, fused_job, gate=True)
    reference = cli("compare", synth_job, fused_job, "--gate", "--json", "-", check=False)
    assert reference.returncode in (0, 3, 4)
    assert document == json.loads(reference.stdout)
    assert document["gate"] is not None


def test_health_equals_the_cli():
    log = SOURCE_DIR / "tests" / "data" / "logs" / "hf_trainer_planted.log"
    assert trainscope.health(log) == json.loads(cli_json("health", log))


def test_accuracy_equals_the_cli(dumps):
    document = trainscope.accuracy(dumps / "base", dumps / "new")
    assert document == json.loads(cli_json("accuracy", dumps / "base", dumps / "new"))


def test_triage_equals_the_cli():
    flight = SOURCE_DIR / "tests" / "data" / "logs" / "flight"
    assert trainscope.triage(flight) == json.loads(cli_json("triage", flight))


def test_errors_carry_the_cli_message_hint_and_exit_code(tmp_path):
    empty = tmp_path / "empty_job"
    empty.mkdir()
    with pytest.raises(trainscope.Error) as raised:
        trainscope.analyze(empty)
    reference = cli("analyze", empty, check=False)
    assert raised.value.exit_code == reference.returncode == 2
    assert raised.value.message in reference.stderr.decode()
    assert raised.value.hint and raised.value.hint in reference.stderr.decode()


def test_a_missing_path_names_itself(tmp_path):
    missing = tmp_path / "no_such_job"
    with pytest.raises(trainscope.Error) as raised:
        trainscope.analyze(missing)
    assert str(missing) in raised.value.message and raised.value.exit_code == 2


def test_cli_warnings_become_python_warnings(tmp_path):
    # Two synth jobs of different shapes under one directory are two runs:
    # the CLI warns (on stderr) and analyses the larger one.
    for name, ranks in (("a", 2), ("b", 1)):
        cli("synth", "--out", tmp_path / name, "--ranks", ranks, "--steps", "2", "--name", name)
    with pytest.warns(RuntimeWarning, match="runs"):
        job = trainscope.analyze(tmp_path)
    assert job.to_json().encode() == cli_json("analyze", tmp_path)


def test_bad_options_raise_usage_errors(synth_job):
    with pytest.raises(trainscope.Error) as raised:
        trainscope.analyze(synth_job, threads=-3)
    assert raised.value.exit_code == 2


def test_kernels_of_an_absent_rank_raise(synth_job):
    job = trainscope.analyze(synth_job)
    with pytest.raises(trainscope.Error):
        job.kernels(rank=99)


def test_threads_run_side_by_side(synth_job):
    reference = trainscope.analyze(synth_job).to_json()
    results = [None] * 4

    def work(i):
        results[i] = trainscope.analyze(synth_job).to_json()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [reference] * 4
