"""`abcde report` in headless Chromium (tests/conftest.py `browser_factory`): every plot
renders with no console error, the plots in the page hold the JSON's numbers, and the
page makes no request at all — the file loads nothing, not even from itself. Screenshots
go to test-artifacts/ (docs/method.md §13)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.support.ui import WebDriverWait

from .conftest import ROOT, cli
from .report_support import figures

pytest.importorskip("plotly")
ARTIFACTS = ROOT / "test-artifacts"


def screenshot(d: Any, name: str, height: int | None = None) -> Path:
    """A PNG of the page from the top (the whole page unless `height`)."""
    ARTIFACTS.mkdir(exist_ok=True)
    full = d.execute_script("return document.documentElement.scrollHeight")
    width = d.execute_script("return document.documentElement.clientWidth")
    shot = d.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": min(full, height or full),
                 "scale": 1}})
    path = ARTIFACTS / name
    path.write_bytes(base64.b64decode(shot["data"]))
    assert path.stat().st_size > 20_000
    return path


def open_report(d: Any, page: Path) -> None:
    d.get(page.as_uri())
    WebDriverWait(d, 120).until(
        lambda drv: drv.execute_script("return document.body.dataset.plotted") == "yes")


def requests_made(d: Any) -> list[str]:
    """Every resource the page fetched after the document itself (resource timing)."""
    return d.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)")


@pytest.mark.parametrize("parts", [
    ("impact", "sample", "evaluate", "simulate"),
    ("impact",), ("estimate",), ("evaluate",), ("simulate",),
], ids=lambda p: "+".join(p))
def test_report_renders_offline_with_the_json_numbers(parts: tuple[str, ...],
                                                      docs: dict[str, Path], tmp_path: Path,
                                                      browser_factory: Any) -> None:
    out = tmp_path / "report.html"
    args = [a for p in parts for a in (f"--{p}", str(docs[p]))]
    cli("report", *args, "--out", str(out))
    d = browser_factory()
    open_report(d, out)
    logs = d.get_log("browser")
    assert [e for e in logs if e["level"] in ("SEVERE", "WARNING")] == [], logs

    expected = figures(out)
    assert expected
    for fig_id, fig in expected.items():
        # the plot's own data, as plotly holds it in the page, and its drawing
        shown = d.execute_script(
            "const el = document.getElementById(arguments[0]);"
            "return {data: el.data.map(t => ({x: t.x, y: t.y, z: t.z})),"
            " drawn: el.querySelectorAll('.main-svg').length};", fig_id)
        assert shown["drawn"] >= 1, fig_id
        for got, want in zip(shown["data"], fig["data"], strict=True):
            for axis in ("x", "y", "z"):
                if axis in want:
                    assert got[axis] == want[axis], (fig_id, axis)
    name = "report-" + "-".join(parts) + ".png"
    screenshot(d, name)
    if len(parts) > 1:
        screenshot(d, "report-top.png", height=1500)


def test_a_request_would_be_refused_and_seen(docs: dict[str, Path], tmp_path: Path,
                                             browser_factory: Any) -> None:
    """The checks above can fail: a request the page tried would be refused by its
    Content-Security-Policy and logged to the console."""
    out = tmp_path / "report.html"
    cli("report", "--impact", str(docs["impact"]), "--out", str(out))
    d = browser_factory()
    open_report(d, out)
    assert d.get_log("browser") == []
    d.execute_script("const i = new Image(); i.src = 'http://127.0.0.1:9/x.png';"
                     "document.body.appendChild(i); fetch('https://cdn.example/x.js')"
                     ".catch(() => {});")
    seen: list[dict[str, Any]] = []
    WebDriverWait(d, 30).until(lambda drv: seen.extend(drv.get_log("browser")) or seen)
    assert "Content Security Policy" in " ".join(e["message"] for e in seen)



def test_every_tick_of_a_log_axis_reads_as_its_value(docs: dict[str, Path], tmp_path: Path,
                                                     browser_factory: Any) -> None:
    """On the log axes (cluster sizes, budgets, half-widths) each tick's label, as the
    page draws it, is the value at its place: plotly's default labels the ticks between
    powers of ten with one digit ("4" where the axis is at 40, "8" at 0.8)."""
    out = tmp_path / "report.html"
    cli("report", "--impact", str(docs["impact"]), "--simulate", str(docs["simulate"]),
        "--out", str(out))
    d = browser_factory()
    open_report(d, out)
    ticks = d.execute_script(
        "const out = {};"
        "for (const el of document.querySelectorAll('.js-plotly-plot'))"
        "  for (const [k, ax] of Object.entries(el._fullLayout))"
        "    if (/^[xy]axis/.test(k) && ax.type === 'log')"
        "      out[el.id + '.' + k] = ax._vals.map(t => [t.x, t.text]);"
        "return out;")
    assert "impact-sizes.yaxis" in ticks and "simulate-coverage.xaxis" in ticks, list(ticks)
    for axis, shown in ticks.items():
        assert shown, axis
        for exponent, text in shown:
            value = float(text.replace("\u2212", "-"))
            assert value == pytest.approx(10 ** exponent, rel=1e-6), (axis, text, exponent)


def test_values_that_look_like_html_are_drawn_as_they_are(tmp_path: Path,
                                                          browser_factory: Any) -> None:
    """Plotly reads labels as a little HTML: a slice value "<i>" was drawn as nothing,
    "a&amp;b" as "a&b", "<b>x</b>" in bold and an <a href> value as a link out of the
    page. Each tick and hover shows the value as the JSON holds it."""
    from abcde import impact

    values = ["<i>", "a&amp;b", "<b>x</b>", "a<br>b", '<a href="http://example.com/">go</a>']
    same = {k: k // 2 for k in range(10)}
    moved = {k: (k + 1) // 2 for k in range(10)}
    doc = impact(same, moved, attributes={k: {"src": values[k % 5]} for k in range(10)},
                 slice_by="src").to_dict()
    page = tmp_path / "doc.json"
    page.write_text(json.dumps(doc))
    out = tmp_path / "report.html"
    cli("report", "--impact", str(page), "--out", str(out))
    d = browser_factory()
    open_report(d, out)
    shown = d.execute_script(
        "const el = document.getElementById('impact-slices-0');"
        "return {ticks: [...el.querySelectorAll('.ytick text')].map(t => t.textContent),"
        " links: el.querySelectorAll('a').length};")
    assert sorted(shown["ticks"]) == sorted(values), shown
    assert shown["links"] == 0


LINK = '<a href="http://example.com/">go</a>'


def _renamed(doc: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """The document with every run or judge name replaced as `names` says (keys and
    values alike: a name is a key of the UIR matrix, a value of runs[].name)."""
    def walk(v: Any) -> Any:
        if isinstance(v, dict):
            return {names.get(k, k): walk(x) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return names.get(v, v) if isinstance(v, str) else v
    return walk(doc)


def test_run_and_judge_names_that_look_like_html_are_drawn_as_they_are(
        docs: dict[str, Path], tmp_path: Path, browser_factory: Any) -> None:
    """Run names (legends, the UIR matrix's ticks) and judge names (the verdicts' bars,
    the agreement matrix's ticks) are the user's text too: each is drawn as the JSON holds
    it, never read as HTML (an <a href> name was a link out of the page)."""
    runs = {"base": LINK, "exp": "<i>"}
    judges = {"ana": "<b>x</b>", "bo": "a&amp;b"}
    evaluate = _renamed(json.loads(docs["evaluate"].read_text()), runs)
    estimate = json.loads(docs["estimate"].read_text())
    estimate["judging"] = _renamed(estimate["judging"], judges)
    paths = {}
    for name, doc in (("evaluate", evaluate), ("estimate", estimate)):
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(doc))
    out = tmp_path / "report.html"
    cli("report", "--evaluate", str(paths["evaluate"]), "--estimate",
        str(paths["estimate"]), "--out", str(out))
    d = browser_factory()
    open_report(d, out)
    assert [e for e in d.get_log("browser") if e["level"] in ("SEVERE", "WARNING")] == []

    def drawn(fig_id: str) -> dict[str, Any]:
        return d.execute_script(
            "const el = document.getElementById(arguments[0]);"
            "const text = sel => [...el.querySelectorAll(sel)].map(t => t.textContent);"
            "return {legend: text('.legendtext'), x: text('.xtick text'),"
            " y: text('.ytick text'), links: el.querySelectorAll('a').length};", fig_id)

    for fig_id in ("evaluate-runs", "evaluate-classic", "evaluate-f-alpha"):
        shown = drawn(fig_id)
        assert sorted(shown["legend"]) == sorted(runs.values()), (fig_id, shown)
        assert shown["links"] == 0, fig_id
    shown = drawn("evaluate-uir")
    assert sorted(shown["x"]) == sorted(shown["y"]) == sorted(runs.values()), shown
    assert shown["links"] == 0
    for fig_id in ("estimate-judges", "estimate-agreement"):
        shown = drawn(fig_id)
        assert sorted(shown["x"]) == sorted(judges.values()), (fig_id, shown)
        assert shown["links"] == 0, fig_id
    screenshot(d, "report-html-names.png")


TICKS = ("const out = {};"
         "for (const el of document.querySelectorAll('.js-plotly-plot'))"
         "  out[el.id] = {ticks: [...el.querySelectorAll('.xtick text, .ytick text')]"
         "    .map(t => t.textContent), notes: [...el.querySelectorAll('.annotation-text')]"
         "    .map(t => t.textContent), labels: [...el.querySelectorAll('.textpoint text')]"
         "    .map(t => t.textContent)};"
         "return out;")


def test_the_displays_read_honestly_in_chromium(docs: dict[str, Path], tmp_path: Path,
                                                browser_factory: Any) -> None:
    """As Chromium draws them: no tick in plotly's SI style ("800μ"), rates tick in
    percent, two close runs are drawn on an axis to 100% that says it does not start at
    0, with the values beside the dots, a one-budget simulation's half-widths on an axis from 0, and
    the estimates that are not conclusive labelled so. Screenshots: report-zoomed-runs,
    report-one-budget, report-not-conclusive (test-artifacts/)."""
    import copy

    evaluate = json.loads(docs["evaluate"].read_text())
    for run, value in zip(evaluate["runs"], (0.963, 0.978), strict=False):
        run["overall"] = {k: value if k in ("precision", "recall", "f1") else v
                          for k, v in run["overall"].items()}
    simulate = json.loads(docs["simulate"].read_text())
    one = copy.deepcopy(simulate)
    one["budgets"] = [40]
    one["metrics"] = {k: {"40": v["40"]} for k, v in simulate["metrics"].items()}
    pages = {}
    for name, option, doc in (("zoomed-runs", "--evaluate", evaluate),
                              ("one-budget", "--simulate", one),
                              ("not-conclusive", "--estimate", None)):
        path = tmp_path / f"{name}.json"
        if doc is not None:
            path.write_text(json.dumps(doc))
        pages[name] = tmp_path / f"{name}.html"
        cli("report", option, str(path if doc is not None else docs["estimate"]), "--out",
            str(pages[name]))
    d = browser_factory()
    drawn = {}
    for name, page in pages.items():
        open_report(d, page)
        assert [e for e in d.get_log("browser") if e["level"] in ("SEVERE", "WARNING")] == []
        drawn[name] = d.execute_script(TICKS)
        screenshot(d, f"report-{name}.png", height=1400)
    for name, plots in drawn.items():
        for plot, shown in plots.items():
            assert not any("μ" in t or "\u00b5" in t for t in shown["ticks"]), (name, plot)
    runs = drawn["zoomed-runs"]["evaluate-runs"]
    assert all(t.endswith("%") for t in runs["ticks"] if t[0].isdigit()), runs
    # the scores near 1 run to 100%: the axis says it does not start at 0
    assert runs["notes"] and runs["notes"][0].startswith("the axis starts at 9")
    assert {"96.3%", "97.8%"} <= set(runs["labels"])
    half = drawn["one-budget"]["simulate-delta_precision"]
    assert "0%" in half["ticks"] and not half["notes"]
    flagged = [p for p, shown in drawn["not-conclusive"].items()
               if "not conclusive" in shown["labels"]]
    assert "estimate-split_rate" in flagged
