"""`abcde report` refuses what it cannot use with exit 2 and a message naming the input,
and writes its file whole or not at all."""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from structures import same

from abcde.cli import main

from .report_support import figures

pytest.importorskip("plotly")


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["report", *args])
    return result.exit_code, result.output


def test_nothing_to_report(tmp_path: Path) -> None:
    code, out = run("--out", str(tmp_path / "r.html"))
    assert code == 2 and "nothing to report" in out and "--impact" in out
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(("content", "message"), [
    ("{not json", "is not JSON ("),
    ("[1, 2]", "is not the JSON output of `abcde impact` as abcde writes it"),
    ("3", "is not the JSON output of `abcde impact` as abcde writes it"),
    ('{"overall": {}}', "is not the JSON output of `abcde impact` as abcde writes it"),
])
def test_bad_documents_are_refused_and_the_old_file_kept(tmp_path: Path, content: str,
                                                        message: str) -> None:
    bad = tmp_path / "impact.json"
    bad.write_text(content)
    out = tmp_path / "r.html"
    out.write_text("the previous report")
    code, text = run("--impact", str(bad), "--out", str(out))
    assert code == 2, text
    assert message in text and str(bad) in text
    assert "Traceback" not in text
    assert out.read_text() == "the previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["impact.json", "r.html"]


def test_a_document_given_to_the_wrong_option_names_the_right_one(
        docs: dict[str, Path], tmp_path: Path) -> None:
    """An estimate's JSON given to --impact was told only 'it has no overall,
    top_clusters' and to give impact's output: the hint now names the command that
    wrote it and its option; a document of no command keeps the old hint."""
    for option, doc in (("--impact", "estimate"), ("--evaluate", "simulate"),
                        ("--simulate", "impact"), ("--estimate", "evaluate")):
        code, text = run(option, str(docs[doc]), "--out", str(tmp_path / "r.html"))
        assert code == 2, text
        assert f"It is the JSON output of `abcde {doc}`: give it to --{doc}." in text, text
    other = tmp_path / "other.json"
    other.write_text('{"matrix": {}}')
    code, text = run("--impact", str(other), "--out", str(tmp_path / "r.html"))
    assert code == 2 and "Run `abcde impact … --format json` again" in text
    assert "It is" not in text
    assert not (tmp_path / "r.html").exists()


def test_missing_file_and_bad_out(docs: dict[str, Path], tmp_path: Path) -> None:
    code, text = run("--impact", str(tmp_path / "nope.json"), "--out", str(tmp_path / "r"))
    assert code == 2 and "--impact" in text and "No such file" in text
    code, text = run("--impact", str(docs["impact"]), "--out", "/proc/x/r.html")
    assert code == 2 and "/proc/x" in text, text
    code, text = run("--estimate", str(docs["estimate"]), "--sample", str(docs["sample"]),
                     "--out", str(tmp_path / "r.html"))
    assert code == 2 and "not both" in text
    code, text = run("--estimate", str(docs["estimate"]), "--truth", str(docs["estimate"]),
                     "--out", str(tmp_path / "r.html"))
    assert code == 2 and "go with --sample" in text


