"""Brute-force reference implementations of the ABCDE metrics.

Everything here follows the papers in ``/work/shared/papers`` literally: item by
item, set by set, pair by pair.  None of it uses the per-cell formulas of docs/method.md §2–3;
that independence is the whole point, since the test suite compares the production
SQL (which works per cell) against these functions.

Paper shorthands used in the docstrings:

- [ABCDE]     van Staden & Grubb, "ABCDE: Application-Based Cluster Diff Evals"
              (``abcde_cluster_diff_evals.md``).
- [JACCARD]   van Staden, "Decomposing the Jaccard Distance and the Jaccard Index
              in ABCDE" (``jaccard_decomposition_abcde.md``).
- [POINTWISE] van Staden, "Pointwise Metrics for Clustering Evaluation"
              (``pointwise_clustering_metrics.md``).

Conventions:

- A clustering is a ``dict[item, cluster_id]``; weights are a ``dict[item, float]``.
- Only the items common to both clusterings, T, take part ([POINTWISE] eq. 1-2:
  clusters are intersected with T).  Weights of items outside T are ignored.
- ``Base(i)`` is the set of items of T in the same Base cluster as ``i`` (likewise
  ``Exp(i)``); ``weight(S)`` is a ``math.fsum`` over S, so the weight of a set does
  not depend on iteration order (equal sets have bit-identical weights).
- Equivalence ``i ≡ j`` for the quality metrics means "same truth cluster".
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from itertools import combinations

Item = Hashable
Clustering = Mapping[Item, Hashable]
Weights = Mapping[Item, float]

IMPACT_METRICS = (
    "split_rate",
    "merge_rate",
    "jaccard_distance",
    "split_distance",
    "merge_distance",
    "jaccard_index",
)
POINTWISE_METRICS = ("precision", "recall", "f1", "accuracy", "jaccard_distance", "jaccard_index")
QUALITY_ITEM_METRICS = (
    "good_split_rate",
    "bad_split_rate",
    "good_merge_rate",
    "bad_merge_rate",
    "good_split_distance",
    "bad_split_distance",
    "good_merge_distance",
    "bad_merge_distance",
    "good_distance",
    "bad_distance",
    "good_index",
    "bad_index",
    "delta_precision",
)


# ---------------------------------------------------------------------------
# Sets and weights
# ---------------------------------------------------------------------------


def common_items(base: Clustering, exp: Clustering) -> list[Item]:
    """T = the items present in both clusterings, in the iteration order of ``base``."""
    return [i for i in base if i in exp]


def cluster_of(clustering: Clustering, items: Iterable[Item]) -> dict[Item, frozenset]:
    """Map every item i of ``items`` to C(i) ∩ items: its cluster restricted to ``items``.

    [POINTWISE] eq. 1-2: IdealCluster(i) = IdealCluster_S(i) ∩ T, likewise ActualCluster.
    """
    items = list(items)
    members: dict[Hashable, set] = {}
    for i in items:
        members.setdefault(clustering[i], set()).add(i)
    frozen = {c: frozenset(s) for c, s in members.items()}
    return {i: frozen[clustering[i]] for i in items}


def set_weight(items: Iterable[Item], weight: Weights) -> float:
    """weight(I) = Σ_{i ∈ I} weight(i) ([POINTWISE] §3), summed with ``math.fsum``."""
    return math.fsum(weight[i] for i in items)


def lift(values: Mapping[Item, float], weight: Weights, items: Iterable[Item]) -> float:
    """Weighted average of a pointwise metric over a set of items I.

    m(I) = Σ_{i ∈ I} weight(i)·m(i) / weight(I)  ([ABCDE] eq. 4-6, [POINTWISE] eq. 16-18).
    """
    items = list(items)
    if not items:
        raise ValueError("cannot lift a metric to an empty set of items")
    return math.fsum(weight[i] * values[i] for i in items) / set_weight(items, weight)


def _sgn(x: float) -> float:
    return float((x > 0) - (x < 0))


def _check_truth(truth: Clustering, items: Iterable[Item]) -> None:
    missing = [i for i in items if i not in truth]
    if missing:
        raise ValueError(f"truth has no cluster for items {missing[:5]!r}")


def _equivalent(truth: Clustering, i: Item, j: Item) -> bool:
    """i ≡ j: same truth cluster (reflexive by construction)."""
    return i == j or truth[i] == truth[j]


# ---------------------------------------------------------------------------
# Impact metrics ([ABCDE] §4, [JACCARD] §4.1 and §5.1)
# ---------------------------------------------------------------------------


def impact_item_metrics(
    base: Clustering, exp: Clustering, weight: Weights
) -> dict[Item, dict[str, float]]:
    """Impact metrics of every item i of T, from its set situation (Base(i), Exp(i)).

    - split_rate       = weight(Base(i) \\ Exp(i)) / weight(Base(i))       [ABCDE] eq. 1
    - merge_rate       = weight(Exp(i) \\ Base(i)) / weight(Exp(i))        [ABCDE] eq. 2
    - jaccard_distance = (weight(B \\ E) + weight(E \\ B)) / weight(B ∪ E) [ABCDE] eq. 3,
                                                                           [JACCARD] eq. 1
    - split_distance   = weight(B \\ E) / weight(B ∪ E)                    [JACCARD] eq. 2
    - merge_distance   = weight(E \\ B) / weight(B ∪ E)                    [JACCARD] eq. 3
    - jaccard_index    = weight(B ∩ E) / weight(B ∪ E)                     [JACCARD] eq. 37
    - affected         = Base(i) ≠ Exp(i) as sets                          [ABCDE] eq. 7
    """
    items = common_items(base, exp)
    base_of = cluster_of(base, items)
    exp_of = cluster_of(exp, items)
    out: dict[Item, dict[str, float]] = {}
    for i in items:
        b, e = base_of[i], exp_of[i]
        w_b = set_weight(b, weight)
        w_e = set_weight(e, weight)
        w_union = set_weight(b | e, weight)
        w_split = set_weight(b - e, weight)
        w_merge = set_weight(e - b, weight)
        w_stable = set_weight(b & e, weight)
        out[i] = {
            "split_rate": w_split / w_b,
            "merge_rate": w_merge / w_e,
            "jaccard_distance": (w_split + w_merge) / w_union,
            "split_distance": w_split / w_union,
            "merge_distance": w_merge / w_union,
            "jaccard_index": w_stable / w_union,
            "affected": b != e,
        }
    return out


def impact_overall(base: Clustering, exp: Clustering, weight: Weights) -> dict[str, float]:
    """Overall impact metrics: the item metrics lifted to T ([ABCDE] eq. 4-6).

    Also ``affected_items``/``affected_weight`` ([ABCDE] eq. 7),
    ``affected_jaccard_index`` = Σ_{i affected} weight(i)/weight(T)·JI(i)   [JACCARD] eq. 48,
    ``unaffected_jaccard_index`` = weight(UnaffectedItems)/weight(T)        [JACCARD] eq. 52.
    """
    items = common_items(base, exp)
    per_item = impact_item_metrics(base, exp, weight)
    total = set_weight(items, weight)
    affected = [i for i in items if per_item[i]["affected"]]
    unaffected = [i for i in items if not per_item[i]["affected"]]
    out: dict[str, float] = {
        "items": len(items),
        "weight": total,
        "affected_items": len(affected),
        "affected_weight": set_weight(affected, weight),
    }
    for m in IMPACT_METRICS:
        out[m] = lift({i: per_item[i][m] for i in items}, weight, items)
    out["affected_jaccard_index"] = (
        math.fsum(weight[i] * per_item[i]["jaccard_index"] for i in affected) / total
    )
    out["unaffected_jaccard_index"] = set_weight(unaffected, weight) / total
    return out


def groups(group_of: Mapping[Item, Hashable], items: Iterable[Item]) -> dict[Hashable, list]:
    """Partition ``items`` by ``group_of``; items without a group are left out."""
    out: dict[Hashable, list] = {}
    for i in items:
        if i in group_of:
            out.setdefault(group_of[i], []).append(i)
    return out


def slice_of(attributes: Mapping[Item, Mapping[str, object]], columns: Iterable[str]) -> dict:
    """Group key of each item for slicing by attribute columns: the tuple of its values."""
    columns = list(columns)
    return {i: tuple(row.get(c) for c in columns) for i, row in attributes.items()}


def impact_by_group(
    base: Clustering,
    exp: Clustering,
    weight: Weights,
    group_of: Mapping[Item, Hashable],
) -> dict[Hashable, dict[str, float]]:
    """Impact metrics lifted to each group of items ([ABCDE] eq. 4-6 with I = the group).

    Use ``group_of=base`` for Base clusters, ``group_of=exp`` for Exp clusters, or
    ``slice_of(attributes, columns)`` for slices.  Items of T missing from ``group_of``
    belong to no group.  Each group reports ``items``, ``weight``, ``affected_items``,
    ``affected_weight``, the six impact metrics and
    ``contribution`` = weight(C)·JaccardDistance(C)/weight(T)  ([ABCDE] §4.1).
    """
    items = common_items(base, exp)
    per_item = impact_item_metrics(base, exp, weight)
    total = set_weight(items, weight)
    out: dict[Hashable, dict[str, float]] = {}
    for key, members in groups(group_of, items).items():
        affected = [i for i in members if per_item[i]["affected"]]
        row: dict[str, float] = {
            "items": len(members),
            "weight": set_weight(members, weight),
            "affected_items": len(affected),
            "affected_weight": set_weight(affected, weight),
        }
        for m in IMPACT_METRICS:
            row[m] = lift({i: per_item[i][m] for i in members}, weight, members)
        row["contribution"] = row["weight"] * row["jaccard_distance"] / total
        out[key] = row
    return out


# ---------------------------------------------------------------------------
# Pointwise ground-truth metrics ([POINTWISE] §3): truth = ideal, actual = Exp
# ---------------------------------------------------------------------------


def pointwise_item_metrics(
    truth: Clustering, actual: Clustering, weight: Weights
) -> dict[Item, dict[str, float]]:
    """The 2x2 confusion matrix of every item i of T and the metrics derived from it.

    TruePositives(i)  = Ideal(i) ∩ Actual(i)                     [POINTWISE] eq. 3
    FalsePositives(i) = Actual(i) \\ Ideal(i)                    eq. 4
    FalseNegatives(i) = Ideal(i) \\ Actual(i)                    eq. 5
    TrueNegatives(i)  = T \\ (TP(i) ∪ FP(i) ∪ FN(i))              eq. 6
    TP, FP, FN, TN = weights of these sets                        eq. 7-10
    precision = TP/(TP+FP), recall = TP/(TP+FN)                   eq. 11-12
    accuracy  = (TP+TN)/(TP+TN+FP+FN)                             eq. 13
    jaccard_distance = (FN+FP)/(FN+TP+FP), jaccard_index = TP/(FN+TP+FP)   eq. 14-15
    f1 = 2·precision·recall/(precision+recall)  (harmonic mean of the item's P and R;
         never 0/0 because i ∈ TP(i) and weights are positive).
    """
    items = common_items(truth, actual)
    everything = frozenset(items)
    ideal_of = cluster_of(truth, items)
    actual_of = cluster_of(actual, items)
    out: dict[Item, dict[str, float]] = {}
    for i in items:
        ideal, act = ideal_of[i], actual_of[i]
        tp_set = ideal & act
        fp_set = act - ideal
        fn_set = ideal - act
        tn_set = everything - (tp_set | fp_set | fn_set)
        tp = set_weight(tp_set, weight)
        fp = set_weight(fp_set, weight)
        fn = set_weight(fn_set, weight)
        tn = set_weight(tn_set, weight)
        precision = tp / (tp + fp)
        recall = tp / (tp + fn)
        out[i] = {
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "tn": tn,
            "precision": precision,
            "recall": recall,
            "f1": 2 * precision * recall / (precision + recall),
            "accuracy": (tp + tn) / (tp + tn + fp + fn),
            "jaccard_distance": (fn + fp) / (fn + tp + fp),
            "jaccard_index": tp / (fn + tp + fp),
        }
    return out


def _pointwise_lifted(per_item: dict, weight: Weights, members: list) -> dict[str, float]:
    row: dict[str, float] = {"items": len(members), "weight": set_weight(members, weight)}
    for m in POINTWISE_METRICS:
        row[m] = lift({i: per_item[i][m] for i in members}, weight, members)
    p, r = row["precision"], row["recall"]
    row["f1_of_overall"] = 2 * p * r / (p + r)
    return row


def pointwise_overall(truth: Clustering, actual: Clustering, weight: Weights) -> dict[str, float]:
    """Pointwise metrics lifted to T ([POINTWISE] eq. 16-18), plus ``items``, ``weight`` and
    ``f1_of_overall`` = 2·P(T)·R(T)/(P(T)+R(T)), which in general differs from ``f1``
    (the lifted item-level F1)."""
    per_item = pointwise_item_metrics(truth, actual, weight)
    return _pointwise_lifted(per_item, weight, common_items(truth, actual))


def pointwise_by_group(
    truth: Clustering,
    actual: Clustering,
    weight: Weights,
    group_of: Mapping[Item, Hashable],
) -> dict[Hashable, dict[str, float]]:
    """Pointwise metrics lifted to each group ([POINTWISE] eq. 16-18 with I = the group).

    ``f1_of_overall`` here is the harmonic mean of the group's lifted P and R."""
    per_item = pointwise_item_metrics(truth, actual, weight)
    items = common_items(truth, actual)
    return {
        key: _pointwise_lifted(per_item, weight, members)
        for key, members in groups(group_of, items).items()
    }


