"""`abcde evaluate` (actual runs against a ground truth) and `abcde uir` (UIR of systems
scored per test case), with their text reports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from abcde.cli._common import handle_errors, input_options
from abcde.errors import InputError
from abcde.text import table, to_json

#: abcde.evaluation.uir.DEFAULT_REL_TOL, written out: importing abcde.evaluation.uir
#: (numpy) would slow every command's start (tests/evaluation/test_cli_evaluate.py checks
#: that the two agree).
DEFAULT_REL_TOL = 1e-9


def _split_actual(spec: str) -> tuple[str | None, str]:
    """'name=path' -> (name, path) unless the whole string is an existing path."""
    if "=" in spec and not Path(spec).exists():
        name, path = spec.split("=", 1)
        if name.strip() and path.strip():
            return name.strip(), path.strip()
    return None, spec


@click.command("evaluate")
@click.option("--truth", required=True, help="Ground truth clustering (CSV/Parquet file or "
              "--db table with item and cluster ids), usually small.")
@click.option("--actual", "actual", required=True, multiple=True,
              help="An actual clustering to evaluate; repeat for several runs. "
                   "NAME=PATH names the run (default: the file name).")
@input_options
@click.option("--attributes", default=None, help="Table of item attributes for slices.")
@click.option("--slice-by", multiple=True, help="Attribute column(s) to slice by: "
              "'a,b' slices by the pair; repeat the option for separate slicings.")
@click.option("--uir-cases", default="truth_cluster", show_default=True,
              help="UIR test cases: truth_cluster, slice:<column> or none.")
@click.option("--uir-metrics", default="precision,recall", show_default=True,
              help="Per-case metrics UIR combines (comma-separated): precision, recall, "
                   "f1, f1_of_overall, accuracy, jaccard_index.")
@click.option("--uir-rel-tol", type=float, default=DEFAULT_REL_TOL, show_default=True,
              help="Per-case scores equal to this relative precision tie in UIR (absorbs "
                   "float noise of summed scores; 0 compares exactly).")
@click.option("--top", type=int, default=10, show_default=True,
              help="How many worst truth/actual clusters and Yandex themes to list, and "
                   "slice rows to print.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Directory for every cluster, slice and Yandex theme of each run.")
@click.option("--out-format", type=click.Choice(["parquet", "csv"]), default="parquet",
              show_default=True)
@click.option("--format", "fmt_", type=click.Choice(["table", "json"]), default="table",
              show_default=True, help="What to print on stdout.")
@handle_errors
def evaluate_cmd(truth: str, actual: tuple[str, ...], weights: str | None,
                 attributes: str | None, slice_by: tuple[str, ...], uir_cases: str,
                 uir_metrics: str, uir_rel_tol: float, item_col: str, cluster_col: str,
                 weight_col: str,
                 missing_weight: float | None, db: str | None, memory_limit: str | None,
                 threads: int | None, top: int, out: str | None, out_format: str,
                 fmt_: str) -> None:
    """Evaluate actual clusterings against a ground truth (pointwise metrics, classic
    metrics, Yandex ECC/BCubed) and compare the runs (deltas, UIR)."""
    from abcde.evaluation.run import evaluate

    if top < 0:
        raise click.BadParameter("must be >= 0", param_hint="--top")
    pairs = [_split_actual(a) for a in actual]
    names = [n for n, _ in pairs]
    result = evaluate(truth, [p for _, p in pairs], weights, names=names,
                      attributes=attributes, slice_by=list(slice_by), uir_cases=uir_cases,
                      uir_metrics=uir_metrics, uir_rel_tol=uir_rel_tol, item_col=item_col,
                      cluster_col=cluster_col, weight_col=weight_col,
                      missing_weight=missing_weight, top=top, out=out, out_format=out_format,
                      db=db, memory_limit=memory_limit, threads=threads)
    doc = result.to_dict()
    click.echo(to_json(doc) if fmt_ == "json" else evaluate_text(doc, top))


@click.command("uir")
@click.argument("scores", type=click.Path(dir_okay=False))
@click.option("--metrics", default="precision,recall", show_default=True,
              help="Metrics combined (comma-separated); every system needs each of them "
                   "on every case. Higher must be better. Rows of other metrics are "
                   "ignored. With two metrics, F_alpha is swept over them (alpha weighs "
                   "precision, or else the first one).")
@click.option("--rel-tol", type=float, default=DEFAULT_REL_TOL, show_default=True,
              help="Scores equal to this relative precision count as tied (absorbs float "
                   "noise in computed scores; 0 compares exactly).")
@click.option("--tol", type=float, default=0.0, show_default=True,
              help="Scores within this absolute difference also count as tied.")
@click.option("--format", "fmt_", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@handle_errors
def uir_cmd(scores: str, metrics: str, rel_tol: float, tol: float, fmt_: str) -> None:
    """Unanimous Improvement Ratio between systems scored per test case (Amigó et al.
    2011). SCORES: CSV or JSONL in long format with columns system, case, metric, value."""
    doc = uir_report(scores, [m.strip() for m in metrics.split(",") if m.strip()], tol,
                     rel_tol=rel_tol)
    click.echo(to_json(doc) if fmt_ == "json" else uir_text(doc))


def uir_report(path: str | Path, metrics: list[str], tol: float = 0.0, *,
               rel_tol: float = DEFAULT_REL_TOL) -> dict[str, Any]:
    """UIR matrix (§4.2), reference systems (§6.4), robust improvements (§6.3), mean
    F_α sweep over the two selected metrics (§2.1) and the parametric UIR of each pair
    (§8), from a long score table. Scores equal within ``tol``/``rel_tol`` tie."""
    from abcde.evaluation.uir import (
        UIR_ROBUST_THRESHOLD,
        UirInputError,
        case_differences,
        f_alpha_metrics,
        f_alpha_sweep,
        improved_systems,
        interpret_uir,
        parametric_uir,
        pivot_scores,
        read_scores,
        reference_system,
        uir,
    )

    try:
        if not metrics:
            raise UirInputError("--metrics is empty: UIR needs at least one metric")
        rows = read_scores(path, metrics)
        table_ = pivot_scores(rows, metrics)
        systems = list(table_)
        if len(systems) < 2:
            raise UirInputError(f"UIR compares systems; {path} scores only {systems!r}")
        matrix: dict[Any, dict[Any, float]] = {s: {} for s in systems}
        pairs = []
        for i, a in enumerate(systems):
            matrix[a][a] = 0.0
            for b in systems[i + 1:]:
                res = uir(table_[a], table_[b], metrics, tol=tol, rel_tol=rel_tol)
                matrix[a][b] = res.uir
                matrix[b][a] = -res.uir if res.uir else 0.0
                entry: dict[str, Any] = {
                    "a": a, "b": b, "uir": res.uir, "a_ge_b": res.a_ge_b,
                    "b_ge_a": res.b_ge_a, "ties": res.ties, "biased": res.biased,
                    "n_cases": res.n_cases,
                    "reading": interpret_uir(res, names=(str(a), str(b)))}
                try:
                    diffs = case_differences(table_[a], table_[b], metrics, tol=tol,
                                             rel_tol=rel_tol)
                    entry["parametric_uir"] = parametric_uir(diffs).uir
                except UirInputError as err:
                    entry["parametric_uir"] = None
                    entry["parametric_error"] = str(err)
                pairs.append(entry)
        refs = reference_system(matrix)
        sweep, sweep_note = None, None
        pr = f_alpha_metrics(metrics)
        if pr is None:
            sweep_note = (f"no F_alpha sweep: F_alpha combines two metrics, --metrics has "
                          f"{len(metrics)}")
        else:
            try:
                s = f_alpha_sweep(table_, *pr)
                sweep = {str(k): {f"{a:g}": v for a, v in per.items()} for k, per in s.items()}
            except UirInputError as err:
                sweep_note = f"no F_alpha sweep: {err}"
    except UirInputError as err:
        # read_scores' messages already start with the file name
        named = str(err).startswith(str(path))
        raise InputError(str(err), table=None if named else str(path)) from err
    return {
        "metrics": metrics, "threshold": UIR_ROBUST_THRESHOLD, "rel_tol": rel_tol,
        "tol": tol,
        "uir": {str(a): {str(b): v for b, v in row.items()} for a, row in matrix.items()},
        "pairs": pairs,
        "reference_systems": {str(s): {"reference": str(r.reference), "uir": r.uir,
                                       "tied": [str(t) for t in r.tied]}
                              for s, r in refs.items()},
        "improves": {str(a): [str(b) for b in bs]
                     for a, bs in improved_systems(matrix).items()},
        "f_alpha_metrics": list(pr) if pr else None,
        "f_alpha": sweep,
        "f_alpha_note": sweep_note,
    }


# ------------------------------------------------------------------ text


def _matrix_text(matrix: dict[str, dict[str, float]]) -> str:
    systems = list(matrix)
    rows = [{"UIR(row, col)": a, **{b: matrix[a][b] for b in systems}} for a in systems]
    return table(rows, ["UIR(row, col)", *systems])


def _reference_lines(refs: dict[str, dict[str, Any]], threshold: float) -> list[str]:
    """Each system's reference system (§6.4), or that no system improves it."""
    out = []
    for s, r in refs.items():
        who = " or ".join(str(t) for t in r["tied"])
        tied = ", tied" if len(r["tied"]) > 1 else ""
        if r["uir"] > 0:
            robust = "robust" if r["uir"] >= threshold else "not robust"
            out.append(f"  {s}: {who} (UIR {r['uir']:+.3f} over {s}{tied}, {robust})")
        else:
            out.append(f"  {s}: no system improves it (the highest UIR over it is "
                       f"{r['uir']:+.3f}, by {who})")
    return out


