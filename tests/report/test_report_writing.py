"""How the report is written: every store gives a report (independent calls too), certificate
files never collide, and the folder is replaced whole or not at all.

Stores are CSV files of correctness bits, which ``certify experiment report`` reads like a run store.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _store(path: Path, policies: dict[str, np.ndarray]) -> Path:
    """A CSV store of data set ``d``: one row per example and policy, bits b0..b{K-1}."""
    k = next(iter(policies.values())).shape[1]
    lines = ["example_id,dataset,policy," + ",".join(f"b{j}" for j in range(k))]
    for policy, bits in policies.items():
        lines += [f"e{i},d,{policy}," + ",".join(map(str, row)) for i, row in enumerate(bits)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _bits(seed: int, n: int, k: int, a: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    q = rng.beta(a, 1.5, n)
    return (rng.random((n, k)) < q[:, None]).astype(int)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """Two policies whose names reduce to the same letters ('gpt 4', 'gpt_4'), and a store of one policy."""
    pytest.importorskip("matplotlib")
    from certify.report._build import analyze_store, write_report

    d = tmp_path_factory.mktemp("writing")
    two = _store(d / "two.csv", {"gpt 4": _bits(1, 60, 3, 3.0), "gpt_4": _bits(2, 60, 3, 1.5)})
    one = _store(d / "one.csv", {"solo": _bits(3, 60, 3, 2.0)})
    # forecasts are the vote-curve tests' (test_vote_curve_report.py); these are about writing files
    results = {"two": analyze_store(two, step=0.5, forecast=False), "one": analyze_store(one, step=0.5, forecast=False)}
    report = write_report(two, d / "rep", results=results["two"])
    return d, {"two": two, "one": one}, results, report


def test_independent_calls_with_negative_rho_hat_give_a_full_report(tmp_path):
    """rho-hat < 0 (the two-call point beyond the moment space's boundary nu = mu^2): the
    certificates at the point estimate are those of its projection, all mass at mu-hat."""
    pytest.importorskip("matplotlib")
    from certify import load_certificate, verify_certificate

    rng = np.random.default_rng(5)
    bits = (rng.random((200, 4)) < 0.6).astype(int)  # every example alike: the calls are independent
    mu, nu = bits[:, :2].mean(), (bits[:, 0] * bits[:, 1]).mean()
    assert nu < mu * mu  # rho-hat = -0.056: what sampling noise gives for rho = 0
    _store(tmp_path / "calls.csv", {"indep": bits})
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "certify.cli.main", "experiment", "report", "calls.csv", "-o", "rep",
                        "--no-progress", "--no-forecast"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    index = json.loads((tmp_path / "rep" / "certificates" / "index.json").read_text())
    assert len(index) == 8  # budgets 3 and 5, projected and point, lower and upper
    point = [e for e in index if e["interval"] == "point"]
    for entry in point:
        cert = load_certificate(tmp_path / "rep" / "certificates" / entry["file"])
        assert verify_certificate(cert).ok
        assert entry["mu"] == pytest.approx(mu) and entry["nu"] == pytest.approx(mu * mu)
        assert float(cert.value) == pytest.approx(entry["reported"], abs=1e-9)


def test_groups_whose_names_reduce_alike_get_their_own_certificates(stores):
    from certify import load_certificate

    d, _, _, report = stores
    index = json.loads((d / "rep" / "certificates" / "index.json").read_text())
    assert len(index) == report.certificates == 2 * 2 * 4 + 1  # 2 groups x budgets 3, 5 x 4 endpoints + the optimum
    names = [e["file"] for e in index]
    assert len(set(names)) == len(names)
    assert sorted(p.name for p in (d / "rep" / "certificates").iterdir()) == sorted([*names, "index.json"])
    for entry in index:
        cert = load_certificate(d / "rep" / "certificates" / entry["file"])
        assert float(cert.value) == pytest.approx(entry["certified"])
    by_group = {g: {e["file"] for e in index if e["group"] == g and "mixture" not in e["file"]}
                for g in ("d/gpt 4", "d/gpt_4")}
    assert len(by_group["d/gpt 4"]) == len(by_group["d/gpt_4"]) == 8 and not by_group["d/gpt 4"] & by_group["d/gpt_4"]


def test_a_report_over_an_earlier_one_replaces_it_whole(stores, tmp_path):
    """The second store has one policy (no mixture tables, no mixture figure): nothing of the
    first report stays beside its files."""
    from certify.report._build import write_report

    d, paths, results, _ = stores
    shutil.copytree(d / "rep", tmp_path / "rep")
    res = write_report(paths["one"], tmp_path / "rep", results=results["one"])
    index = json.loads((tmp_path / "rep" / "certificates" / "index.json").read_text())
    expected = {"report.md", "report.json", "certificates/index.json", *res.figures,
                *(f"tables/{t}.{ext}" for t in res.tables for ext in ("md", "csv", "tex")),
                *(f"certificates/{e['file']}" for e in index)}
    assert set(_files(tmp_path / "rep")) == expected
    assert "mixture_gain_table" not in res.tables and "figures/mixture_plane.png" not in res.figures
    assert "`d/solo`" in (tmp_path / "rep" / "report.md").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]  # no temporary or earlier folder left


def test_a_failed_report_leaves_the_earlier_one_untouched(stores, tmp_path):
    """A failure after tables and figures are written (here: results without the mixture optima,
    which the certificates step reads last) changes nothing and leaves no partial file."""
    from certify.report._build import write_report

    d, paths, results, _ = stores
    shutil.copytree(d / "rep", tmp_path / "rep")
    before = _files(tmp_path / "rep")
    broken = {k: v for k, v in results["one"].items() if k != "optima"}
    with pytest.raises(KeyError, match="optima"):
        write_report(paths["one"], tmp_path / "rep", results=broken)
    assert _files(tmp_path / "rep") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]
    with pytest.raises(KeyError, match="optima"):
        write_report(paths["one"], tmp_path / "new", results=broken)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


@pytest.mark.parametrize("what", ["a foreign file", "a foreign file in tables", "a file", "a link", "a pipe"])
def test_a_folder_that_is_not_a_report_is_refused_before_the_work(stores, tmp_path, what):
    """Refused before the store is read (the store named here does not exist): nothing is deleted or followed."""
    from certify._files import OutputError
    from certify.report._build import write_report

    d, _, _, _ = stores
    out = tmp_path / "rep"
    if what == "a file":
        out.write_text("mine\n")
        rule = "is a file, not a folder"
    elif what == "a pipe":
        out.mkdir()
        os.mkfifo(out / "report.json")  # never opened for long: a folder holding it is not a report
        rule = r"holds 1 file\(s\) certify did not write there \('report.json'\)"
    elif what == "a link":
        shutil.copytree(d / "rep", tmp_path / "real")
        out.symlink_to("real")
        rule = "is a symbolic link; name the folder itself"
    else:
        shutil.copytree(d / "rep", out)
        mine = out / ("notes.txt" if what == "a foreign file" else "tables/notes.csv")
        mine.write_text("mine\n")
        rule = rf"holds 1 file\(s\) certify did not write there \('{mine.relative_to(out).as_posix()}'\)"
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and not p.is_symlink()}
    with pytest.raises(OutputError, match=rf"^--out '{out}'( is|:)? .*{rule}|{rule}"):
        write_report(tmp_path / "missing.sqlite", out)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and not p.is_symlink()} == before
    assert not list(tmp_path.glob(".certify-*"))


def test_certify_report_names_a_file_without_groups_and_equals_the_experiment_spelling(tmp_path):
    """``certify report FILE`` is the report of any file analyze reads; a file without groups is
    titled by its name (it was titled ``"``"`` with empty cells), and ``certify experiment report``
    writes the same files through the same code."""
    pytest.importorskip("matplotlib")
    bits = _bits(7, 80, 3, 2.0)
    lines = ["example_id," + ",".join(f"c{j}" for j in range(3))] + [f"e{i}," + ",".join(map(str, row))
                                                                     for i, row in enumerate(bits)]
    (tmp_path / "plain.csv").write_text("\n".join(lines) + "\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for command, out in ((["report"], "a"), (["experiment", "report"], "b")):
        r = subprocess.run([sys.executable, "-m", "certify.cli.main", *command, "plain.csv", "-o", out,
                            "--no-progress", "--no-forecast", "--step", "0.5"], cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines()[-1] == f"report: {out}/report.md"
    text = (tmp_path / "a" / "report.md").read_text()
    assert "``" not in text
    assert "`plain.csv` (80 examples, 3 calls per example):" in text
    index = json.loads((tmp_path / "a" / "certificates" / "index.json").read_text())
    assert {e["group"] for e in index} == {"plain.csv"}
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
