"""Small hand-made draw rows and manifests for the unit tests of the quality estimators:
columns pair_id, item_i, item_j, pair_class, label, draw_count, u_over_w (docs/method.md
§7.6), and a manifest of the mixture design (§6.9)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from abcde.sampling.pairs import CLASS_KEYS, DESIGN_VERSION

NAMES = ("pair_id", "item_i", "item_j", "pair_class", "label", "draw_count", "u_over_w")


def draw_rows(*rows: tuple) -> dict[str, list]:
    """Rows (pair_id, item_i, item_j, pair_class, label, draw_count[, u_over_w]) as
    columns; u_over_w defaults to 1 (ΔPrecision's sign and the two populations agree,
    e.g. W_b = U for a split pair) and to 0 for a stable pair with label 0."""
    full = [r if len(r) == 7 else (*r, 0.0 if r[3] == "stable" and r[4] == 0 else 1.0)
            for r in rows]
    return {n: [r[c] for r in full] for c, n in enumerate(NAMES)}


def manifest(u: dict[str, float] | None = None, w: dict[str, float] | None = None, *,
             alpha: float = 0.5, exact: dict[str, float] | None = None,
             kish: float = 1.0, **extra: Any) -> dict[str, Any]:
    """A manifest of the mixture design with the given class totals (class key → total;
    the others 0), every class sampled in proportion to α·u + (1 − α)·w, and an expected
    Kish n_eff of ``kish`` per draw of the class for each target (1: equal importance
    weights; the manifest's kish is per draw of the whole sample, so × q_k)."""
    u = {k: 0.0 for k in CLASS_KEYS} | (u or {})
    w = {k: 0.0 for k in CLASS_KEYS} | (w or {})
    sum_u, sum_w = sum(u.values()) or 1.0, sum(w.values()) or 1.0
    classes = {}
    for k in CLASS_KEYS:
        q = alpha * u[k] / sum_u + (1 - alpha) * w[k] / sum_w
        classes[k] = {"u": u[k], "w": w[k], "q": q,  # q = 0: never drawn, uncovered
                      "kish_u": kish * q if u[k] else 0.0,  # n_design = n·q_k·kish
                      "kish_w": kish * q if w[k] else 0.0,
                      "u_uncovered": 0.0 if q else u[k], "w_uncovered": 0.0 if q else w[k],
                      "judgeable": 10}
    out: dict[str, Any] = {
        "design": {"version": DESIGN_VERSION, "population": "mixture", "alpha": alpha},
        "population": "mixture", "alpha": alpha, "classes": classes,
        "totals": {"u": sum(u.values()), "w": sum(w.values())},
        "exact": {"delta_precision": 0.0, "affected_good_index": 0.0, "u_self": 0.0}
        | (exact or {}),
        "metrics": {"weight": 10.0},
    }
    out.update(extra)
    return out


TOY_MANIFEST = manifest({"split": 0.2, "merge": 0.1, "stable_plus": 0.2},
                        {"split": 0.2, "merge": 0.1, "stable_plus": 0.2},
                        exact={"delta_precision": 0.05, "affected_good_index": 0.1})
"""u = w per class, so every importance weight is 1 (u_over_w = 1, κ = 1)."""

GOOD = [(1, "a", "c", "stable", 1.0, 2), (2, "a", "b", "split", -1.0, 1)]


def many_pairs(n_split: int, n_merge: int, n_stable: int) -> dict[str, list]:
    """n pairs of each class drawn once (ids 1, 2, …)."""
    rows, pid = [], 1
    for cls, n, label in (("split", n_split, -1.0), ("merge", n_merge, 1.0),
                          ("stable", n_stable, 1.0)):
        for _ in range(n):
            rows.append((pid, f"i{pid}", f"j{pid}", cls, label, 1))
            pid += 1
    return draw_rows(*rows)


# --------------------------------------------------------------------------- #
# Random small judged samples (hypothesis)
# --------------------------------------------------------------------------- #

CLASS_OF = {"split": "split", "merge": "merge", "stable_plus": "stable",
            "stable_minus": "stable", "stable_zero": "stable"}
LABEL_OF = {"split": -1.0, "merge": 1.0, "stable_plus": 1.0, "stable_minus": -1.0,
            "stable_zero": 0.0}


@st.composite
def judged_draws(draw: Any, alpha: float = 0.5) -> tuple[dict[str, list], dict[int, str], dict]:
    """Draw rows, verdicts and a consistent manifest of a small random sample.

    Up to 14 pairs of random classes, each drawn 1–4 times, some also as (j, i), with
    u_ij/w_ij from 1 to 6 (0 for stable_zero); verdicts equivalent / not_equivalent /
    unknown or none at all (which counts as unknown). The class totals are positive and
    random, the exact parts too.
    """
    rows: list[tuple] = []
    verdicts: dict[int, str] = {}
    ratio = st.floats(1.0, 6.0, allow_nan=False)
    for pid in range(1, draw(st.integers(0, 14)) + 1):
        # α = 1 never draws stable pairs with u_ij = 0 (docs/method.md §6.9)
        key = draw(st.sampled_from(CLASS_KEYS if alpha < 1 else CLASS_KEYS[:4]))
        cls, label = CLASS_OF[key], LABEL_OF[key]
        u_over_w = 0.0 if key == "stable_zero" else draw(ratio)
        i, j = f"i{pid}", f"j{pid}"
        rows.append((pid, i, j, cls, label, draw(st.integers(1, 4)), u_over_w))
        if draw(st.booleans()):
            rows.append((pid, j, i, cls, label, draw(st.integers(1, 3)), u_over_w))
        verdict = draw(st.sampled_from(["equivalent", "not_equivalent", "unknown", None]))
        if verdict is not None:
            verdicts[pid] = verdict
    weight = st.floats(0.01, 2.0, allow_nan=False)
    u = {k: 0.0 if k == "stable_zero" else draw(weight) for k in CLASS_KEYS}
    w = {k: draw(weight) for k in CLASS_KEYS}
    exact = {"delta_precision": draw(st.floats(-0.5, 0.5)),
             "affected_good_index": draw(st.floats(0.0, 0.5))}
    return draw_rows(*rows), verdicts, manifest(u, w, alpha=alpha, exact=exact,
                                                kish=draw(st.floats(0.05, 1.0)))


def without_classes(
    draws: dict[str, list], man: dict, keys: set[str]
) -> tuple[dict[str, list], dict]:
    """The sample without the rows of the class ``keys``, and a manifest whose totals and
    probability of those classes are 0 (the population has no such pairs)."""
    def key_of(k: int) -> str:
        cls, label = draws["pair_class"][k], draws["label"][k]
        if cls != "stable":
            return cls
        return {1.0: "stable_plus", -1.0: "stable_minus", 0.0: "stable_zero"}[label]

    keep = [k for k in range(len(draws["pair_id"])) if key_of(k) not in keys]
    rows = {name: [column[k] for k in keep] for name, column in draws.items()}
    classes = {k: dict(v) for k, v in man["classes"].items()}
    for key in keys:
        classes[key].update(u=0.0, w=0.0, q=0.0, kish_u=0.0, kish_w=0.0)
    totals = {t: sum(c[t] for c in classes.values()) for t in ("u", "w")}
    return rows, {**man, "classes": classes, "totals": totals}