# ---------------------------------------------------------------------------
# Pair populations ([ABCDE] §5.3 and §5.7; [JACCARD] §7)
# ---------------------------------------------------------------------------


def _pair_class(i: Item, j: Item, b: frozenset, e: frozenset) -> str:
    if j == i:
        return "self"
    if j in b and j not in e:
        return "split"
    if j in e and j not in b:
        return "merge"
    return "stable"


def abcde_pairs(
    base: Clustering, exp: Clustering, weight: Weights
) -> dict[tuple[Item, Item], tuple[str, float, float]]:
    """Every ordered pair (i, j), i ∈ T, j ∈ Base(i) ∪ Exp(i) ([ABCDE] eq. 52), mapped to
    (class, u_ij, l_ij).

    class is 'self' (j = i), 'split' (j ∈ Base(i) \\ Exp(i)), 'merge' (j ∈ Exp(i) \\ Base(i))
    or 'stable' (j ∈ Base(i) ∩ Exp(i), j ≠ i).  Self pairs are stable pairs too
    ([ABCDE] §5.8) and get the stable weight and label:

    - split:  u_ij = weight(i)/weight(T) · weight(j)/weight(Base(i)),  l_ij = −1   eq. 56
    - merge:  u_ij = weight(i)/weight(T) · weight(j)/weight(Exp(i)),   l_ij = +1   eq. 57
    - stable: u_ij = weight(i)/weight(T) · |wB − wE|/(wB·wE) · weight(j),
              l_ij = sgn(wB − wE), with wB = weight(Base(i)), wE = weight(Exp(i))  eq. 58

    Stable pairs with wB = wE (e.g. all pairs of unaffected items) are kept with u = 0.
    """
    items = common_items(base, exp)
    base_of = cluster_of(base, items)
    exp_of = cluster_of(exp, items)
    total = set_weight(items, weight)
    out: dict[tuple[Item, Item], tuple[str, float, float]] = {}
    for i in items:
        b, e = base_of[i], exp_of[i]
        w_b = set_weight(b, weight)
        w_e = set_weight(e, weight)
        for j in b | e:
            cls = _pair_class(i, j, b, e)
            if cls == "split":
                u, label = weight[i] / total * weight[j] / w_b, -1.0
            elif cls == "merge":
                u, label = weight[i] / total * weight[j] / w_e, 1.0
            else:
                u = weight[i] / total * abs(w_b - w_e) / (w_b * w_e) * weight[j]
                label = _sgn(w_b - w_e)
            out[(i, j)] = (cls, u, label)
    return out


