"""The text reports of `abcde evaluate` and `abcde uir`, rendered from their JSON
documents (docs/method.md §4, §5, §9); light: no numpy, no pipeline."""

from __future__ import annotations

from typing import Any

from abcde.evaluation.results import (
    CLASSIC_METRICS,
    MIN_CLUSTERS,
    MIN_LOSS_CLUSTERS,
    OVERALL_METRICS,
    YANDEX_METRICS,
)
from abcde.evaluation.uir import MIN_CASES_FOR_ROBUST
from abcde.text import fmt, table


def _matrix_text(matrix: dict[str, dict[str, float]]) -> str:
    systems = list(matrix)
    rows = [{"UIR(row, col)": a, **{b: matrix[a][b] for b in systems}} for a in systems]
    return table(rows, ["UIR(row, col)", *systems])


def _reference_lines(refs: dict[str, dict[str, Any]], threshold: float,
                     n_cases: int) -> list[str]:
    """Each system's reference system ([UIR] §6.4), or that no system improves it."""
    out = []
    for s, r in refs.items():
        who = " or ".join(str(t) for t in r["tied"])
        tied = ", tied" if len(r["tied"]) > 1 else ""
        if r["uir"] > 0:
            robust = "robust" if r["uir"] >= threshold else "not robust"
            if robust == "robust" and n_cases < MIN_CASES_FOR_ROBUST:
                robust = f"robust by the rule of thumb, but over only {n_cases} case(s)"
            out.append(f"  {s}: {who} (UIR {r['uir']:+.3f} over {s}{tied}, {robust})")
        else:
            out.append(f"  {s}: no system improves it (the highest UIR over it is "
                       f"{r['uir']:+.3f}, by {who})")
    return out


def _improves_lines(improves: dict[str, list[str]], threshold: float,
                    n_cases: int) -> list[str]:
    lines = [f"Robust improvements (UIR >= {threshold}; Amigó et al. 2011 Table 7):"]
    lines += [f"  {a} improves {', '.join(bs)}" for a, bs in improves.items() if bs]
    if len(lines) == 1:
        lines.append("  none")
    elif n_cases < MIN_CASES_FOR_ROBUST:
        lines.append(f"  but over only {n_cases} test case(s), too few for any of these to "
                     f"be robust (a sign test needs {MIN_CASES_FOR_ROBUST}; docs/method.md "
                     "§9.5): add test cases")
    return lines


def _sweep_lines(sweep: dict[str, dict[str, float]] | None, metrics: list[str] | None,
                 note: str | None) -> list[str]:
    if not sweep or not metrics:
        return [note] if note else []
    alphas = list(next(iter(sweep.values())))
    rows = [{"system": s, **per} for s, per in sweep.items()]
    return [f"Mean F_alpha over test cases (alpha weighs {metrics[0]}, 1 - alpha "
            f"{metrics[1]}):",
            table(rows, ["system", *alphas], ["system", *(f"a={a}" for a in alphas)])]


def _parametric_text(value: float | None, error: str | None) -> str:
    """The parametric UIR beside UIR, or why there is none (e.g. one test case: no
    covariance to fit) rather than leaving it out without a word."""
    if value is not None:
        return f", parametric UIR {value:+.3f}"
    return f", no parametric UIR ({error})" if error else ""


_DRAWN = {"size": "with probability proportional to size", "uniform": "uniformly"}


def _interval(v: dict[str, Any], sign: str = "") -> str:
    """estimate [low, high], with '!' when not conclusive."""
    text = f"{v['estimate']:{sign}.4f}"
    if v["low"] is not None:
        text += f" [{v['low']:{sign}.4f}, {v['high']:{sign}.4f}]"
    return text if v["conclusive"] else text + " !"


_NOT_CONCLUSIVE = (f"  !: not conclusive, fewer than {MIN_CLUSTERS:.0f} effective clusters or "
                   f"than {MIN_LOSS_CLUSTERS:.0f} carrying the metric's errors (or the "
                   "difference)")


