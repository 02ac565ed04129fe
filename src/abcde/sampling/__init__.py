"""Sampling in the engine (ABCDE App. A): exponential clocks, the importance-sampled
items and their exploration (ABCDE §4.1.1), and the pairs for judgement (ABCDE §5.7;
Jaccard decomposition §7), plain or stratified."""

# The largest seed: seeds are written into the SQL as integer literals, and BigQuery's
# INT64 (like every engine's BIGINT) holds at most 2^63 − 1; a stratified sample draws
# stratum h with seed 2·seed + h, so seeds stop at 2^62 − 1. One bound for every command
# and engine: a seed any of them accepts draws the same sample on all (docs/method.md §7.8).
# Here, not in clocks.py, so that the CLI reads it without importing numpy.
MAX_SEED = 2**62 - 1
SEED_RANGE_TEXT = f"between 0 and {MAX_SEED} (2^62 - 1)"