def jaccard_pairs(
    base: Clustering, exp: Clustering, weight: Weights
) -> dict[tuple[Item, Item], tuple[str, float, float]]:
    """Every ordered pair (i, j) with i an *affected* item and j ∈ Base(i) ∪ Exp(i)
    ([JACCARD] §7, AllPairs), mapped to (class, w_ij, l_ij):

    - w_ij = weight(i)·weight(j) / (weight(T)·weight(Base(i) ∪ Exp(i)))     [JACCARD] eq. 26
    - a_i = weight(B ∪ E)/weight(Exp(i)), b_i = weight(B ∪ E)/weight(Base(i))
    - l_ij = a_i (merge), −b_i (split), a_i − b_i (stable, incl. self)     eq. 92-94

    Classes as in ``abcde_pairs``.
    """
    items = common_items(base, exp)
    base_of = cluster_of(base, items)
    exp_of = cluster_of(exp, items)
    total = set_weight(items, weight)
    out: dict[tuple[Item, Item], tuple[str, float, float]] = {}
    for i in items:
        b, e = base_of[i], exp_of[i]
        if b == e:
            continue
        w_union = set_weight(b | e, weight)
        a_i = w_union / set_weight(e, weight)
        b_i = w_union / set_weight(b, weight)
        for j in b | e:
            cls = _pair_class(i, j, b, e)
            w = weight[i] * weight[j] / (total * w_union)
            label = {"split": -b_i, "merge": a_i}.get(cls, a_i - b_i)
            out[(i, j)] = (cls, w, label)
    return out