def _verdict(name: str, deltas: dict[str, dict[str, Any]]) -> str:
    """Which metrics the paired intervals say moved, and which way."""
    moved = [(m, words) for m, words in (
        ("precision", ("more precise", "less precise")),
        ("recall", ("more complete", "less complete")), ("f1", ("higher F1", "lower F1")))
        if deltas[m]["low"] is not None and (deltas[m]["low"] > 0 or deltas[m]["high"] < 0)]
    said = [words[deltas[m]["low"] < 0] + ("" if deltas[m]["conclusive"] else
                                           " (not conclusive)") for m, words in moved]
    return (f"{name}: {', '.join(said)} (the intervals exclude 0)" if said else
            "no difference the intervals can tell from 0")


def uir_text(doc: dict[str, Any]) -> str:
    """`abcde uir`'s report: the matrix, each pair's UIR with its reading and parametric
    UIR, the reference systems, the robust improvements and the F_α sweep."""
    thr = doc["threshold"]
    parts = [f"UIR over {', '.join(doc['metrics'])} (robust when >= {thr}; "
             "Amigó et al. 2011 §6.3)", _matrix_text(doc["matrix"]), ""]
    for p in doc["pairs"]:
        parts.append(f"UIR({p['a']}, {p['b']}) = {p['uir']:+.3f} over {p['n_cases']} cases"
                     + _parametric_text(p["parametric_uir"], p.get("parametric_error"))
                     + f": {p['reading']}")
    parts += ["", "Reference system of each system (the one improving it most, §6.4):"]
    fewest = min((p["n_cases"] for p in doc["pairs"]), default=0)
    parts += _reference_lines(doc["reference_systems"], thr, fewest)
    parts += ["", *_improves_lines(doc["improves"], thr, fewest)]
    sweep = _sweep_lines(doc.get("f_alpha"), doc.get("f_alpha_metrics"),
                         doc.get("f_alpha_note"))
    if sweep:
        parts += ["", *sweep]
    return "\n".join(parts)


