"""Sampling in the engine (ABCDE App. A): exponential clocks, the importance-sampled
items and their exploration (ABCDE §4.1.1), and the pairs for judgement (ABCDE §5.7;
Jaccard decomposition §7), plain or stratified."""