def mixture_pairs(
    base: Clustering, exp: Clustering, weight: Weights, alpha: float
) -> dict[tuple[Item, Item], dict[str, object]]:
    """The pairs (i, j), i ≠ j, that the defensive mixture of the two populations draws
    (issue #11; Hesterberg 1995): q_ij = α·u_ij/Σu + (1 − α)·w_ij/Σw, the sums over pairs
    i ≠ j, self pairs left out (they need no verdict).  Each pair maps to its class,
    u_ij, w_ij, q_ij, ΔPrecision's sign l_ij ([ABCDE] eq. 56–58) and its importance
    weights u_ij/Σu / q_ij and w_ij/Σw / q_ij.  Pairs with q_ij = 0 are left out (only at
    α = 1: stable pairs with weight(Base(i)) = weight(Exp(i)))."""
    u_pop = abcde_pairs(base, exp, weight)
    w_pop = jaccard_pairs(base, exp, weight)
    keys = [k for k in set(u_pop) | set(w_pop) if k[0] != k[1]]
    sum_u = math.fsum(u_pop[k][1] for k in keys if k in u_pop)
    sum_w = math.fsum(w_pop[k][1] for k in keys if k in w_pop)
    out: dict[tuple[Item, Item], dict[str, object]] = {}
    for k in keys:
        cls, u, label = u_pop[k] if k in u_pop else (w_pop[k][0], 0.0, 0.0)
        w = w_pop[k][1] if k in w_pop else 0.0
        p_u = u / sum_u if sum_u else 0.0
        p_w = w / sum_w if sum_w else 0.0
        q = alpha * p_u + (1 - alpha) * p_w
        if q > 0:
            out[k] = {"class": cls, "u": u, "w": w, "q": q, "label": label,
                      "importance_u": p_u / q, "importance_w": p_w / q}
    return out