def _improves_lines(improves: dict[str, list[str]], threshold: float) -> list[str]:
    lines = [f"Robust improvements (UIR >= {threshold}; Amigó et al. 2011 Table 7):"]
    lines += [f"  {a} improves {', '.join(bs)}" for a, bs in improves.items() if bs]
    if len(lines) == 1:
        lines.append("  none")
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


def uir_text(doc: dict[str, Any]) -> str:
    thr = doc["threshold"]
    parts = [f"UIR over {', '.join(doc['metrics'])} (robust when >= {thr}; "
             "Amigó et al. 2011 §6.3)", _matrix_text(doc["uir"]), ""]
    for p in doc["pairs"]:
        par = p["parametric_uir"]
        parts.append(f"UIR({p['a']}, {p['b']}) = {p['uir']:+.3f} over {p['n_cases']} cases"
                     + (f", parametric UIR {par:+.3f}" if par is not None else "")
                     + f": {p['reading']}")
    parts += ["", "Reference system of each system (the one improving it most, §6.4):"]
    parts += _reference_lines(doc["reference_systems"], thr)
    parts += ["", *_improves_lines(doc["improves"], thr)]
    sweep = _sweep_lines(doc.get("f_alpha"), doc.get("f_alpha_metrics"),
                         doc.get("f_alpha_note"))
    if sweep:
        parts += ["", *sweep]
    return "\n".join(parts)


