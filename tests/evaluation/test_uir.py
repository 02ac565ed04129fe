"""abcde.evaluation.uir against Amigó et al. 2011 (JAIR 42: the UIR paper's tables)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from uir_table3 import A_GE_B, B_GE_A, TABLE3, M, long_rows, table3

from abcde.evaluation.scores import UirInputError
from abcde.evaluation.uir import (
    ALPHA_SWEEP,
    case_differences,
    f_alpha,
    f_alpha_metrics,
    f_alpha_sweep,
    improved_systems,
    interpret_uir,
    reference_system,
    uir,
    uir_matrix,
)
from abcde.evaluation.uir_parametric import parametric_uir


def test_paper_worked_example_table3() -> None:
    a, b = table3()
    for t, (pa, pb, ra, rb) in TABLE3.items():  # the yes/no columns of Table 3
        assert (pa >= pb and ra >= rb) == A_GE_B[t - 1]
        assert (pb >= pa and rb >= ra) == B_GE_A[t - 1]
    res = uir(a, b, M)
    # |T_{a≥b}| = 6, |T_{b≥a}| = 4 (2 of them ties) → (6 − 4)/10 = 0.2 (§4.2)
    assert (res.a_ge_b, res.b_ge_a, res.ties, res.biased, res.n_cases) == (6, 4, 2, 2, 10)
    assert res.uir == pytest.approx(0.2)
    assert uir(b, a, M).uir == pytest.approx(-0.2)
    assert res.a_ge_b + res.b_ge_a - res.ties + res.biased == res.n_cases


def test_unanimous_on_every_case_is_one_and_all_ties_zero() -> None:
    a = {t: {"precision": 0.5 + t / 100, "recall": 0.5} for t in range(7)}
    b = {t: {"precision": 0.5, "recall": 0.4} for t in range(7)}
    assert uir(a, b, M).uir == 1.0
    assert uir(b, a, M).uir == -1.0
    res = uir(a, a, M)
    assert (res.uir, res.ties, res.a_ge_b, res.b_ge_a) == (0.0, 7, 7, 7)


def test_all_biased_is_zero() -> None:
    a = {t: {"precision": 0.9, "recall": 0.1} for t in range(4)}
    b = {t: {"precision": 0.1, "recall": 0.9} for t in range(4)}
    res = uir(a, b, M)
    assert (res.uir, res.biased, res.a_ge_b, res.b_ge_a) == (0.0, 4, 0, 0)


def test_tolerance_turns_near_ties_into_ties() -> None:
    a = {1: {"precision": 0.1 + 0.2, "recall": 0.5}}  # 0.30000000000000004
    b = {1: {"precision": 0.3, "recall": 0.5}}
    res = uir(a, b, M)  # default: relative 1e-9
    assert (res.uir, res.ties) == (0.0, 1)
    assert uir(a, b, M, rel_tol=0.0).uir == 1.0  # exact comparison, as in the paper
    res = uir(a, b, M, tol=1e-12, rel_tol=0.0)  # absolute tolerance
    assert (res.uir, res.ties) == (0.0, 1)
    # |x − y| ≤ 1e-9·max(|x|, |y|): 0.5·(1 + 0.9e-9) ties with 0.5, 0.5·(1 + 2e-9) does not
    c = {1: {"precision": 0.3, "recall": 0.5 * (1 + 0.9e-9)}}
    d = {1: {"precision": 0.3, "recall": 0.5 * (1 + 2e-9)}}
    assert uir(c, b, M).ties == 1 and uir(d, b, M).uir == 1.0


def _weighted_mean(pairs: list[tuple[float, float]]) -> float:
    return math.fsum(w * x for w, x in pairs) / math.fsum(w for w, _ in pairs)


def test_float_noise_of_summed_scores_ties() -> None:
    """Per-case scores are weighted means (sums) whose last bits depend on the order of
    the terms: the same case summed in two orders — exactly equal as fractions — must
    tie, so that two runs treating every case identically get UIR 0, all cases tied,
    and a parametric UIR of 0."""
    rng = np.random.default_rng(8)
    a: dict[int, dict[str, float]] = {}
    b: dict[int, dict[str, float]] = {}
    for t in range(40):
        terms = {m: [(float(w), float(x)) for w, x in rng.random((30, 2))] for m in M}
        a[t] = {m: sum(w * x for w, x in v) / sum(w for w, _ in v) for m, v in terms.items()}
        # the same terms in reverse order
        b[t] = {m: sum(w * x for w, x in v[::-1]) / sum(w for w, _ in v[::-1])
                for m, v in terms.items()}
        for m, v in terms.items():  # mathematically identical (exact rationals)
            exact = [(Fraction(w), Fraction(x)) for w, x in v]
            assert math.isclose(a[t][m], float(sum(w * x for w, x in exact)
                                               / sum(w for w, _ in exact)), rel_tol=1e-14)
    noisy = sum(a[t] != b[t] for t in a)
    assert noisy > 10  # the orders do change the last bits
    assert uir(a, b, M, rel_tol=0.0).ties < 40  # compared exactly: spurious wins
    res = uir(a, b, M)
    assert (res.uir, res.ties, res.biased, res.n_cases) == (0.0, 40, 0, 40)
    assert uir_matrix({"A": a, "B": b}, M) == {"A": {"A": 0.0, "B": 0.0},
                                               "B": {"A": 0.0, "B": 0.0}}
    d = case_differences(a, b, M)
    assert not d.any()
    p = parametric_uir(d)
    assert (p.uir, p.method) == (0.0, "degenerate")
    assert "no difference" in res.reading


# ---------------------------------------------------------------- properties

GRID = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])  # coarse grid: many ties


@st.composite
def system_pair(draw: st.DrawFn, n_metrics: int = 2) -> tuple[dict, dict, list[str]]:
    metrics = [f"m{j}" for j in range(n_metrics)]
    n = draw(st.integers(1, 12))
    a = {t: {m: draw(GRID) for m in metrics} for t in range(n)}
    b = {t: {m: draw(GRID) for m in metrics} for t in range(n)}
    return a, b, metrics


@settings(max_examples=200, deadline=None)
@given(system_pair(n_metrics=2) | system_pair(n_metrics=3))
def test_antisymmetry_and_range(pair: tuple[dict, dict, list[str]]) -> None:
    a, b, metrics = pair
    ab, ba = uir(a, b, metrics), uir(b, a, metrics)
    assert ab.uir == -ba.uir
    assert -1.0 <= ab.uir <= 1.0
    assert (ab.a_ge_b, ab.b_ge_a, ab.ties, ab.biased) == (ba.b_ge_a, ba.a_ge_b, ba.ties, ba.biased)
    # UIR = P(a ≥∀ b) − P(b ≥∀ a), frequencies (§4.2), recomputed literally
    n = len(a)
    ge = sum(all(a[t][m] >= b[t][m] for m in metrics) for t in a)
    le = sum(all(b[t][m] >= a[t][m] for m in metrics) for t in a)
    assert ab.uir == pytest.approx(ge / n - le / n)


@settings(max_examples=100, deadline=None)
@given(system_pair(n_metrics=2))
def test_unanimous_improvement_never_contradicts_f(pair: tuple[dict, dict, list[str]]) -> None:
    """§5.2.1: a ≥∀ b implies F_α(a) ≥ F_α(b) for every α (monotonicity of F)."""
    a, b, metrics = pair
    for t in a:
        pa, ra = a[t][metrics[0]], a[t][metrics[1]]
        pb, rb = b[t][metrics[0]], b[t][metrics[1]]
        if pa >= pb and ra >= rb:
            for alpha in ALPHA_SWEEP:
                assert f_alpha(pa, ra, alpha) >= f_alpha(pb, rb, alpha) - 1e-12


@settings(max_examples=50, deadline=None)
@given(st.lists(system_pair(n_metrics=2), min_size=1, max_size=1))
def test_matrix_is_antisymmetric(pairs: list) -> None:
    a, b, metrics = pairs[0]
    rows = [("A", t, m, v) for t, r in a.items() for m, v in r.items()]
    rows += [("B", t, m, v) for t, r in b.items() for m, v in r.items()]
    rows += [("C", t, m, 0.5) for t, r in a.items() for m in r]
    mat = uir_matrix(rows, metrics)
    for x in mat:
        assert mat[x][x] == 0.0
        for y in mat:
            assert mat[x][y] == -mat[y][x]
    assert mat["A"]["B"] == uir(a, b, metrics).uir


# ------------------------------------------------------------------ matrix


def test_uir_matrix_table3() -> None:
    a, b = table3()
    mat = uir_matrix(long_rows(A=a, B=b), M)
    assert mat == {
        "A": {"A": 0.0, "B": pytest.approx(0.2)},
        "B": {"A": pytest.approx(-0.2), "B": 0.0},
    }


def test_uir_matrix_missing_score_names_system_case_metric() -> None:
    a, b = table3()
    rows = [r for r in long_rows(A=a, B=b) if not (r[0] == "B" and r[1] == 7 and r[2] == "recall")]
    with pytest.raises(ValueError, match=r"system 'B'.*case 7, metric 'recall'"):
        uir_matrix(rows, M)
    # a case entirely missing for one system
    rows = [r for r in long_rows(A=a, B=b) if not (r[0] == "A" and r[1] == 3)]
    with pytest.raises(UirInputError, match=r"system 'A'.*case 3"):
        uir_matrix(rows, M)


def test_uir_matrix_rejects_duplicates_non_finite_and_bad_metrics() -> None:
    a, b = table3()
    rows = long_rows(A=a, B=b)
    with pytest.raises(
        UirInputError, match=r"system 'A', case 1, metric 'precision': a duplicate"
    ):
        uir_matrix([*rows, ("A", 1, "precision", 0.5)], M)
    for bad in (math.nan, math.inf, -math.inf):
        broken = [(s, t, m, bad if (s, t, m) == ("B", 4, "recall") else v) for s, t, m, v in rows]
        with pytest.raises(UirInputError, match=r"'B', case 4, metric 'recall'.*not finite"):
            uir_matrix(broken, M)
    with pytest.raises(UirInputError, match="not a number"):
        uir_matrix([*rows[:-1], ("B", 10, "recall", "0.3")], M)
    with pytest.raises(UirInputError, match=r"no score of the metric\(s\) 'purity'"):
        uir_matrix(rows, ["precision", "purity"])
    with pytest.raises(UirInputError, match="empty"):
        uir_matrix(rows, [])
    with pytest.raises(UirInputError, match="more than once"):
        uir_matrix(rows, ["recall", "recall"])
    with pytest.raises(UirInputError, match="got 3 fields"):
        uir_matrix([("A", 1, 0.5)], M)


def test_extra_metrics_are_ignored_but_f_is_not_mixed_in() -> None:
    a, b = table3()
    rows = long_rows(A=a, B=b) + [("A", t, "f1", 0.0) for t in a] + [("B", t, "f1", 1.0) for t in b]
    assert uir_matrix(rows, M)["A"]["B"] == pytest.approx(0.2)
    assert uir_matrix(rows, ["f1"])["A"]["B"] == -1.0


# --------------------------------------------------------------------- F_α


def test_f_alpha_by_hand() -> None:
    # F_α = 1/(α/P + (1−α)/R) (§2.1). P = 1/2, R = 1:
    assert f_alpha(0.5, 1.0, 0.5) == pytest.approx(2 / 3)  # 1/(1 + 0.5): harmonic mean
    assert f_alpha(0.5, 1.0, 0.2) == pytest.approx(1 / 1.2)  # 1/(0.2·2 + 0.8·1)
    assert f_alpha(0.5, 1.0, 0.8) == pytest.approx(1 / 1.8)  # 1/(0.8·2 + 0.2·1)
    assert f_alpha(0.5, 1.0, 1.0) == 0.5  # α = 1: precision only
    assert f_alpha(0.5, 1.0, 0.0) == 1.0  # α = 0: recall only
    assert f_alpha(0.0, 0.7, 0.5) == 0.0
    assert f_alpha(0.0, 0.7, 0.0) == 0.7
    exact = 1 / (Fraction(3, 10) / Fraction(2, 5) + Fraction(7, 10) / Fraction(3, 4))
    assert f_alpha(0.4, 0.75, 0.3) == pytest.approx(float(exact))


def test_f_alpha_sweep_averages_per_case_f() -> None:
    # Two cases (P, R) = (1/2, 1) and (1, 1/2). Per-case F_0.5 = 2/3 for both, so
    # the mean is 2/3; F of the mean P and R (3/4, 3/4) would be 3/4. The paper
    # averages F over test cases.
    rows = [
        ("S", "t1", "precision", 0.5),
        ("S", "t1", "recall", 1.0),
        ("S", "t2", "precision", 1.0),
        ("S", "t2", "recall", 0.5),
    ]
    sweep = f_alpha_sweep(rows)
    assert list(sweep["S"]) == list(ALPHA_SWEEP)
    assert len(ALPHA_SWEEP) == 11 and ALPHA_SWEEP[0] == 0.0 and ALPHA_SWEEP[-1] == 1.0
    assert sweep["S"][0.5] == pytest.approx(2 / 3)
    assert sweep["S"][0.0] == pytest.approx(0.75)  # mean recall
    assert sweep["S"][1.0] == pytest.approx(0.75)  # mean precision
    # α = 0.2: (1/(0.4 + 0.8) + 1/(0.2 + 1.6)) / 2 = (5/6 + 5/9) / 2 = 25/36
    assert sweep["S"][0.2] == pytest.approx(25 / 36)


# -------------------------------------------------------- reference system


def three_systems() -> list[tuple]:
    # Y = (0.5, 0.5) everywhere; X = (0.6, 0.6) everywhere → UIR(X, Y) = 1.
    # Z: t1, t2 (0.7, 0.7); t3 (0.4, 0.4); t4 (0.9, 0.1).
    # UIR(Z, Y) = (2 − 1)/4 = 0.25 (t4 biased); UIR(Z, X) = 0.25 likewise.
    y = {t: {"precision": 0.5, "recall": 0.5} for t in ("t1", "t2", "t3", "t4")}
    x = {t: {"precision": 0.6, "recall": 0.6} for t in y}
    z = {
        "t1": {"precision": 0.7, "recall": 0.7},
        "t2": {"precision": 0.7, "recall": 0.7},
        "t3": {"precision": 0.4, "recall": 0.4},
        "t4": {"precision": 0.9, "recall": 0.1},
    }
    return long_rows(X=x, Y=y, Z=z)


def test_reference_system_is_the_system_that_improves_it_most() -> None:
    mat = uir_matrix(three_systems(), M)
    assert mat["X"]["Y"] == 1.0 and mat["Z"]["Y"] == 0.25 and mat["Z"]["X"] == 0.25
    ref = reference_system(mat)
    # §6.4: s_ref(a) = argmax_s UIR(s, a)
    assert (ref["Y"].reference, ref["Y"].uir) == ("X", 1.0)
    assert (ref["X"].reference, ref["X"].uir) == ("Z", 0.25)  # not Y, which X improves
    assert ref["Z"].tied == ("X", "Y") and ref["Z"].uir == -0.25 and ref["Z"].reference == "X"
    # Table 7's "improved systems" column: b with UIR(a, b) ≥ 0.25
    assert improved_systems(mat) == {"X": ["Y"], "Y": [], "Z": ["X", "Y"]}


def test_interpret_uir_rule_of_thumb() -> None:
    assert interpret_uir(0.25).startswith("robust improvement")
    assert interpret_uir(0.2499).startswith("not robust")
    assert interpret_uir(-0.2).startswith("not robust")
    assert interpret_uir(-0.3).startswith("robust degradation")
    assert interpret_uir(0.4, threshold=0.5).startswith("not robust")
    a, b = table3()
    # 0.2 < 0.25 and 2 of the 10 cases are metric-biased (§4.2): F depends on weights
    reading = interpret_uir(uir(a, b, M), names=("new", "old"))
    assert reading.startswith("not robust") and "weighted" in reading
    assert "2 metric-biased" in reading and "new" in reading and "old" in reading


def test_interpret_uir_ties_without_biased_cases() -> None:
    """181 cases: a better on both metrics in 6, equal in 175, none biased → UIR 6/181
    < 0.25 (ties cancel, §4.2), yet a ≥∀ b on every case, so F_α(a) ≥ F_α(b) on every
    case for every α (§5.2.1): the reading must not call it weight-dependent."""
    a = {t: {"precision": 0.9, "recall": 0.8 if t < 6 else 0.7} for t in range(181)}
    b = {t: {"precision": 0.9, "recall": 0.7} for t in range(181)}
    res = uir(a, b, M)
    assert (res.ties, res.biased, res.a_ge_b, res.b_ge_a) == (175, 0, 181, 175)
    assert res.uir == pytest.approx(6 / 181)
    for t in a:  # the claim of the reading, checked on F itself
        for alpha in ALPHA_SWEEP:
            assert f_alpha(a[t]["precision"], a[t]["recall"], alpha) >= f_alpha(
                b[t]["precision"], b[t]["recall"], alpha)
    reading = interpret_uir(res, names=("exp", "base"))
    assert "weighted" not in reading and "every weighting" in reading
    assert "exp is better or equal on every metric in every case" in reading
    assert "175 tied" in reading and "0 metric-biased" in reading
    back = interpret_uir(uir(b, a, M), names=("base", "exp"))
    assert "exp is better or equal" in back
    # both sides win some cases, none biased: not weight-dependent, but not robust
    c = {t: {"precision": 0.9, "recall": 0.6 if t < 3 else a[t]["recall"]} for t in a}
    mixed = interpret_uir(uir(c, b, M), names=("c", "base"))
    assert mixed.startswith("not robust") and "each system is better on some" in mixed


def test_f_alpha_metrics_pair() -> None:
    assert f_alpha_metrics(["recall", "precision"]) == ("precision", "recall")
    assert f_alpha_metrics(["bcp", "bcr"]) == ("bcp", "bcr")
    assert f_alpha_metrics(["precision"]) is None
    assert f_alpha_metrics(["precision", "recall", "f1"]) is None
    with pytest.raises(UirInputError, match=">= 0"):
        f_alpha_sweep([("S", 1, "p", -0.5), ("S", 1, "r", 0.5)], "p", "r")


@pytest.mark.parametrize("n", range(1, 9))
def test_too_few_cases_are_never_read_as_robust(n: int) -> None:
    """With n cases, a unanimous win in all n is UIR 1; whether that can be told from
    chance is the two-sided sign test, computed here from its definition (2 · 0.5^n)
    rather than taken from the code: under 5% only from 6 cases on. Below that the
    reading says the rule of thumb holds but the cases are too few, in both directions."""
    a = {t: {"precision": 0.9, "recall": 0.8} for t in range(n)}
    b = {t: {"precision": 0.8, "recall": 0.7} for t in range(n)}
    p_value = 2 * Fraction(1, 2) ** n
    for res, better in ((uir(a, b, M), "new"), (uir(b, a, M), "new")):
        assert abs(res.uir) == 1.0
        reading = interpret_uir(res, names=("new", "old") if res.uir > 0 else ("old", "new"))
        if p_value < Fraction(5, 100):
            assert reading.startswith(("robust improvement", "robust degradation")), reading
        else:
            assert "too few to call it robust" in reading and "robust improvement" not in \
                reading and "robust degradation" not in reading, reading
            assert f"even all {n} favouring {better}" in reading, reading
    # two cases, one win and one tie: UIR 0.5, over the 0.25 threshold, still too few
    b2 = {0: b[0], 1: dict(a[0])} if n == 2 else None
    if b2 is not None:
        res = uir({0: a[0], 1: a[0]}, b2, M)
        assert (res.uir, res.ties) == (0.5, 1)
        assert "too few to call it robust" in interpret_uir(res)