def self_pair_sums(base: Clustering, exp: Clustering, weight: Weights,
                   vantage: Iterable[Item] | None = None) -> dict[str, float]:
    """The self pairs' exact parts: Σ_i u_ii·l_ii (their share of ΔPrecision, [ABCDE]
    eq. 39 with 1(i ≡ i) = 1), Σ_i u_ii, and Σ_{i affected} w_ii (their share of
    AffectedGoodIndex, [JACCARD] eq. 58); over the items of ``vantage`` only, if given
    (a slice, [ABCDE] App. B)."""
    u_pop = abcde_pairs(base, exp, weight)
    w_pop = jaccard_pairs(base, exp, weight)
    keep = None if vantage is None else set(vantage)
    selves = [k for k in u_pop if k[0] == k[1] and (keep is None or k[0] in keep)]
    return {"delta_precision": math.fsum(u_pop[k][1] * u_pop[k][2] for k in selves),
            "u_self": math.fsum(u_pop[k][1] for k in selves),
            "affected_good_index": math.fsum(w_pop[k][1] for k in selves if k in w_pop)}


# ---------------------------------------------------------------------------
# Quality metrics, exactly, from a truth clustering ([ABCDE] §5; [JACCARD] §4-6)
# ---------------------------------------------------------------------------


def precision_exact(
    clustering: Clustering, weight: Weights, truth: Clustering, items: Iterable[Item]
) -> float:
    """Precision(T) of one clustering by pairs ([ABCDE] eq. 27-28):

    Σ_{i ∈ T} weight(i)/weight(T) · Σ_{j ∈ C(i)} weight(j)/weight(C(i)) · 1(i ≡ j),
    with C(i) restricted to ``items`` (= T).
    """
    items = list(items)
    _check_truth(truth, items)
    c_of = cluster_of(clustering, items)
    total = set_weight(items, weight)
    terms = []
    for i in items:
        c = c_of[i]
        w_c = set_weight(c, weight)
        inner = math.fsum(weight[j] / w_c for j in c if _equivalent(truth, i, j))
        terms.append(weight[i] / total * inner)
    return math.fsum(terms)


