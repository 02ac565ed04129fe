"""[UIR] Table 3 (§4.2) as score tables, shared by the UIR tests: 10 test cases, a ≥∀ b on
6, b ≥∀ a on 4 (two of them ties), two metric-biased; UIR(a, b) = 0.2.

E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the
unanimous improvement ratio and its application to clustering tasks. JAIR 42 (2011)
689–718, §4.2, Table 3.
"""

from __future__ import annotations

M = ("precision", "recall")

# Table 3 of the paper (§4.2) prints 10 test cases with the columns "a ≥ b" =
# yes ×6 then no ×4, and "b ≥ a" = yes, yes, no ×4, yes, yes, no, no. These
# (P_a, P_b, R_a, R_b) are chosen to reproduce exactly those columns: cases 1-2 ties,
# 3-6 a unanimously better (3 and 5 on both metrics, 4 and 6 on one metric with the
# other equal), 7-8 b unanimously better, 9-10 metric-biased.
TABLE3 = {
    1: (0.50, 0.50, 0.50, 0.50),
    2: (0.70, 0.70, 0.30, 0.30),
    3: (0.60, 0.50, 0.60, 0.50),
    4: (0.80, 0.60, 0.40, 0.40),
    5: (0.90, 0.20, 0.80, 0.10),
    6: (0.40, 0.40, 0.70, 0.20),
    7: (0.20, 0.60, 0.30, 0.50),
    8: (0.30, 0.30, 0.10, 0.60),
    9: (0.90, 0.50, 0.20, 0.60),
    10: (0.20, 0.40, 0.80, 0.30),
}
A_GE_B = [True] * 6 + [False] * 4
B_GE_A = [True, True, False, False, False, False, True, True, False, False]


def table3() -> tuple[dict, dict]:
    a = {t: {"precision": pa, "recall": ra} for t, (pa, _pb, ra, _rb) in TABLE3.items()}
    b = {t: {"precision": pb, "recall": rb} for t, (_pa, pb, _ra, rb) in TABLE3.items()}
    return a, b


def long_rows(**systems: dict) -> list[tuple]:
    return [
        (s, t, m, v)
        for s, per_case in systems.items()
        for t, r in per_case.items()
        for m, v in r.items()
    ]
