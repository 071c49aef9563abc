"""Progress bars: widgets in a notebook a person runs, text when chapters run in batch (REGEMB_PROGRESS=text)."""

from __future__ import annotations

import nbformat
import papermill
import pytest

from regemb_utils.infra.progress import VARIABLE, mode, progress_bar

WIDGET = "application/vnd.jupyter.widget-view+json"


def test_mode_follows_the_variable(monkeypatch):
    monkeypatch.delenv(VARIABLE, raising=False)
    assert mode() == "auto"
    monkeypatch.setenv(VARIABLE, "text")
    assert mode() == "text"
    monkeypatch.setenv(VARIABLE, "widgets")
    with pytest.raises(ValueError, match="REGEMB_PROGRESS='widgets'; expected one of auto, text"):
        mode()


def test_text_bar_is_plain_tqdm(monkeypatch):
    from tqdm.std import tqdm

    monkeypatch.setenv(VARIABLE, "text")
    bar = progress_bar(range(3), disable=True)
    assert type(bar) is tqdm
    assert list(bar) == [0, 1, 2]
    manual = progress_bar(total=5, disable=True)
    manual.update(5)
    manual.close()


def _run_in_kernel(tmp_path, monkeypatch, value):
    if value is None:
        monkeypatch.delenv(VARIABLE, raising=False)
    else:
        monkeypatch.setenv(VARIABLE, value)
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell(
            "from regemb_utils.infra.progress import progress_bar\nfor _ in progress_bar(range(3), desc='demo'):\n    pass"
        )
    ]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, tmp_path / "in.ipynb")
    papermill.execute_notebook(tmp_path / "in.ipynb", tmp_path / "out.ipynb", progress_bar=False, kernel_name="python3")
    return nbformat.read(tmp_path / "out.ipynb", as_version=4).cells[0].outputs


def test_batch_runs_save_text_bars(tmp_path, monkeypatch):
    outputs = _run_in_kernel(tmp_path, monkeypatch, "text")
    assert not any(WIDGET in output.get("data", {}) for output in outputs)
    assert "demo: 100%" in "".join(output.get("text", "") for output in outputs)


def test_notebooks_show_widget_bars(tmp_path, monkeypatch):
    outputs = _run_in_kernel(tmp_path, monkeypatch, None)
    assert any(WIDGET in output.get("data", {}) for output in outputs), (
        "no widget progress bar in a notebook: is ipywidgets installed?"
    )