def delta_precision_exact(
    base: Clustering, exp: Clustering, weight: Weights, truth: Clustering
) -> float:
    """ΔPrecision(T) = Precision_Exp(T) − Precision_Base(T)  ([ABCDE] eq. 26-28)."""
    items = common_items(base, exp)
    return precision_exact(exp, weight, truth, items) - precision_exact(base, weight, truth, items)


def quality_item_metrics(
    base: Clustering, exp: Clustering, weight: Weights, truth: Clustering
) -> dict[Item, dict[str, float]]:
    """Per-item quality metrics by summing over partners j; B = Base(i), E = Exp(i).

    - good_split_rate = Σ_{j ∈ B\\E} weight(j)/weight(B)·1(i ≢ j)        [ABCDE] eq. 41
    - bad_split_rate  = Σ_{j ∈ B\\E} weight(j)/weight(B)·1(i ≡ j)        eq. 42
    - good_merge_rate = Σ_{j ∈ E\\B} weight(j)/weight(E)·1(i ≡ j)        eq. 43
    - bad_merge_rate  = Σ_{j ∈ E\\B} weight(j)/weight(E)·1(i ≢ j)        eq. 44
    - good/bad split/merge distance: same with denominator weight(B ∪ E)  [JACCARD] eq. 5-8
    - good_distance, bad_distance                                         eq. 11-12
    - good_index = Σ_{j ∈ B∩E} weight(j)/weight(B ∪ E)·1(i ≡ j)           eq. 41 (§5.1)
    - bad_index  = Σ_{j ∈ B∩E} weight(j)/weight(B ∪ E)·1(i ≢ j)           eq. 42 (§5.1)
    - delta_precision = Σ_{j∈E} weight(j)/weight(E)·1(i≡j) − Σ_{j∈B} weight(j)/weight(B)·1(i≡j)
                                                                          [ABCDE] eq. 29
    - affected = B ≠ E
    """
    items = common_items(base, exp)
    _check_truth(truth, items)
    base_of = cluster_of(base, items)
    exp_of = cluster_of(exp, items)
    out: dict[Item, dict[str, float]] = {}
    for i in items:
        b, e = base_of[i], exp_of[i]
        w_b = set_weight(b, weight)
        w_e = set_weight(e, weight)
        w_u = set_weight(b | e, weight)

        def part(js: Iterable[Item], denom: float, want_equiv: bool, i: Item = i) -> float:
            return math.fsum(
                weight[j] / denom for j in js if _equivalent(truth, i, j) == want_equiv
            )

        split, merge, stable = b - e, e - b, b & e
        row = {
            "good_split_rate": part(split, w_b, False),
            "bad_split_rate": part(split, w_b, True),
            "good_merge_rate": part(merge, w_e, True),
            "bad_merge_rate": part(merge, w_e, False),
            "good_split_distance": part(split, w_u, False),
            "bad_split_distance": part(split, w_u, True),
            "good_merge_distance": part(merge, w_u, True),
            "bad_merge_distance": part(merge, w_u, False),
            "good_index": part(stable, w_u, True),
            "bad_index": part(stable, w_u, False),
            "delta_precision": part(e, w_e, True) - part(b, w_b, True),
            "affected": b != e,
        }
        row["good_distance"] = row["good_split_distance"] + row["good_merge_distance"]
        row["bad_distance"] = row["bad_split_distance"] + row["bad_merge_distance"]
        out[i] = row
    return out


