"""docs/ as a reader meets it: every relative link of the Markdown files resolves (file
and heading), the CLI reference is what `--help` prints today, the Python names,
repository paths and method sections the pages cite exist, and the numbers and JSON keys
the pages quote are those the commands give on examples/."""

from __future__ import annotations

import importlib
import json
import re
import shlex
from pathlib import Path

import cli_reference
import click
import pytest
from click.testing import CliRunner

from abcde.cli import main

ROOT = Path(__file__).resolve().parents[1]

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
DOCS = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in PAGES}
MARKDOWN = [*PAGES, ROOT / "CHANGELOG.md", ROOT / "examples" / "README.md",
            *sorted((ROOT / "benchmarks").glob("*.md"))]
QUALITY = DOCS["docs/quality.md"]


def test_the_cli_reference_is_what_help_prints() -> None:
    """docs/cli.md below its marker is every command's `--help` (`make docs` rewrites it)."""
    page = cli_reference.DOC.read_text(encoding="utf-8")
    assert cli_reference.rendered(page) == page, "docs/cli.md is stale: run `make docs`"
    assert page.count("\n## `abcde ") == len(cli_reference.commands(
        main, click.Context(main, info_name="abcde")))


def _anchors(text: str) -> set[str]:
    """The anchors of a page's headings, as GitHub makes them (lower case, punctuation
    dropped, spaces as hyphens; a repeated heading gets -1, -2, …)."""
    seen: dict[str, int] = {}
    fenced = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    for heading in re.findall(r"^#{1,6} (.+?)\s*$", fenced, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        seen[slug] = seen.get(slug, -1) + 1
        if seen[slug]:
            seen[f"{slug}-{seen[slug]}"] = 0
    return set(seen)


def _prose(text: str) -> str:
    """The text without its fenced code blocks and inline code."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S))


def test_every_relative_link_resolves() -> None:
    wrong = []
    for page in MARKDOWN:
        for target in re.findall(r"\]\(([^)\s]+)\)", _prose(page.read_text(encoding="utf-8"))):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                wrong.append(f"{page.relative_to(ROOT)}: {target}")
            elif anchor and anchor not in _anchors(linked.read_text(encoding="utf-8")):
                wrong.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not wrong, wrong


def test_every_python_name_the_docs_use_exists() -> None:
    """Every `from abcde… import …` line and every `abcde.<name>(` call of the docs
    resolves (README showed `from abcde.impact import impact`, an ImportError: the
    package abcde.impact does not export the function, and `abcde.pairs`, no module)."""
    import abcde

    wrong = []
    for doc, text in DOCS.items():
        for module, names in re.findall(r"^\s*from (abcde[\w.]*) import ([\w, ]+)$", text,
                                        re.M):
            for name in names.split(","):
                if not hasattr(importlib.import_module(module), name.strip()):
                    wrong.append(f"{doc}: from {module} import {name.strip()}")
        for dotted in set(re.findall(r"\babcde((?:\.\w+)+)\(", text)):
            obj: object = abcde
            for i, part in enumerate(dotted.strip(".").split(".")):
                if not hasattr(obj, part):  # a submodule not imported yet
                    prefix = "abcde." + ".".join(dotted.strip(".").split(".")[: i + 1])
                    try:
                        obj = importlib.import_module(prefix)
                    except ImportError:
                        wrong.append(f"{doc}: abcde{dotted}(")
                        break
                else:
                    obj = getattr(obj, part)
            else:
                if not callable(obj):
                    wrong.append(f"{doc}: abcde{dotted}( is not callable")
    assert not wrong, wrong


def test_every_repository_path_the_docs_name_exists() -> None:
    """Paths of the repository the docs point to (`src/…`, `tests/…`, `sql_templates/…`,
    templates as `pairs/fill.sql`) exist: the warehouse page sent readers to
    `src/abcde/dialects.py`, which moved to src/abcde/sql/."""
    missing = []
    for doc, text in {**DOCS, "examples/README.md":
                      (ROOT / "examples" / "README.md").read_text(encoding="utf-8")}.items():
        rooted = re.findall(r"(?<![\w/])((?:src|tests|sql_templates|benchmarks|docs|examples)"
                            r"/[\w./-]*\w)", text)
        templates = re.findall(r"`([\w-]+/[\w/.-]*\.sql)`", text)
        for path in set(rooted):
            if not (ROOT / path).exists():
                missing.append(f"{doc}: {path}")
        for path in set(templates):
            if not ((ROOT / "sql_templates" / path).exists() or (ROOT / path).exists()
                    or path.startswith("dir/")):  # `--out dir` writes dir/impact.sql
                missing.append(f"{doc}: {path}")
    assert not missing, missing


def test_every_method_section_cited_exists() -> None:
    """Every "docs/method.md §x.y" cited in src/, sql_templates/ and the docs names a
    section of docs/method.md (script/cells_key.sql cited §10.5, which does not exist:
    the cells kept between commands are §2.6)."""
    sections = set(re.findall(r"^#{2,4} (\d+(?:\.\d+)*)[ .]", DOCS["docs/method.md"], re.M))
    # the section may follow on the next line of a comment (#, --, //) or after `…`), …
    cite = re.compile(r"method\.md`?\)?,?\s*(?:#|--|//)?\s*§\s*(\d+(?:\.\d+)*)")
    files = [p for d in ("src", "sql_templates") for p in (ROOT / d).rglob("*")
             if p.is_file() and p.suffix in {".py", ".sql", ".js", ".html", ".md", ".j2"}]
    cited, wrong = 0, []
    for path in [*files, *PAGES]:
        for number in cite.findall(path.read_text(encoding="utf-8")):
            cited += 1
            if number not in sections:
                wrong.append(f"{path.relative_to(ROOT)}: docs/method.md §{number}")
    assert cited > 300 and "2.6" in sections, (cited, sorted(sections))
    assert not wrong, wrong


def _indented_blocks(text: str) -> list[str]:
    """The indented (4 spaces) code blocks of a Markdown text, each as one string."""
    return [re.sub(r"^    ", "", b, flags=re.M) for b in
            re.findall(r"(?:^    .*\n(?:\s*\n)?)+", text, re.M)]


def test_the_rehearsal_runs_and_the_human_truth_judges_the_share_quoted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/quality.md's rehearsal (sample-pairs, then estimate --truth examples/ideal.csv)
    runs and the oracle leaves no pair unknown; the human-made examples/truth.csv judges
    about the share of that sample's pairs the page quotes (it said 9%, then 6.5%)."""
    block = next(b for b in _indented_blocks(QUALITY) if "--out rehearsal/" in b)
    commands = block.replace("\\\n", " ").split("abcde ")[1:]
    monkeypatch.chdir(ROOT)
    runner = CliRunner()
    for command in commands:
        argv = [str(tmp_path / "r") if a == "rehearsal/" else a for a in shlex.split(command)]
        result = runner.invoke(main, [*argv, "--format", "json"] if argv[0] == "estimate"
                               else argv)
        assert result.exit_code == 0, result.output
    assert json.loads(result.output)["sample"]["unknown_pairs"] == 0
    judged, unknown = map(int, re.search(
        r"about (\d+)% of a sample's pairs; the\s+other (\d+)% are unknown", QUALITY).groups())
    assert judged + unknown == 100
    doc = json.loads(runner.invoke(main, ["estimate", str(tmp_path / "r"), "--truth",
                                          "examples/truth.csv", "--format", "json"]).output)
    share = doc["sample"]["judged_pairs"] / doc["sample"]["pairs"]
    assert abs(100 * share - judged) < 1, share


def test_the_json_keys_the_docs_list_are_the_ones_written(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/impact.md's list of `abcde impact` JSON keys and docs/quality.md's of `abcde
    simulate`'s rows name every key the commands write (`coverage.weight_in_both` and
    `spread_half_width` were missing), and `overall` exactly."""
    import abcde

    monkeypatch.chdir(ROOT)
    doc = abcde.impact("examples/base.csv", "examples/exp.csv", "examples/weights.csv",
                       attributes="examples/attributes.csv", slice_by="provenance").to_dict()
    listed = DOCS["docs/impact.md"].split("JSON keys: `inputs`", 1)[1].split("\n\n", 1)[0]
    overall = re.search(r"`overall` \(`([^`]+)`\)", listed)
    assert overall and [k.strip() for k in overall.group(1).split(",")] == list(doc["overall"])
    named = set(re.findall(r"\w+", listed)) | {"inputs"}
    assert set(doc) <= named, set(doc) - named
    assert set(doc["coverage"]) <= named, set(doc["coverage"]) - named

    rows = abcde.simulate("examples/base.csv", "examples/exp.csv", "examples/weights.csv",
                          truth="examples/ideal.csv", budgets=[100], replications=2)["rows"]
    sim = QUALITY.split("runs simulated rounds", 1)[1].split("\n\n", 1)[0]
    keys = set(rows[0]) - {"budget", "metric"}
    assert keys <= set(re.findall(r"`(\w+)`", sim)), keys - set(re.findall(r"`(\w+)`", sim))


def test_a_budget_above_the_population_is_refused_with_its_pairs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/quality.md: a budget above the examples' judgeable pairs (the number it
    quotes) is refused at once, with that number."""
    pairs = re.search(r"on the examples,\s+[\d,]+ of the\s+([\d,]+) pairs", QUALITY)
    assert pairs and "refused at once" in QUALITY
    monkeypatch.chdir(ROOT)
    budget = int(pairs.group(1).replace(",", "")) + 1
    result = CliRunner().invoke(main, [
        "sample-pairs", "--base", "examples/base.csv", "--exp", "examples/exp.csv",
        "--weights", "examples/weights.csv", "--budget", str(budget),
        "--out", str(tmp_path / "s")])
    assert result.exit_code == 2
    assert f"only {pairs.group(1)} judgeable pairs" in result.output, result.output
    assert f"--budget to at most {pairs.group(1)}" in result.output, result.output


def test_the_evaluation_numbers_quoted_are_those_of_the_examples(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/evaluation.md's reading of `abcde evaluate` on the examples: recall, precision
    and ECC of base → exp to three decimals (ECC 0.93548 was quoted as 0.936), UIR and
    its counts."""
    import abcde

    text = " ".join(DOCS["docs/evaluation.md"].split("On the example data the Experiment", 1)[1]
                    .split("\n\n", 1)[0].split())
    quoted = dict(re.findall(r"(recall|precision|ECC) ([\d.]+ → [\d.]+)", text))
    uir = re.search(r"UIR\(exp, base\) over the (\d+) truth clusters is only ([\d.]+): (\d+) "
                    r"clusters are handled identically.*?the (\d+) that differ", text)
    assert len(quoted) == 3 and uir, text
    monkeypatch.chdir(ROOT)
    doc = abcde.evaluate("examples/truth.csv", ["examples/base.csv", "examples/exp.csv"],
                         "examples/weights.csv").to_dict()
    base, exp = (r for r in doc["runs"])
    for name, get in (("recall", lambda r: r["overall"]["recall"]),
                      ("precision", lambda r: r["overall"]["precision"]),
                      ("ECC", lambda r: r["yandex"]["basic"]["ecc"])):
        assert quoted[name] == f"{get(base):.3f} → {get(exp):.3f}", name
    pair = doc["comparisons"][0]["uir"]
    assert (pair["n_cases"], f"{pair['value']:.3f}", pair["ties"],
            pair["experiment_ge_baseline"] - pair["ties"]) == (
        int(uir.group(1)), uir.group(2), int(uir.group(3)), int(uir.group(4)))
    assert pair["biased"] == 0 and pair["baseline_ge_experiment"] == pair["ties"]


def test_the_estimate_json_keys_the_docs_list(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    """docs/quality.md lists the keys of every metric of `abcde estimate --format json`
    (the `confidence` key was missing)."""
    import abcde

    monkeypatch.chdir(ROOT)
    abcde.sample_pairs("examples/base.csv", "examples/exp.csv", "examples/weights.csv",
                       budget=100, seed=7, out=tmp_path / "s")
    doc = abcde.estimate(str(tmp_path / "s"), truth="examples/ideal.csv")
    listed = re.search(r"every metric key, each with `([^`]+)`", QUALITY)
    assert listed
    assert [k.strip() for k in listed.group(1).split(",")] == list(doc["delta_precision"])
