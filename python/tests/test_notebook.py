"""examples/method_walkthrough.py runs end to end on a synth job and draws its pictures."""

import json
import runpy
import sys

import pytest

from conftest import SOURCE_DIR, cli_json

pytest.importorskip("pandas")
pytest.importorskip("matplotlib")


def test_walkthrough_runs_on_a_synth_job(synth_job, tmp_path, capsys, monkeypatch):
    out = tmp_path / "pictures"
    monkeypatch.setattr(sys, "argv", ["method_walkthrough.py", str(synth_job), str(out)])
    runpy.run_path(str(SOURCE_DIR / "examples" / "method_walkthrough.py"), run_name="__main__")
    printed = capsys.readouterr().out
    for picture in ("density.png", "panorama.png"):
        assert (out / picture).stat().st_size > 1000
    # The portrait prints the CLI's own findings, best first.
    findings = json.loads(cli_json("analyze", synth_job))["findings"]
    assert findings and f"({findings[0]['id']})" in printed
