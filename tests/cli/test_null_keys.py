"""A NULL slice or group value reads the same everywhere a person sees it: "(none)" in
every command's text table, on the exploration page and in the report's figures; null in
the JSON. It printed "-" (a missing number) in the text tables, "(none)" on the page and
"None" (Python's repr) in estimate's slice names and the report."""

from __future__ import annotations

import csv
import html
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from abcde.cli import main
from abcde.text import NULL_KEY

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NULL_EVERY = 7  # every 7th item's provenance is left empty: NULL when read


def run(*args: str) -> str:
    res = CliRunner().invoke(main, list(args))
    assert res.exit_code == 0, res.output
    return res.output


@pytest.fixture(scope="module")
def attrs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("nullkeys") / "attributes.csv"
    with open(EXAMPLES / "attributes.csv", newline="") as f:
        rows = list(csv.reader(f))
    col = rows[0].index("provenance")
    for k, row in enumerate(rows[1:], 1):
        if k % NULL_EVERY == 0:
            row[col] = ""
    with open(out, "w", newline="") as f:
        csv.writer(f).writerows(rows)
    return out


def labels_of(out: str, title: str, values: set[str]) -> set[str]:
    """The first cells of the rows of the text table whose header line, or the line just
    above it, starts with `title`."""
    lines = out.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith(title))
    if not set(lines[start + 1]) <= {"-", " "}:
        start += 1  # a title line above the header
    got = set()
    for line in lines[start + 2:]:
        if not line.strip():
            break
        got.add(re.split(r" {2,}", line.strip())[0])
    assert got & values, (got, out)
    return got


PROVENANCES = {"crawl", "archive", "upload", "partner"}


def test_impact_text_and_json(attrs: Path) -> None:
    args = ["impact", str(EXAMPLES / "base.csv"), str(EXAMPLES / "exp.csv"),
            "--attributes", str(attrs), "--slice-by", "provenance"]
    got = labels_of(run(*args), "By provenance", PROVENANCES)
    assert got == PROVENANCES | {NULL_KEY}
    doc = json.loads(run(*args, "--format", "json"))
    assert None in {r["provenance"] for r in doc["slices"][0]["rows"]}


def test_explore_text_and_page(attrs: Path, tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from abcde.explorer.app import explore_app
    from abcde.server.app import allowed_hosts

    sample = tmp_path / "items.parquet"
    run("sample-items", str(EXAMPLES / "base.csv"), str(EXAMPLES / "exp.csv"),
        "--attributes", str(attrs), "--size", "400", "--out", str(sample))
    out = run("explore", str(sample), "--group-by", "provenance", "--top", "0")
    assert labels_of(out, "provenance", PROVENANCES) == PROVENANCES | {NULL_KEY}
    token = "t" * 43
    client = TestClient(explore_app(sample, token, allowed_hosts("127.0.0.1", 8000)),
                        base_url="http://127.0.0.1:8000")
    page = client.get("/", params={"token": token, "group_by": "provenance", "top": "200"})
    body = page.text.split("<tbody>")[1].split("</tbody>")[0]
    keys = {html.unescape(c) for c in re.findall(r'<td class="key">(.*?)</td>', body)}
    assert keys == PROVENANCES | {NULL_KEY}


def test_estimate_and_report_slices(attrs: Path, tmp_path: Path) -> None:
    pairs = tmp_path / "pairs"
    run("sample-pairs", str(EXAMPLES / "base.csv"), str(EXAMPLES / "exp.csv"),
        "--attributes", str(attrs), "--slice-by", "provenance", "--budget", "300",
        "--out", str(pairs))
    out = run("estimate", str(pairs), "--truth", str(EXAMPLES / "truth.csv"))
    names = labels_of(out, "per slice", {f"provenance={p}" for p in PROVENANCES})
    assert f"provenance={NULL_KEY}" in names and "provenance=None" not in names
    est = tmp_path / "estimate.json"
    est.write_text(run("estimate", str(pairs), "--truth", str(EXAMPLES / "truth.csv"),
                       "--format", "json"))
    assert None in {e["slice"]["provenance"] for e in json.loads(est.read_text())["slices"]}

    from abcde.report.figures import estimate_section

    section = estimate_section(json.loads(est.read_text()), str(est))
    ys = {y for f in section.figures if f.id.startswith("estimate-slices")
          for trace in f.figure["data"] for y in trace.get("y", [])}
    assert NULL_KEY in ys and "None" not in ys


def test_evaluate_text(attrs: Path) -> None:
    out = run("evaluate", "--truth", str(EXAMPLES / "truth.csv"), "--actual",
              str(EXAMPLES / "exp.csv"), "--attributes", str(attrs), "--slice-by",
              "provenance")
    title = next(line for line in out.splitlines() if "slices by provenance" in line)
    assert labels_of(out, title, PROVENANCES) == PROVENANCES | {NULL_KEY}
