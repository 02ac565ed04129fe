"""An estimated quality metric with its standard error and confidence interval, and the
ways one is made (docs/method.md §8.7–8.8): a Wald interval, a Wilson interval of a
scaled proportion, an exact 0, an undefined metric, a sum of independent parts, a
known multiple.

The statistics behind them are in :mod:`abcde.quality.intervals`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from abcde.quality.intervals import effective_n, interval, mover_limits, z_value

INTERVAL_KINDS = ("wald", "wilson", "mover", "exact")
"""How an :class:`Estimate`'s interval was made (docs/method.md §8.8): "wilson" is the
modified Wilson interval of :func:`~abcde.quality.intervals.interval`."""


@dataclass(frozen=True)
class UnknownRange:
    """What a metric's point estimate would be if every unknown verdict of the sample were
    one value (docs/method.md §8.11, "Unknown verdicts: a sensitivity range").

    ``all_equivalent`` and ``all_not_equivalent`` re-run the metric's estimator with every
    unknown verdict set to "equivalent", resp. "not equivalent" (ABCDE §5.7: a split pair
    judged equivalent is a bad split, a merge pair judged equivalent a good merge);
    ``low`` and ``high`` are the smaller and the larger. ``unknown_pairs`` counts the
    unknown pairs among the draws of the metric's classes. For a metric of one part, or of
    parts that all move one way (the rates, split and merge distances, affected indexes),
    the ends bound the estimate of every assignment of the unknowns; ΔPrecision,
    GoodDistance and BadDistance mix parts that move opposite ways, and their ends are
    only those two assignments.
    """

    all_equivalent: float
    all_not_equivalent: float
    unknown_pairs: int

    @property
    def low(self) -> float:
        """The smaller end."""
        return min(self.all_equivalent, self.all_not_equivalent)

    @property
    def high(self) -> float:
        """The larger end."""
        return max(self.all_equivalent, self.all_not_equivalent)

    def as_dict(self) -> dict[str, Any]:
        """The JSON-ready form (``unknown_range`` of ``abcde estimate --format json``)."""
        return {"low": self.low, "high": self.high, "all_equivalent": self.all_equivalent,
                "all_not_equivalent": self.all_not_equivalent,
                "unknown_pairs": self.unknown_pairs}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> UnknownRange | None:
        """Inverse of :meth:`as_dict` (None stays None)."""
        if d is None:
            return None
        return cls(d["all_equivalent"], d["all_not_equivalent"], d["unknown_pairs"])

    def contained_in(self, low: float | None, high: float | None) -> bool:
        """Whether both ends lie within [low, high]."""
        return low is not None and high is not None and low <= self.low and self.high <= high


@dataclass(frozen=True)
class Estimate:
    """An estimated metric with its standard error and confidence interval.

    ``estimate`` is None when the sample cannot estimate the metric (``note`` says why);
    ``se`` is None when the standard error is undefined (a single draw), ``ci_*`` when no
    interval can be given. ``interval`` names how the interval was made: "wald"
    (estimate ± z·SE), "wilson" (score interval of a proportion with ``n_eff`` effective
    observations), "mover" (a sum of parts, at least one of them Wilson), "exact" (no
    sampling error). ``pairs`` counts the distinct judged unordered pairs used,
    ``draws`` the draws they carry; ``multiplier`` is the exact total of the sampled
    parts (docs/method.md §8.2) and ``exact`` the part added without sampling (the self
    pairs', §6.8). ``not_conclusive`` is None, or why the interval is not to be trusted
    (too few effective draws, heavy-tailed weights: docs/method.md §8.11).
    ``unknown_range`` is None when none of the metric's draws has an unknown verdict, else
    the estimates with every unknown verdict equivalent and not equivalent
    (:class:`UnknownRange`; docs/method.md §8.11): how far the unknowns could move the
    estimate, which the interval (resting on their being missing at random) does not show.
    """

    estimate: float | None
    se: float | None
    ci_low: float | None
    ci_high: float | None
    pairs: int
    draws: int
    multiplier: float
    confidence: float = 0.95
    note: str | None = None
    interval: str = "wald"
    n_eff: float | None = None
    exact: float = 0.0
    not_conclusive: str | None = None
    unknown_range: UnknownRange | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON-ready form, as in ``abcde estimate --format json``."""
        return {
            "estimate": self.estimate,
            "se": self.se,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "confidence": self.confidence,
            "interval": self.interval,
            "n_eff": self.n_eff,
            "pairs": self.pairs,
            "draws": self.draws,
            "multiplier": self.multiplier,
            # the part known without sampling (the self pairs', §6.8); "exact", its old
            # name, stays for readers of earlier documents
            "self_pair_part": self.exact,
            "exact": self.exact,
            "not_conclusive": self.not_conclusive,
            "note": self.note,
            "unknown_range": None if self.unknown_range is None else self.unknown_range.as_dict(),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Estimate:
        """Inverse of :meth:`as_dict`."""
        fields = {f: d[f] for f in cls.__dataclass_fields__ if f in d}
        if "unknown_range" in fields:
            fields["unknown_range"] = UnknownRange.from_dict(fields["unknown_range"])
        return cls(**fields)


def undefined(
    multiplier: float, note: str, confidence: float = 0.95, *, pairs: int = 0, draws: int = 0
) -> Estimate:
    """A metric the sample cannot estimate: estimate None and the reason.

    Parameters
    ----------
    multiplier : float
        The metric's population total.
    note : str
        Why, e.g. "undefined: split pairs were drawn but none has a verdict, …".
    confidence : float
        The level the intervals were asked for.
    pairs, draws : int
        Judged pairs and their draws that were in scope.

    Returns
    -------
    Estimate
        With estimate, se and limits None and the interval kind "wald".

    References
    ----------
    docs/method.md §8.3 (a class drawn but never judged), §8.6 (what the abcde
    population cannot give).
    """
    return Estimate(None, None, None, None, pairs, draws, multiplier, confidence, note)


def scaled_estimate(
    mean: float | None,
    se: float | None,
    multiplier: float,
    *,
    pairs: int,
    draws: int,
    confidence: float = 0.95,
    note: str | None = None,
) -> Estimate:
    """multiplier × a weighted mean, with SE(c·X) = c·SE(X) and a normal (Wald) interval.

    Parameters
    ----------
    mean : float or None
        The weighted mean; None makes the estimate undefined.
    se : float or None
        Its standard error; None or NaN when undefined (no interval then).
    multiplier : float
        The constant c ≥ 0 (a population total).
    pairs, draws : int
        Judged pairs and their draws behind the mean.
    confidence : float
        Level of the interval estimate ± z·SE.
    note : str, optional
        Carried into the result (a default one is given when the SE is undefined).

    Returns
    -------
    Estimate
        Interval kind "wald".

    References
    ----------
    docs/method.md §8.7 (scaling), §8.8 (ΔPrecision's Wald interval). ABCDE §5.8
    (S. van Staden, A. Grubb. ABCDE: Application-Based Cluster Diff Evals. Google, 2024,
    arXiv:2407.21430).
    """
    if mean is None:
        return Estimate(None, None, None, None, pairs, draws, multiplier, confidence, note)
    value = multiplier * mean
    if se is None or math.isnan(se):
        note = note or "standard error undefined: fewer than two draws"
        return Estimate(value, None, None, None, pairs, draws, multiplier, confidence, note)
    scaled_se = abs(multiplier) * se
    half = z_value(confidence) * scaled_se
    return Estimate(
        value, scaled_se, value - half, value + half, pairs, draws, multiplier, confidence, note
    )


def proportion_estimate(
    p: float,
    se: float | None,
    n_eff_design: float,
    multiplier: float,
    *,
    pairs: int,
    draws: int,
    confidence: float = 0.95,
    note: str | None = None,
) -> Estimate:
    """multiplier × a weighted proportion p̂, with the Wilson interval of p̂.

    SE(c·X) = c·SE(X); the interval is c × Wilson's interval of p̂ at the effective
    sample size :func:`~abcde.quality.intervals.effective_n` (p̂(1 − p̂)/SE² truncated
    at ``n_eff_design``), so it lies in [0, multiplier] and has positive width.

    Parameters
    ----------
    p : float
        The weighted proportion p̂ ∈ [0, 1].
    se : float or None
        Its standard error; None or NaN when undefined.
    n_eff_design : float
        The design's effective sample size
        (:func:`~abcde.quality.intervals.design_n_eff`).
    multiplier : float
        The constant c ≥ 0 (a population total or an exact rate).
    pairs, draws : int
        Judged pairs and their draws behind p̂.
    confidence : float
        The interval's level.
    note : str, optional
        Carried into the result (a default one is given when the SE is undefined).

    Returns
    -------
    Estimate
        Interval kind "wilson", with ``n_eff``.

    References
    ----------
    docs/method.md §8.8. E. B. Wilson. Probable inference, the law of succession, and
    statistical inference. Journal of the American Statistical Association
    22(158):209–212, 1927. E. L. Korn, B. I. Graubard. Confidence intervals for
    proportions with small expected number of positive counts estimated from survey
    data. Survey Methodology 24(2):193–201, 1998.
    """
    se_ok = se is not None and math.isfinite(se)
    n_eff = effective_n(p, se if se_ok else None, n_eff_design)
    lo, hi = interval(p, n_eff, confidence, method="wilson")
    if not se_ok:
        note = note or "standard error undefined: fewer than two draws"
    return Estimate(
        multiplier * p,
        multiplier * se if se_ok and se is not None else None,
        multiplier * lo,
        multiplier * hi,
        pairs,
        draws,
        multiplier,
        confidence,
        note,
        "wilson",
        n_eff,
    )


def exact_zero(multiplier: float, what: str, confidence: float = 0.95) -> Estimate:
    """A metric over an empty pair class: exactly 0, no sampling error.

    Parameters
    ----------
    multiplier : float
        The metric's population total (0).
    what : str
        Why, appended to the note "exactly 0: ".
    confidence : float
        The level the intervals were asked for.

    Returns
    -------
    Estimate
        Estimate, SE and limits 0, interval kind "exact".

    References
    ----------
    docs/method.md §8.3.
    """
    return Estimate(
        0.0, 0.0, 0.0, 0.0, 0, 0, multiplier, confidence, f"exactly 0: {what}", "exact"
    )


def exact_value(value: float, confidence: float = 0.95, note: str | None = None) -> Estimate:
    """A metric that needs no verdict: its exact value, no sampling error.

    The only estimates labelled "exact": every pair of the metric is a self pair (added
    exactly, docs/method.md §6.8) or the population has none of its pairs.

    Parameters
    ----------
    value : float
        The exact value.
    confidence : float
        The level the intervals were asked for.
    note : str, optional
        Why it is exact.

    Returns
    -------
    Estimate
        SE 0, both limits the value, interval kind "exact", ``exact`` the value.

    References
    ----------
    docs/method.md §6.8, §8.8.
    """
    return Estimate(value, 0.0, value, value, 0, 0, 0.0, confidence, note, "exact",
                    exact=value)


def sum_independent(parts: Sequence[Estimate], confidence: float = 0.95) -> Estimate:
    """Sum of estimates from disjoint pair classes or independent strata.

    SEs add in quadrature; intervals combine by MOVER
    (:func:`~abcde.quality.intervals.mover_limits`), the quadrature sum for symmetric
    (Wald) parts that keeps the asymmetry of Wilson parts. Undefined when a part is
    (the notes joined).

    Parameters
    ----------
    parts : sequence of Estimate
        Independent estimates (disjoint pair classes, or strata sampled independently).
    confidence : float
        The level of the parts' intervals.

    Returns
    -------
    Estimate
        Interval kind "exact" when every part is exact, "wald" when every inexact part is
        Wald, "mover" otherwise; ``pairs``, ``draws`` and ``multiplier`` summed.

    References
    ----------
    docs/method.md §8.7–8.8, §8.10. Jaccard decomposition §4.4, §8 (S. van Staden.
    Decomposing the Jaccard Distance and the Jaccard Index in ABCDE. Google Switzerland,
    2024). R. G. Newcombe. Interval estimation for the difference between independent
    proportions: comparison of eleven methods. Statistics in Medicine 17(8):873–890,
    1998. G. Y. Zou, A. Donner. Construction of confidence limits about effect measures:
    a general approach. Statistics in Medicine 27(10):1693–1702, 2008.
    """
    missing = [p.note or "undefined" for p in parts if p.estimate is None]
    pairs = sum(p.pairs for p in parts)
    draws = sum(p.draws for p in parts)
    multiplier = sum(p.multiplier for p in parts)
    if missing:
        return undefined(multiplier, "; ".join(missing), confidence, pairs=pairs, draws=draws)
    value = float(sum(p.estimate for p in parts if p.estimate is not None))
    notes = [p.note for p in parts if p.note]
    se = None
    if all(p.se is not None for p in parts):
        se = math.sqrt(sum(p.se**2 for p in parts if p.se is not None))
    elif not notes:
        notes = ["standard error undefined: a part has fewer than two draws"]
    kinds = {p.interval for p in parts} - {"exact"}
    kind = "exact" if not kinds else "wald" if kinds == {"wald"} else "mover"
    lo = hi = None
    if all(p.ci_low is not None and p.ci_high is not None for p in parts):
        lo, hi = mover_limits(
            [p.estimate or 0.0 for p in parts],
            [p.ci_low or 0.0 for p in parts],
            [p.ci_high or 0.0 for p in parts],
        )
    return Estimate(
        value,
        se,
        lo,
        hi,
        pairs,
        draws,
        multiplier,
        confidence,
        "; ".join(dict.fromkeys(notes)) or None,
        kind,
    )


def rescaled(est: Estimate, factor: float) -> Estimate:
    """``est`` × a known constant factor > 0: estimate, SE, limits and multiplier.

    Parameters
    ----------
    est : Estimate
        The estimate to scale.
    factor : float
        The constant, e.g. W / weight(I) for a slice's ΔPrecision.

    Returns
    -------
    Estimate
        The same interval kind, note and counts.

    References
    ----------
    docs/method.md §8.7 (SE(c·X) = c·SE(X)), §8.9.
    """

    def times(x: float | None) -> float | None:
        return None if x is None else x * factor

    return replace(
        est,
        estimate=times(est.estimate),
        se=times(est.se),
        ci_low=times(est.ci_low),
        ci_high=times(est.ci_high),
        multiplier=est.multiplier * factor,
    )