def evaluate_text(doc: dict[str, Any], top: int = 10) -> str:
    """The report of `abcde evaluate`; lists (slices, worst clusters and themes) show at
    most `top` rows — every row is in the JSON and under --out."""
    from abcde.evaluation.run import CLASSIC_METRICS, OVERALL_METRICS, YANDEX_METRICS

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
    parts += ["Coverage (metrics are on the items in both)",
              table(cov_rows, list(cov_rows[0])), ""]
    grid("Pointwise metrics (weighted; pointwise paper §3)", OVERALL_METRICS,
         lambda r, k: r["overall"][k])
    grid("Classic metrics (unweighted)", CLASSIC_METRICS, lambda r, k: r["classic"][k])
    ykeys = tuple(f"{m} ({kind})" for kind in ("basic", "optimistic") for m in YANDEX_METRICS)
    grid("Yandex cluster_metrics (unweighted; all truth items)", ykeys,
         lambda r, k: r["yandex"][k.split(" (")[1][:-1]][k.split(" ")[0]])
    for r in runs:
        for slicing in r["slices"]:
            cols = slicing["slice_by"]
            rows = slicing["rows"]
            more = f"; {len(rows) - top} more in the JSON" if len(rows) > top else ""
            parts += [f"{r['name']}: slices by {', '.join(cols)} (largest weight first{more})",
                      table(rows[:top], [*cols, "items", "weight", "precision", "recall",
                                         "f1", "jaccard_distance"]), ""]
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
        parts.append(f"{c['experiment']} vs {c['baseline']}: "
                     + ", ".join(f"Δ{k} {d[k]:+.4f}" for k in ("precision", "recall", "f1")))
        cu = c["uir"]
        if cu and cu.get("value") is not None:
            par = cu["parametric"]["value"]
            parts.append(f"  UIR({c['experiment']}, {c['baseline']}) = {cu['value']:+.3f} over "
                         f"{cu['n_cases']} cases ({u['cases'] if u else ''})"
                         + (f", parametric UIR {par:+.3f}" if par is not None else "")
                         + f": {cu['reading']}")
        elif cu and cu.get("error"):
            parts.append(f"  UIR: {cu['error']}")
    if u and u.get("matrix"):
        excluded = (f"; {u['cases_excluded']} case(s) not held by every run left out"
                    if u["cases_excluded"] else "")
        parts += ["", f"UIR over {u['n_cases']} cases ({u['cases']}; "
                  f"{', '.join(u['metrics'])}{excluded}):", _matrix_text(u["matrix"]), "",
                  "Reference system of each run (the one improving it most, §6.4):"]
        parts += _reference_lines(u["reference_systems"], u["threshold"])
        parts += ["", *_improves_lines(u["improves"], u["threshold"])]
    if u:
        sweep = _sweep_lines(u.get("f_alpha"), u.get("f_alpha_metrics"), u.get("f_alpha_note"))
        if sweep:
            parts += ["", *sweep]
    return "\n".join(parts).rstrip() + "\n"


COMMANDS = (evaluate_cmd, uir_cmd,)