_QUALITY_LIFTED = (
    "good_split_rate",
    "bad_split_rate",
    "good_merge_rate",
    "bad_merge_rate",
    "good_split_distance",
    "bad_split_distance",
    "good_merge_distance",
    "bad_merge_distance",
    "good_distance",
    "bad_distance",
    "delta_precision",
)


def quality_exact(
    base: Clustering, exp: Clustering, weight: Weights, truth: Clustering
) -> dict[str, float]:
    """Overall quality metrics, exactly, with i ≡ j ⇔ same truth cluster.

    The per-item metrics of ``quality_item_metrics`` lifted to T ([ABCDE] eq. 47;
    [JACCARD] §4.2), and
    - affected_good_index = Σ_{i affected} weight(i)/weight(T)·GoodIndex(i)  [JACCARD] eq. 56
    - affected_bad_index  = Σ_{i affected} weight(i)/weight(T)·BadIndex(i)   eq. 59
    - delta_precision     = Σ_i weight(i)/weight(T)·ΔPrecision(i)            [ABCDE] eq. 35
    """
    items = common_items(base, exp)
    per_item = quality_item_metrics(base, exp, weight, truth)
    total = set_weight(items, weight)
    out = {m: lift({i: per_item[i][m] for i in items}, weight, items) for m in _QUALITY_LIFTED}
    affected = [i for i in items if per_item[i]["affected"]]
    for m in ("good_index", "bad_index"):
        out[f"affected_{m}"] = math.fsum(weight[i] * per_item[i][m] for i in affected) / total
    return out


def quality_by_group(
    base: Clustering,
    exp: Clustering,
    weight: Weights,
    truth: Clustering,
    group_of: Mapping[Item, Hashable],
) -> dict[Hashable, dict[str, float]]:
    """Quality metrics lifted to each group I, e.g. slices ([ABCDE] App. B eq. 59), plus
    ``delta_precision_contribution`` = weight(I)/weight(T)·ΔPrecision(I)  (App. B eq. 68)."""
    items = common_items(base, exp)
    per_item = quality_item_metrics(base, exp, weight, truth)
    total = set_weight(items, weight)
    out: dict[Hashable, dict[str, float]] = {}
    for key, members in groups(group_of, items).items():
        row = {"items": len(members), "weight": set_weight(members, weight)}
        for m in _QUALITY_LIFTED:
            row[m] = lift({i: per_item[i][m] for i in members}, weight, members)
        row["delta_precision_contribution"] = row["weight"] / total * row["delta_precision"]
        out[key] = row
    return out


