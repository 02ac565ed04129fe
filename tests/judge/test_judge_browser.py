"""`abcde judge` in a real browser: headless Debian Chromium driven by Selenium against
the real server (a subprocess on 127.0.0.1). A judge played by the examples' ideal
clustering judges by keyboard, undoes, goes back and forth, reloads, survives a killed
server, works in two tabs and beside a second judge; every verdict is on disk when the
page moves on, and `abcde estimate DIR` then equals the estimate from the same verdicts
given as a file. Screenshots go to test-artifacts/ (docs/method.md §12)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from resealed import reseal
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from abcde.judge.assignment import overlap_pairs
from abcde.judge.questions import load_questions

from .judge_support import ARTIFACTS, STARTS, Server, run_cli, start_server, truth_verdict

KEY = {"equivalent": "j", "not_equivalent": "k", "unknown": "u"}
DIGIT = {"equivalent": "1", "not_equivalent": "2", "unknown": "3"}
OPPOSITE = {"equivalent": "not_equivalent", "not_equivalent": "equivalent"}


# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #

def page_pair(d: Any) -> tuple[str, str, str] | None:
    """(pair id, item 1, item 2) of the pair on the page; None on the done page."""
    found = d.find_elements(By.CSS_SELECTOR, "input[name=pair_id]")
    if not found:
        return None
    ids = d.find_elements(By.CSS_SELECTOR, "tr.ids td")
    return found[0].get_attribute("value"), ids[0].text.strip(), ids[1].text.strip()


def press(d: Any, key: str, navigates: bool = True) -> None:
    """Press a key on the page; wait for the next page when the key moves on."""
    old = d.find_element(By.TAG_NAME, "html")
    ActionChains(d).send_keys(key).perform()
    if navigates:
        WebDriverWait(d, 60).until(EC.staleness_of(old))
        WebDriverWait(d, 60).until(
            lambda drv: drv.execute_script("return document.readyState") == "complete")


def log(sample_dir: Path) -> list[dict[str, Any]]:
    path = sample_dir / "verdicts.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def console_errors(d: Any) -> list[dict[str, Any]]:
    return [e for e in d.get_log("browser") if e.get("level") == "SEVERE"]


def judge_by_truth(d: Any, sample_dir: Path, n: int, *, flip: set[str] = frozenset(),
                   digits: bool = False) -> list[tuple[str, str]]:
    """Judge up to n pairs as the ideal clustering says (flipped for pairs in `flip`),
    checking after each that the verdict is the log's last line when the page has
    moved on. Returns (pair, verdict) in order; stops at the done page."""
    given = []
    for k in range(n):
        shown = page_pair(d)
        if shown is None:
            break
        pid, a, b = shown
        verdict = truth_verdict(a, b)
        if pid in flip:
            verdict = OPPOSITE[verdict]
        press(d, (DIGIT if digits and k % 2 else KEY)[verdict])
        last = log(sample_dir)[-1]
        assert (last["pair_id"], last["verdict"]) == (pid, verdict)
        given.append((pid, verdict))
    return given


def screenshot(d: Any, name: str) -> Path:
    """A PNG of the page down to the end of its content (kept in test-artifacts/)."""
    import base64

    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    bottom = d.execute_script(
        "return Math.max(...[...document.querySelectorAll('main, aside, #help')]"
        ".filter(e => e.offsetParent !== null || getComputedStyle(e).position === 'fixed')"
        ".map(e => e.getBoundingClientRect().bottom + window.scrollY));")
    width = d.execute_script("return document.documentElement.clientWidth")
    shot = d.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": int(bottom) + 16, "scale": 1}})
    path.write_bytes(base64.b64decode(shot["data"]))
    assert path.stat().st_size > 10_000
    return path


def estimate_json(sample_dir: Path, *args: str) -> dict[str, Any]:
    run = run_cli("estimate", str(sample_dir), "--format", "json", *args)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def final_verdicts(sample_dir: Path) -> dict[str, dict[str, str]]:
    """judge → pair → verdict, replaying the log by hand (latest line wins, null
    retracts): the reference for what the server and the estimate must see."""
    out: dict[str, dict[str, str]] = {}
    for r in log(sample_dir):
        mine = out.setdefault(r["judge"], {})
        if r["verdict"] is None:
            mine.pop(r["pair_id"], None)
        else:
            mine[r["pair_id"]] = r["verdict"]
    return out


def majority(verdicts: dict[str, dict[str, str]]) -> dict[str, str]:
    votes: dict[str, list[str]] = {}
    for pairs in verdicts.values():
        for p, v in pairs.items():
            votes.setdefault(p, []).append(v)
    out = {}
    for p, vs in votes.items():
        eq, ne = vs.count("equivalent"), vs.count("not_equivalent")
        out[p] = "equivalent" if eq > ne else "not_equivalent" if ne > eq else "unknown"
    return out


def assert_estimate_equals_file(sample_dir: Path, tmp_path: Path) -> dict[str, Any]:
    """`abcde estimate DIR` (the log) gives the same metrics as `--judgements` with the
    same verdicts written as a plain file."""
    sid = load_questions(sample_dir).sample_id
    resolved = majority(final_verdicts(sample_dir))
    path = tmp_path / "judged.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["pair_id", "sample_id", "verdict"])
        for p, v in sorted(resolved.items()):
            w.writerow([p, sid, v])
    from_log = estimate_json(sample_dir)
    from_file = estimate_json(sample_dir, "--judgements", str(path))
    judging = from_log.pop("judging")
    # the file names the pairs it has no row for (a log's unjudged pairs are its progress)
    pairs = load_questions(sample_dir).questions
    missing = sorted(set(pairs) - set(resolved), key=int)
    notes = from_file.pop("notes", [])
    assert notes == ([] if not missing else [
        f"{len(missing)} of the sample's {len(pairs)} pairs have no row in {path} and count "
        f"as unknown (pair ids {', '.join(missing[:5])}{', …' if len(missing) > 5 else ''})"])
    assert from_log == from_file
    return judging


# --------------------------------------------------------------------------- #
# Tests
# --------------------------------------------------------------------------- #

def test_twenty_pairs_by_keyboard_undo_back_forward_reload(
        sample_dir: Path, servers: list[Server], browser_factory: Any,
        tmp_path: Path) -> None:
    server = start_server(sample_dir, "--judge", "ana", "--image-col", "thumb",
                          "--link-col", "page")
    servers.append(server)
    d = browser_factory()
    d.get(server.url)
    assert "/pair/" in d.current_url
    given = judge_by_truth(d, sample_dir, 20, digits=True)
    assert len(given) == 20 and len({p for p, _ in given}) == 20
    assert d.find_element(By.ID, "progress-text").text == "20 / 40 judged"

    # undo: the last verdict is retracted (a null line) and its pair shown again
    last_pid = given[-1][0]
    press(d, "z")
    assert page_pair(d)[0] == last_pid
    retraction = log(sample_dir)[-1]
    assert (retraction["judge"], retraction["pair_id"], retraction["verdict"]) == \
        ("ana", last_pid, None)
    assert not d.find_elements(By.ID, "current")
    assert d.find_element(By.ID, "progress-text").text == "19 / 40 judged"
    press(d, Keys.BACKSPACE)  # undo again, with the other key
    assert page_pair(d)[0] == given[-2][0]
    assert final_verdicts(sample_dir)["ana"] == dict(given[:-2])
    judge_by_truth(d, sample_dir, 2)  # judge both again
    assert final_verdicts(sample_dir)["ana"] == dict(given)

    # back and forward: earlier pairs show the verdict given
    here = page_pair(d)[0]
    press(d, "h")
    assert page_pair(d)[0] == given[-1][0]
    assert d.find_element(By.ID, "current").text.startswith(
        f"Your verdict: {given[-1][1].replace('_', ' ')}")
    press(d, Keys.ARROW_LEFT)
    assert page_pair(d)[0] == given[-2][0]
    press(d, "l")
    press(d, Keys.ARROW_RIGHT)
    assert page_pair(d)[0] == here

    # the keys: ? shows them, Esc hides them
    help_box = d.find_element(By.ID, "help")
    assert not help_box.is_displayed()
    press(d, "?", navigates=False)
    assert help_box.is_displayed() and "undo your last verdict" in help_box.text
    screenshot(d, "judge-help.png")
    press(d, Keys.ESCAPE, navigates=False)
    assert not help_box.is_displayed()

    # reload and a fresh visit resume at the first pair not judged
    d.refresh()
    assert page_pair(d)[0] == here
    d.get(server.url)
    assert page_pair(d)[0] == here and here not in dict(given)
    screenshot(d, "judge.png")
    assert console_errors(d) == []
    assert len(log(sample_dir)) == 20 + 2 + 2

    judging = assert_estimate_equals_file(sample_dir, tmp_path)
    assert judging["judges"] == {"ana": 20} and judging["retractions"] == 2


def test_kill_the_server_mid_round_and_restart(
        sample_dir: Path, servers: list[Server], browser_factory: Any,
        tmp_path: Path) -> None:
    first = start_server(sample_dir, "--judge", "ana")
    servers.append(first)
    d = browser_factory()
    d.get(first.url)
    given = judge_by_truth(d, sample_dir, 6)
    first.proc.kill()  # SIGKILL: no shutdown of any kind
    first.proc.wait(10)
    assert [(r["pair_id"], r["verdict"]) for r in log(sample_dir)] == given

    second = start_server(sample_dir, "--judge", "ana")
    servers.append(second)
    assert "6 of 40 pairs judged" in "".join(second.output)
    assert second.token != first.token
    d.get(f"{second.base}/?token={first.token}")  # the old token is dead
    assert "403" in d.find_element(By.TAG_NAME, "body").text
    d.get(second.url)
    pid = page_pair(d)[0]
    assert pid not in dict(given)
    more = judge_by_truth(d, sample_dir, 4)
    assert [(r["pair_id"], r["verdict"]) for r in log(sample_dir)] == given + more
    assert len({p for p, _ in given + more}) == 10
    errors = [e for e in console_errors(d) if "403" not in e.get("message", "")]
    assert errors == []
    assert_estimate_equals_file(sample_dir, tmp_path)


def test_two_tabs_of_one_judge_lose_nothing(
        sample_dir: Path, servers: list[Server], browser_factory: Any) -> None:
    server = start_server(sample_dir, "--judge", "ana")
    servers.append(server)
    d = browser_factory()
    d.get(server.url)
    one = d.current_window_handle
    p1 = page_pair(d)
    d.switch_to.new_window("tab")
    d.get(server.url)
    two = d.current_window_handle
    assert page_pair(d) == p1  # both tabs show the first pair
    press(d, "j")
    p2 = page_pair(d)
    d.switch_to.window(one)  # the first tab still shows p1: answer it there too
    press(d, "k")
    assert page_pair(d)[0] == p2[0]  # moves on to the first pair not judged
    d.switch_to.window(two)
    press(d, "u")
    assert [(r["pair_id"], r["verdict"]) for r in log(sample_dir)] == \
        [(p1[0], "equivalent"), (p1[0], "not_equivalent"), (p2[0], "unknown")]
    assert final_verdicts(sample_dir)["ana"] == {p1[0]: "not_equivalent",
                                                 p2[0]: "unknown"}


def test_two_judges_at_once_with_overlap_then_agreement(
        sample_dir: Path, servers: list[Server], browser_factory: Any,
        tmp_path: Path) -> None:
    """Ana and Bo judge at the same time on one directory, each through their own
    server and browser, with --overlap 0.25: the ten shared pairs get both verdicts,
    every other pair at least one; Bo contradicts the truth on some shared pairs, and
    `abcde estimate` reports the agreement (checked against scikit-learn) and the
    contested pairs, and equals the estimate from the majority verdicts as a file."""
    from sklearn.metrics import cohen_kappa_score

    sample = load_questions(sample_dir)
    shared = overlap_pairs(sample.sample_id, sample.pair_ids, 0.25)
    assert len(shared) == 10
    flip = set(sorted(shared)[:3])
    ana = start_server(sample_dir, "--judge", "ana", "--overlap", "0.25")
    bo = start_server(sample_dir, "--judge", "bo", "--overlap", "0.25")
    servers += [ana, bo]
    da, db = browser_factory(), browser_factory()
    da.get(ana.url)
    db.get(bo.url)
    for _ in range(60):
        a = judge_by_truth(da, sample_dir, 1)
        b = judge_by_truth(db, sample_dir, 1, flip=flip)
        if not a and not b:
            break
    assert page_pair(da) is None and page_pair(db) is None  # both on the done page
    assert "Nothing left for you to judge" in da.page_source
    screenshot(da, "judge-done.png")
    lines = (sample_dir / "verdicts.jsonl").read_text().splitlines()
    assert all(json.loads(x) for x in lines)  # every line whole
    final = final_verdicts(sample_dir)
    assert shared <= set(final["ana"]) and shared <= set(final["bo"])
    assert set(final["ana"]) | set(final["bo"]) == set(sample.pair_ids)
    both = sorted(set(final["ana"]) & set(final["bo"]), key=int)
    judging = assert_estimate_equals_file(sample_dir, tmp_path)
    agreement = judging["agreement"]
    assert agreement["pairs"] == len(both) >= 10
    assert agreement["kappa_kind"] == "cohen"
    expected = cohen_kappa_score([final["ana"][p] for p in both],
                                 [final["bo"][p] for p in both])
    assert agreement["kappa"] == pytest.approx(expected, abs=1e-12)
    contested = [p for p in both if final["ana"][p] != final["bo"][p]]
    assert judging["contested_pairs"] == len(contested) >= 3
    assert judging["ties"] == len(contested)  # two judges: every contested pair ties
    assert "ABCDE §5.8" in judging["note"]
    for d in (da, db):
        assert console_errors(d) == []


def test_the_page_images_links_highlights_and_estimates_panel(
        sample_dir: Path, servers: list[Server], browser_factory: Any) -> None:
    server = start_server(sample_dir, "--judge", "ana", "--image-col", "thumb",
                          "--link-col", "page", "--show-estimates")
    servers.append(server)
    d = browser_factory()
    d.get(server.url)
    judge_by_truth(d, sample_dir, 12)
    images = d.find_elements(By.CSS_SELECTOR, "table.items img")
    assert len(images) == 2
    for img in images:  # served by the loopback image server, really loaded
        WebDriverWait(d, 60).until(lambda drv, img=img: drv.execute_script(
            "return arguments[0].complete && arguments[0].naturalWidth", img) == 160)
    links = d.find_elements(By.CSS_SELECTOR, "table.items a[href^='https://images.example/']")
    assert len(links) == 2
    assert all(a.get_attribute("rel") == "noopener noreferrer" for a in links)
    rows = d.find_elements(By.CSS_SELECTOR, "table.items tbody tr:not(.ids)")
    colours = {r.get_attribute("class"): r.find_element(By.TAG_NAME, "td")
               .value_of_css_property("background-color") for r in rows}
    if "differs" in colours and "same" in colours:
        assert colours["differs"] != colours["same"]
    panel = d.find_element(By.ID, "estimates")
    assert "ΔPrecision" in panel.text and "GoodSplitRate" in panel.text
    assert "ABCDE §5.8" in panel.text
    screenshot(d, "judge-estimates.png")
    assert console_errors(d) == []


def test_the_panel_shows_the_sequences_and_the_stop_signal(
        sample_dir: Path, servers: list[Server], browser_factory: Any) -> None:
    """`--stop-when` (implying the panel): each metric's confidence sequence beside its
    interval, the pairs judged in stream order, the answers in words; the judge walks
    the stream in blocks of 20, so after 20 verdicts they are a prefix of it."""
    server = start_server(sample_dir, "--judge", "ana", "--stop-when", "bad_merge_rate<1",
                          "--stop-when", "delta_precision>0")
    servers.append(server)
    d = browser_factory()
    d.get(server.url)
    given = judge_by_truth(d, sample_dir, 20)
    assert sorted(int(p) for p, _ in given) == list(range(1, 21))
    d.get(server.url)
    panel = d.find_element(By.ID, "estimates")
    assert "sequence" in panel.text and "20 of 40 pairs judged in stream order" in panel.text
    signals = [e.text for e in panel.find_elements(By.CSS_SELECTOR, "p.signal")]
    assert signals[0] == "BadMergeRate < 100%: yes, stop"
    assert signals[1].startswith("ΔPrecision > 0: ")
    screenshot(d, "judge-stop-signal.png")
    assert console_errors(d) == []


def test_a_directory_name_with_a_bidi_control_leaves_the_panels_error_in_order(
        base_sample: Path, tmp_path: Path, servers: list[Server],
        browser_factory: Any) -> None:
    """The panel's estimate fails naming the sample's directory, whose name holds a
    RIGHT-TO-LEFT OVERRIDE: the words after it still read left to right (the name is
    isolated, as the page's other user values are)."""
    from .test_judge_http import damaged_rlo_sample

    where = damaged_rlo_sample(base_sample, tmp_path)
    server = start_server(where, "--judge", "ana", "--show-estimates")
    servers.append(server)
    d = browser_factory()
    d.get(server.url)
    judge_by_truth(d, where, 2)
    error = d.find_element(By.CSS_SELECTOR, "#estimates p.muted")
    assert error.get_attribute("textContent").startswith(f"{where}: manifest slices by")
    lefts = d.execute_script(STARTS, error, ["manifest", "slices", "by"])
    assert lefts == sorted(lefts) and len(set(lefts)) == 3, lefts
    screenshot(d, "judge-estimates-error-rlo.png")
    assert console_errors(d) == []


def test_a_long_value_leaves_the_verdict_buttons_on_screen(
        tmp_path: Path, servers: list[Server], browser_factory: Any) -> None:
    """A 3000-character attribute value (words, and one unbroken run) scrolls in its own
    bounded box: in a 1280×800 window the three verdict buttons are on screen without
    scrolling the page, and the value is whole (not cut)."""
    from abcde.sampling.pairs import sample_pairs

    from .judge_support import EXAMPLES

    long_words, long_run = ("word " * 600).strip() + "!", "x" * 3000
    attributes = tmp_path / "attributes.csv"
    with (EXAMPLES / "attributes.csv").open(newline="") as src, \
            attributes.open("w", newline="") as dst:
        reader = csv.DictReader(src)
        writer = csv.DictWriter(dst, [*(reader.fieldnames or []), "note", "blob"])
        writer.writeheader()
        for row in reader:
            writer.writerow({**row, "note": long_words, "blob": long_run})
    where = tmp_path / "long"
    sample_pairs(str(EXAMPLES / "base.csv"), str(EXAMPLES / "exp.csv"),
                 str(EXAMPLES / "weights.csv"), attributes=str(attributes), budget=10,
                 seed=5, out=where)
    server = start_server(where, "--judge", "ana")
    servers.append(server)
    d = browser_factory()
    d.set_window_size(1280, 800)
    d.get(server.url)
    WebDriverWait(d, 60).until(lambda drv: drv.find_elements(By.CSS_SELECTOR,
                                                             "button.verdict"))
    width, height = d.execute_script("return [innerWidth, innerHeight]")
    assert width <= 1280 and height <= 800
    assert d.execute_script("return scrollY") == 0
    buttons = d.find_elements(By.CSS_SELECTOR, "button.verdict")
    assert len(buttons) == 3
    for b in buttons:
        box = d.execute_script("const r = arguments[0].getBoundingClientRect();"
                               "return [r.left, r.top, r.right, r.bottom]", b)
        assert 0 <= box[0] < box[2] <= width and 0 <= box[1] < box[3] <= height, box
    values = [v for v in d.find_elements(By.CSS_SELECTOR, "table.items bdi.value")
              if len(v.get_attribute("textContent")) == 3000]
    assert len(values) == 4  # note and blob of both items, whole
    for v in values:  # each in a box shorter than its text, which scrolls
        assert d.execute_script("return arguments[0].scrollHeight > "
                                "arguments[0].clientHeight + 100", v)
    ARTIFACTS.mkdir(exist_ok=True)
    d.save_screenshot(str(ARTIFACTS / "judge-long-value.png"))  # the window, as seen
    first = page_pair(d)
    press(d, "j")  # the keys still work
    assert page_pair(d) != first and log(where)[-1]["verdict"] == "equivalent"
    assert console_errors(d) == []


CONTRAST = """
function rgb(s) { const m = s.match(/[\\d.]+/g).map(Number); return m.length > 3 ? m : [...m, 1]; }
function lum(c) {
  const [r, g, b] = c.slice(0, 3).map(v => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const el = arguments[0];
let bg = null;
for (let e = el; e && !bg; e = e.parentElement) {  // the first background that is painted
  const c = rgb(getComputedStyle(e).backgroundColor);
  if (c[3] > 0) { bg = c; }
}
const fg = rgb(getComputedStyle(el).color);
const [a, b] = [lum(fg), lum(bg || [255, 255, 255, 1])].sort((x, y) => y - x);
return (a + 0.05) / (b + 0.05);
"""


def test_the_chosen_buttons_key_is_readable(sample_dir: Path, servers: list[Server],
                                            browser_factory: Any) -> None:
    """Once a verdict is given its button is filled and its text turns white; the key
    hint inside kept its light grey background, so it was white on light grey (contrast
    1.1:1, unreadable in the screenshot)."""
    server = start_server(sample_dir, "--judge", "ana")
    servers.append(server)
    d = browser_factory()
    d.get(server.url)
    pid = page_pair(d)[0]
    for key, verdict in (("j", "equivalent"), ("k", "not_equivalent"), ("u", "unknown")):
        d.get(server.url.replace("/?", f"/pair/{pid}?"))
        press(d, key)
        d.get(server.url.replace("/?", f"/pair/{pid}?"))
        button = d.find_element(By.CSS_SELECTOR, f"button.{verdict}.chosen")
        for el in (button, button.find_element(By.TAG_NAME, "kbd")):
            ratio = d.execute_script(CONTRAST, el)
            assert ratio >= 3, (verdict, el.tag_name, ratio)
    screenshot(d, "judge-chosen.png")


def test_line_breaks_and_spaces_of_a_value_are_shown(
        sample_dir: Path, servers: list[Server], browser_factory: Any) -> None:
    """Two values that differ only in a line break or a run of spaces are marked as
    differing, and now look different: the page showed "12 Main St\\nSpringfield" and
    "12 Main St Springfield" alike on one line (HTML collapses white space)."""
    path = sample_dir / "questions.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    for r in rows:
        r["country_1"], r["country_2"] = "12 Main St\nSpringfield", "12  Main St Springfield"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reseal(path.parent, path.name)
    server = start_server(sample_dir, "--judge", "ana")
    servers.append(server)
    d = browser_factory()
    d.get(server.url)
    row = WebDriverWait(d, 60).until(lambda drv: [
        tr for tr in drv.find_elements(By.CSS_SELECTOR, "table.items tbody tr")
        if tr.find_element(By.TAG_NAME, "th").text.startswith("country")])[0]
    assert "differs" in row.get_attribute("class").split()
    shown = [td.text for td in row.find_elements(By.TAG_NAME, "td")]  # as rendered
    assert shown == ["12 Main St\nSpringfield", "12  Main St Springfield"]


def test_the_keys_open_on_the_done_page(sample_dir: Path, servers: list[Server],
                                        browser_factory: Any) -> None:
    """`?` shows the keys on every page: on the done page it did nothing (the key was
    tied to the pair page's Keys button), while the page's own moves have keys too."""
    path = sample_dir / "questions.jsonl"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:2]))
    reseal(path.parent, path.name)
    server = start_server(sample_dir, "--judge", "ana")
    servers.append(server)
    d = browser_factory()
    d.get(server.url)
    judge_by_truth(d, sample_dir, 2)
    assert page_pair(d) is None and "Nothing left for you to judge" in d.page_source
    help_box = d.find_element(By.ID, "help")
    assert not help_box.is_displayed()
    press(d, "?", navigates=False)
    assert help_box.is_displayed() and "undo your last verdict" in help_box.text
    screenshot(d, "judge-done-help.png")
    press(d, Keys.ESCAPE, navigates=False)
    assert not help_box.is_displayed()
    d.find_element(By.ID, "help-button").click()  # and by the mouse, as on a pair
    assert help_box.is_displayed()
    press(d, "?", navigates=False)
    assert not help_box.is_displayed()
    press(d, "z")  # the page's keys still work: undo shows the last pair again
    assert page_pair(d) is not None and log(sample_dir)[-1]["verdict"] is None
    assert console_errors(d) == []


def test_a_difference_that_does_not_show_is_said(
        sample_dir: Path, servers: list[Server], browser_factory: Any) -> None:
    """Values marked ≠ that render alike (a zero-width space) carry a visible note naming
    the character, under the attribute's name, in a real browser."""
    path = sample_dir / "questions.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    for r in rows:
        r["country_1"], r["country_2"] = "Acme Corp", "Acme\u200b Corp"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reseal(path.parent, path.name)
    server = start_server(sample_dir, "--judge", "ana")
    servers.append(server)
    d = browser_factory()
    d.get(server.url)
    row = WebDriverWait(d, 60).until(lambda drv: [
        tr for tr in drv.find_elements(By.CSS_SELECTOR, "table.items tbody tr")
        if tr.find_element(By.TAG_NAME, "th").text.startswith("country")])[0]
    note = row.find_element(By.CSS_SELECTOR, "th .unseen")
    assert note.is_displayed() and "U+200B ZERO WIDTH SPACE" in note.text
    a, b = (td.text for td in row.find_elements(By.TAG_NAME, "td"))
    assert a == b.replace("\u200b", "")  # they do render alike
    screenshot(d, "judge-unseen-difference.png")