def evaluate_text(doc: dict[str, Any], top: int = 10) -> str:
    """`abcde evaluate`'s report: inputs, coverage, the metrics per run, at most `top`
    rows of each list (all of them are in the JSON and under --out), the comparisons and
    the UIR summary."""
    runs = doc["runs"]
    parts = ["Inputs", f"  truth      {doc['inputs']['truth']}"]
    for name, label in doc["inputs"]["actual"].items():
        parts.append(f"  {name:<10} {label}")
    parts.append(f"  weights    {doc['inputs']['weights']}")
    parts.append("")
    names = [r["name"] for r in runs]

    def grid(title: str, keys: tuple[str, ...], get: Any) -> None:
        rows = [{"metric": k, **{r["name"]: get(r, k) for r in runs}} for k in keys]
        parts.extend([title, table(rows, ["metric", *names]), ""])

    cov_rows = []
    for r in runs:
        c = r["coverage"]
        cov_rows.append({"run": r["name"], "items in both": c["items_in_both"],
                         "truth items missing": c["only_in_truth"]["items"],
                         "actual items not in truth": c["only_in_actual"]["items"]})
    parts += ["Coverage (" + ("the runs' whole clusters of the truth's items count"
                              if "population" in runs[0] else
                              "metrics are on the items in both") + ")",
              table(cov_rows, list(cov_rows[0]))]
    for r in runs:
        given = r["coverage"].get("given_missing_weight", {})
        if given.get("items"):
            parts.append(f"  {r['name']}: items without a weights row, given --missing-weight "
                         f"{given['missing_weight']:g}: {fmt(given['items'])} "
                         f"(weight {fmt(given['weight'])})")
    parts.append("")
    if "population" in runs[0]:
        p = runs[0]["population"]
        drawn = _DRAWN.get(p["design"], f"with the probabilities of {p['design']!r}")
        title = (f"Pointwise metrics of the population, from {p['clusters']:,} complete true "
                 f"clusters drawn {drawn} ({p['effective_clusters']:.0f} effective; "
                 f"{p['confidence']:.0%} intervals; docs/method.md §4.4)"
                 + ("" if p["conclusive"] else f"\n  not conclusive: fewer than "
                    f"{MIN_CLUSTERS:.0f} effective clusters"))
        grid(title, OVERALL_METRICS, lambda r, k: _interval(r["population"]["metrics"][k]))
        if not all(v["conclusive"] for r in runs for v in r["population"]["metrics"].values()):
            parts.insert(-1, _NOT_CONCLUSIVE)
    else:
        grid("Pointwise metrics (weighted; pointwise paper §3)", OVERALL_METRICS,
             lambda r, k: r["overall"][k])
    grid("Classic metrics (unweighted)", CLASSIC_METRICS, lambda r, k: r["classic"][k])
    ykeys = tuple(f"{m} ({kind})" for kind in ("basic", "optimistic") for m in YANDEX_METRICS)
    grid("Yandex cluster_metrics (unweighted; all truth items)", ykeys,
         lambda r, k: r["yandex"][k.split(" (")[1][:-1]][k.split(" ")[0]])
    for r in runs:
        for slicing in r.get("population", {}).get("slices", []):
            cols = slicing["slice_by"]
            rows = [{**{c: s[c] for c in cols}, "clusters": s["clusters"],
                     **{m: _interval(s["metrics"][m]) for m in ("precision", "recall", "f1")}}
                    for s in slicing["rows"][:top]]
            parts += [f"{r['name']}: the population by {', '.join(cols)} (largest estimated "
                      "weight first)", table(rows, [*cols, "clusters", "precision", "recall",
                                                     "f1"], keys=cols), _NOT_CONCLUSIVE, ""]
        for slicing in [] if "population" in r else r["slices"]:
            cols = slicing["slice_by"]
            rows = slicing["rows"]
            more = f"; {len(rows) - top} more in the JSON" if len(rows) > top else ""
            parts += [f"{r['name']}: slices by {', '.join(cols)} (largest weight first{more})",
                      table(rows[:top], [*cols, "items", "weight", "precision", "recall",
                                         "f1", "jaccard_distance"], keys=cols), ""]
        for key, title in (("worst_truth_clusters", "worst truth clusters (recall loss)"),
                           ("worst_actual_clusters", "worst actual clusters (precision loss)")):
            if r[key]:
                parts += [f"{r['name']}: {title}",
                          table(r[key], ["cluster_id", "items", "weight", "precision",
                                         "recall", "jaccard_distance", "loss"]), ""]
        themes = r["yandex"].get("worst_themes")
        if themes:
            parts += [f"{r['name']}: Yandex themes with the lowest ECC (basic; all themes "
                      "under --out)",
                      table(themes, ["cluster_id", "items", "clustered_items", "ecc_basic",
                                     "bcp_basic", "bcr", "bcf1_basic", "bcf1_optimistic"],
                            ["cluster_id", "items", "clustered", "ecc", "bcp", "bcr", "bcf1",
                             "bcf1 (opt.)"]), ""]
    u = doc.get("uir")
    for c in doc["comparisons"]:
        d = c["deltas"]["overall"]
        if "population" in c:
            d = c["population"]
            parts.append(f"{c['experiment']} vs {c['baseline']} (paired on the same "
                         "clusters): " + ", ".join(f"Δ{k} {_interval(d[k], '+')}"
                                                   for k in ("precision", "recall", "f1"))
                         + f": {_verdict(c['experiment'], d)}")
        else:
            parts.append(f"{c['experiment']} vs {c['baseline']}: "
                         + ", ".join(f"Δ{k} {d[k]:+.4f}" for k in ("precision", "recall",
                                                                     "f1")))
        cu = c["uir"]
        if cu and cu.get("value") is not None:
            par = cu["parametric"]
            parts.append(f"  UIR({c['experiment']}, {c['baseline']}) = {cu['value']:+.3f} over "
                         f"{cu['n_cases']} cases ({u['cases'] if u else ''})"
                         + _parametric_text(par["value"], par.get("error"))
                         + f": {cu['reading']}")
        elif cu and cu.get("error"):
            parts.append(f"  UIR: {cu['error']}")
    if u and u.get("matrix"):
        excluded = (f"; {u['cases_excluded']} case(s) not held by every run left out"
                    if u["cases_excluded"] else "")
        parts += ["", f"UIR over {u['n_cases']} cases ({u['cases']}; "
                  f"{', '.join(u['metrics'])}{excluded}):", _matrix_text(u["matrix"]), "",
                  "Reference system of each run (the one improving it most, §6.4):"]
        parts += _reference_lines(u["reference_systems"], u["threshold"], u["n_cases"])
        parts += ["", *_improves_lines(u["improves"], u["threshold"], u["n_cases"])]
    if u:
        sweep = _sweep_lines(u.get("f_alpha"), u.get("f_alpha_metrics"), u.get("f_alpha_note"))
        if sweep:
            parts += ["", *sweep]
    return "\n".join(parts).rstrip() + "\n"