def test_replaces_the_file_whole_with_no_temporary_left(docs: dict[str, Path],
                                                        tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    out.write_text("old")
    code, text = run("--simulate", str(docs["simulate"]), "--out", str(out))
    assert code == 0, text
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


def test_one_plotly_bundle_and_nothing_loaded_from_outside(docs: dict[str, Path],
                                                            tmp_path: Path) -> None:
    """plotly.js is inlined once; no element loads a URL (no src=, no href= but the page's
    own anchors); the Content-Security-Policy lets the page load nothing."""
    import re

    out = tmp_path / "r.html"
    run("--impact", str(docs["impact"]), "--evaluate", str(docs["evaluate"]), "--out",
        str(out))
    page = out.read_text()
    from plotly.offline import get_plotlyjs

    assert page.count(get_plotlyjs()[:200]) == 1
    assert page.count("<script") == 4  # figures, config, plotly.js, the plotting
    head = page[:page.index('<script type="application/json"')]
    assert not re.search(r"\bsrc\s*=", head)
    assert re.findall(r'href="([^"]*)"', head) == ["#impact", "#evaluate"]
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    policy = html.unescape(csp.group(1)) if csp else ""
    assert "default-src 'none'" in policy and "http" not in policy
    json.loads(re.search(r'id="abcde-figures">(.*?)</script>', page, re.S).group(1))


def test_format_html_on_impact_and_evaluate(docs: dict[str, Path]) -> None:
    """`--format html` prints the page of `abcde report` for the command's own result."""
    from .conftest import EXAMPLES, INPUTS, cli

    page = cli("impact", *INPUTS, "--format", "html")
    assert page.startswith("<!DOCTYPE html>")
    doc = json.loads(cli("impact", *INPUTS, "--format", "json"))
    split = figures(page)["impact-split-merge"]["data"][0]
    same(split["x"], [doc["overall"]["split_distance"]])  # two runs: equal to rounding
    page = cli("evaluate", "--truth", str(EXAMPLES / "truth.csv"), "--actual",
               str(EXAMPLES / "exp.csv"), "--format", "html")
    assert "evaluate-runs" in figures(page)


@pytest.mark.parametrize("command", ["impact", "evaluate"])
def test_html_without_plotly_is_refused_before_out_is_written(
        command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--format html` needs plotly: without it the command stops before any work, and
    the results of an earlier run in --out stay as they were (they were replaced, then
    the page failed)."""
    examples = Path(__file__).resolve().parents[2] / "examples"
    args = (["impact", str(examples / "base.csv"), str(examples / "exp.csv")]
            if command == "impact" else
            ["evaluate", "--truth", str(examples / "truth.csv"), "--actual",
             str(examples / "exp.csv")])
    out = tmp_path / "out"
    done = CliRunner().invoke(main, [*args, "--out", str(out), "--out-format", "csv"])
    assert done.exit_code == 0, done.output
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    monkeypatch.setitem(sys.modules, "plotly", None)
    monkeypatch.setitem(sys.modules, "plotly.graph_objects", None)
    other = tmp_path / "other.csv"
    other.write_text("item_id,cluster_id\n" + "".join(f"x{i},1\n" for i in range(3)))
    done = CliRunner().invoke(main, [*args[:-1], str(other), "--out", str(out),
                                     "--out-format", "csv", "--format", "html"])
    assert done.exit_code == 2 and "needs plotly" in done.output, done.output
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_out_dash_prints_the_page_and_writes_no_file(docs: dict[str, Path], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`--out -` is stdout, as for every shell tool: it wrote a file named '-'."""
    monkeypatch.chdir(tmp_path)
    code, out = run("--impact", str(docs["impact"]), "--out", "-")
    assert code == 0, out
    assert list(tmp_path.iterdir()) == []
    assert out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>")
    assert figures(out)["impact-slices-0"]["data"][0]["x"] == [
        r["contribution"] for r in json.loads(docs["impact"].read_text())["slices"][0]["rows"]]


def test_a_directory_given_as_a_document_says_which_file_to_give(
        docs: dict[str, Path], tmp_path: Path) -> None:
    """`--impact DIR` with the directory of `abcde impact --out` (tables, no JSON) got
    click's bare "is a directory"; abcde says what the directory is and which file to
    give. A pair sample given as --estimate is pointed to --sample."""
    from .conftest import INPUTS, cli

    out_dir = tmp_path / "impact-out"
    cli("impact", *INPUTS, "--out", str(out_dir))
    assert out_dir.is_dir()
    code, text = run("--impact", str(out_dir), "--out", str(tmp_path / "r.html"))
    assert code == 2, text
    assert f"--impact {out_dir} is a directory, not the JSON file of `abcde impact`" in text
    assert "abcde impact … --format json > impact.json" in text
    assert "--impact impact.json" in text and "Traceback" not in text
    code, text = run("--estimate", str(docs["sample"]), "--out", str(tmp_path / "r.html"))
    assert code == 2, text
    assert f"--estimate {docs['sample']} is a pair sample directory" in text
    assert f"--sample {docs['sample']}" in text
    assert not (tmp_path / "r.html").exists()