# ---------------------------------------------------------------------------
# Classic (unweighted) metrics, by enumeration and by definition
# ---------------------------------------------------------------------------


def pair_confusion(truth: Clustering, actual: Clustering) -> dict[str, int]:
    """Pair-counting confusion over the unordered pairs {i, j}, i ≠ j, of T.

    TP: together in truth and actual; FP: together only in actual;
    FN: together only in truth; TN: apart in both.  TP+FP+FN+TN = C(|T|, 2).
    """
    items = common_items(truth, actual)
    counts = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    for i, j in combinations(items, 2):
        same_truth = truth[i] == truth[j]
        same_actual = actual[i] == actual[j]
        if same_truth and same_actual:
            counts["tp"] += 1
        elif same_actual:
            counts["fp"] += 1
        elif same_truth:
            counts["fn"] += 1
        else:
            counts["tn"] += 1
    return counts


def pairwise_precision(truth: Clustering, actual: Clustering, zero_division: float = 1.0) -> float:
    """TP/(TP+FP) over item pairs; ``zero_division`` when actual has no pair together."""
    c = pair_confusion(truth, actual)
    denom = c["tp"] + c["fp"]
    return c["tp"] / denom if denom else zero_division


def pairwise_recall(truth: Clustering, actual: Clustering, zero_division: float = 1.0) -> float:
    """TP/(TP+FN) over item pairs; ``zero_division`` when truth has no pair together."""
    c = pair_confusion(truth, actual)
    denom = c["tp"] + c["fn"]
    return c["tp"] / denom if denom else zero_division


def pairwise_f1(truth: Clustering, actual: Clustering, zero_division: float = 1.0) -> float:
    """Harmonic mean of pairwise precision and recall (0 when both are 0)."""
    p = pairwise_precision(truth, actual, zero_division)
    r = pairwise_recall(truth, actual, zero_division)
    return 2 * p * r / (p + r) if p + r else 0.0


def _classes(clustering: Clustering, items: list) -> list[set]:
    members: dict[Hashable, set] = {}
    for i in items:
        members.setdefault(clustering[i], set()).add(i)
    return list(members.values())


def purity(truth: Clustering, actual: Clustering) -> float:
    """Purity = (1/n) Σ_{actual clusters C} max_{truth classes L} |C ∩ L|.

    Zhao & Karypis (2001); Amigó et al. (2009) "A comparison of extrinsic clustering
    evaluation metrics based on formal constraints", §2.1.
    """
    items = common_items(truth, actual)
    truth_classes = _classes(truth, items)
    return sum(max(len(c & t) for t in truth_classes) for c in _classes(actual, items)) / len(items)


def inverse_purity(truth: Clustering, actual: Clustering) -> float:
    """Inverse purity = (1/n) Σ_{truth classes L} max_{actual clusters C} |L ∩ C|
    (Amigó et al. 2009, §2.1) = purity with the roles swapped."""
    return purity(actual, truth)


def fmeasure(truth: Clustering, actual: Clustering) -> float:
    """Clustering F-measure (Larsen & Aone 1999; Steinbach, Karypis & Kumar 2000;
    Fung, Wang & Ester 2003; stated as "F" in Amigó et al. 2009, §2.1):

        F = Σ_{truth classes L} |L|/n · max_{actual clusters C} F(L, C)
        F(L, C) = 2·R(L, C)·P(L, C) / (R(L, C) + P(L, C)),
        R(L, C) = |L ∩ C|/|L|,  P(L, C) = |L ∩ C|/|C|,

    where F(L, C) = 0 when L ∩ C = ∅.
    """
    items = common_items(truth, actual)
    clusters = _classes(actual, items)
    total = 0.0
    for label in _classes(truth, items):
        best = 0.0
        for c in clusters:
            common = len(label & c)
            if common:
                r, p = common / len(label), common / len(c)
                best = max(best, 2 * r * p / (r + p))
        total += len(label) / len(items) * best
    return total
