"""Impact metrics between a Baseline and an Experiment clustering (ABCDE §4): the run,
and its text report."""
