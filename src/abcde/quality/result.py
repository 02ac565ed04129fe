"""An estimated quality metric with its standard error and interval (docs/method.md
§8.7–8.8, §8.11): the one result type of the estimators."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class UnknownRange:
    """The point estimate if every unknown verdict were "equivalent", resp. "not
    equivalent" (docs/method.md §8.11). Metrics whose parts all move one way (the rates,
    split and merge distances, indexes) lie between the ends for every assignment of the
    unknowns; ΔPrecision, GoodDistance and BadDistance need not."""

    all_equivalent: float
    all_not_equivalent: float
    unknown_pairs: int

    @property
    def low(self) -> float:
        return min(self.all_equivalent, self.all_not_equivalent)

    @property
    def high(self) -> float:
        return max(self.all_equivalent, self.all_not_equivalent)

    def as_dict(self) -> dict[str, Any]:
        return {"low": self.low, "high": self.high, **asdict(self)}


@dataclass(frozen=True)
class Estimate:
    """A metric's estimate, SE and interval (None when the sample cannot tell: ``note``
    says why; an SE of None when a single draw carries it). ``pairs`` and ``draws`` count
    the judged pairs used, ``multiplier`` the exact total of the sampled parts and
    ``exact`` the part added without sampling (the self pairs', docs/method.md §6.8).
    ``interval`` says how the interval was made: "wilson" (the modified Wilson interval
    of one part), "mover" (a sum of parts), "exact" (no sampling error), "wald" (none);
    ``not_conclusive`` why the interval is not to be trusted (§8.11); ``unknown_range``
    how far the unknown verdicts could move the estimate."""

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
        """The JSON form of ``abcde estimate --format json``."""
        out = {k: getattr(self, k) for k in (
            "estimate", "se", "ci_low", "ci_high", "confidence", "interval", "n_eff",
            "pairs", "draws", "multiplier")}
        out["self_pair_part"] = self.exact  # the JSON has it under both keys
        out.update(exact=self.exact, not_conclusive=self.not_conclusive, note=self.note)
        out["unknown_range"] = self.unknown_range and self.unknown_range.as_dict()
        return out

