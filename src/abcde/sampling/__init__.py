"""Sampling in the engine (ABCDE App. A): exponential clocks, the importance-sampled
items and their exploration (ABCDE §4.1.1), and the pairs for judgement (ABCDE §5.7;
Jaccard decomposition §7), plain or stratified."""

from abcde.params import MAX_SEED

SEED_RANGE_TEXT = f"between 0 and {MAX_SEED} (2^62 - 1)"
