"""`abcde evaluate` (actual runs against a ground truth) and `abcde uir` (UIR of systems
scored per test case), with their text reports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from abcde.cli import handle_errors, input_options
from abcde.errors import InputError
from abcde.report import fmt, table, to_json


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
@click.option("--top", type=int, default=10, show_default=True,
              help="How many worst truth and actual clusters to list.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Directory for every cluster, slice and Yandex theme of each run.")
@click.option("--out-format", type=click.Choice(["parquet", "csv"]), default="parquet",
              show_default=True)
@click.option("--format", "fmt_", type=click.Choice(["table", "json"]), default="table",
              show_default=True, help="What to print on stdout.")
@handle_errors
def evaluate_cmd(truth: str, actual: tuple[str, ...], weights: str | None,
                 attributes: str | None, slice_by: tuple[str, ...], uir_cases: str,
                 uir_metrics: str, item_col: str, cluster_col: str, weight_col: str,
                 missing_weight: float | None, db: str | None, memory_limit: str | None,
                 threads: int | None, top: int, out: str | None, out_format: str,
                 fmt_: str) -> None:
    """Evaluate actual clusterings against a ground truth (pointwise metrics, classic
    metrics, Yandex ECC/BCubed) and compare the runs (deltas, UIR)."""
    from abcde.evaluation import evaluate

    if top < 0:
        raise click.BadParameter("must be >= 0", param_hint="--top")
    pairs = [_split_actual(a) for a in actual]
    names = None
    if any(n is not None for n, _ in pairs):
        from abcde.evaluation import run_names

        stems = run_names([p for _, p in pairs], None)
        names = [n if n is not None else s for (n, _), s in zip(pairs, stems, strict=True)]
    result = evaluate(truth, [p for _, p in pairs], weights, names=names,
                      attributes=attributes, slice_by=list(slice_by), uir_cases=uir_cases,
                      uir_metrics=uir_metrics, item_col=item_col, cluster_col=cluster_col,
                      weight_col=weight_col, missing_weight=missing_weight, top=top,
                      out=out, out_format=out_format, db=db, memory_limit=memory_limit,
                      threads=threads)
    doc = result.to_dict()
    click.echo(to_json(doc) if fmt_ == "json" else evaluate_text(doc))


@click.command("uir")
@click.argument("scores", type=click.Path(dir_okay=False))
@click.option("--metrics", default="precision,recall", show_default=True,
              help="Metrics combined (comma-separated); every system needs each of them "
                   "on every case. Higher must be better.")
@click.option("--tol", type=float, default=0.0, show_default=True,
              help="Differences within tol count as equal.")
@click.option("--format", "fmt_", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@handle_errors
def uir_cmd(scores: str, metrics: str, tol: float, fmt_: str) -> None:
    """Unanimous Improvement Ratio between systems scored per test case (Amigó et al.
    2011). SCORES: CSV or JSONL in long format with columns system, case, metric, value."""
    doc = uir_report(scores, [m.strip() for m in metrics.split(",") if m.strip()], tol)
    click.echo(to_json(doc) if fmt_ == "json" else uir_text(doc))


def uir_report(path: str | Path, metrics: list[str], tol: float = 0.0) -> dict[str, Any]:
    """UIR matrix (§4.2), reference systems (§6.4), robust improvements (§6.3), mean
    F_α sweep (when precision and recall are among the scores, §2.1) and the
    parametric UIR of each pair (§8), from a long score table."""
    from abcde.uir import (
        UIR_ROBUST_THRESHOLD,
        UirInputError,
        case_differences,
        f_alpha_sweep,
        improved_systems,
        parametric_uir,
        pivot_scores,
        read_scores,
        reference_system,
        uir,
    )

    try:
        rows = read_scores(path)
        table_ = pivot_scores(rows, metrics)
        systems = list(table_)
        if len(systems) < 2:
            raise UirInputError(f"UIR compares systems; {path} scores only {systems!r}")
        matrix: dict[Any, dict[Any, float]] = {s: {} for s in systems}
        pairs = []
        for i, a in enumerate(systems):
            matrix[a][a] = 0.0
            for b in systems[i + 1:]:
                res = uir(table_[a], table_[b], metrics, tol=tol)
                matrix[a][b] = res.uir
                matrix[b][a] = -res.uir if res.uir else 0.0
                entry: dict[str, Any] = {
                    "a": a, "b": b, "uir": res.uir, "a_ge_b": res.a_ge_b,
                    "b_ge_a": res.b_ge_a, "ties": res.ties, "biased": res.biased,
                    "n_cases": res.n_cases, "reading": res.reading}
                try:
                    p = parametric_uir(case_differences(table_[a], table_[b], metrics))
                    entry["parametric_uir"] = p.uir
                except UirInputError as err:
                    entry["parametric_uir"] = None
                    entry["parametric_error"] = str(err)
                pairs.append(entry)
        refs = reference_system(matrix)
        metric_names = {r.metric for r in rows}
        sweep = None
        if {"precision", "recall"} <= metric_names:
            s = f_alpha_sweep(rows)
            sweep = {str(k): {f"{a:g}": v for a, v in per.items()} for k, per in s.items()}
    except UirInputError as err:
        raise InputError(str(err), table=str(path)) from err
    return {
        "metrics": metrics, "threshold": UIR_ROBUST_THRESHOLD,
        "uir": {str(a): {str(b): v for b, v in row.items()} for a, row in matrix.items()},
        "pairs": pairs,
        "reference_systems": {str(s): {"reference": str(r.reference), "uir": r.uir,
                                       "tied": [str(t) for t in r.tied]}
                              for s, r in refs.items()},
        "improves": {str(a): [str(b) for b in bs]
                     for a, bs in improved_systems(matrix).items()},
        "f_alpha": sweep,
    }


# ------------------------------------------------------------------ text


def _matrix_text(matrix: dict[str, dict[str, float]]) -> str:
    systems = list(matrix)
    rows = [{"UIR(row, col)": a, **{b: matrix[a][b] for b in systems}} for a in systems]
    return table(rows, ["UIR(row, col)", *systems])


def uir_text(doc: dict[str, Any]) -> str:
    parts = [f"UIR over {', '.join(doc['metrics'])} (robust when >= {doc['threshold']}; "
             "Amigó et al. 2011 §6.3)", _matrix_text(doc["uir"]), ""]
    parts.append("Reference system of each system (the one improving it most):")
    for s, r in doc["reference_systems"].items():
        parts.append(f"  {s}: {r['reference']} (UIR {fmt(r['uir'])})")
    if doc.get("f_alpha"):
        alphas = list(next(iter(doc["f_alpha"].values())))
        rows = [{"system": s, **per} for s, per in doc["f_alpha"].items()]
        parts += ["", "Mean F_alpha over test cases (alpha weights precision):",
                  table(rows, ["system", *alphas], ["system", *(f"a={a}" for a in alphas)])]
    return "\n".join(parts)


def evaluate_text(doc: dict[str, Any]) -> str:
    from abcde.evaluation import CLASSIC_METRICS, OVERALL_METRICS, YANDEX_METRICS

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
        for key, title in (("worst_truth_clusters", "worst truth clusters (recall loss)"),
                           ("worst_actual_clusters", "worst actual clusters (precision loss)")):
            if r[key]:
                parts += [f"{r['name']}: {title}",
                          table(r[key], ["cluster_id", "items", "weight", "precision",
                                         "recall", "jaccard_distance", "loss"]), ""]
    for c in doc["comparisons"]:
        d = c["deltas"]["overall"]
        parts.append(f"{c['experiment']} vs {c['baseline']}: "
                     + ", ".join(f"Δ{k} {d[k]:+.4f}" for k in ("precision", "recall", "f1")))
        u = c["uir"]
        if u and u.get("value") is not None:
            parts.append(f"  UIR({c['experiment']}, {c['baseline']}) = {u['value']:+.3f} over "
                         f"{u['n_cases']} cases: {u['reading']}")
    if doc.get("uir") and doc["uir"].get("matrix"):
        u = doc["uir"]
        parts += ["", f"UIR over {u['cases']} cases ({', '.join(u['metrics'])}):",
                  _matrix_text(u["matrix"])]
        for s, ref in u["reference_systems"].items():
            parts.append(f"  reference system of {s}: {ref['reference']} "
                         f"(UIR {ref['uir']:+.3f})")
    return "\n".join(parts).rstrip() + "\n"


def register_evaluate(group: click.Group) -> None:
    """Add `evaluate` and `uir` to the `abcde` command group."""
    group.add_command(evaluate_cmd)
    group.add_command(uir_cmd)
