"""Quality from judged pairs (ABCDE §5; Jaccard decomposition §6–8): reading
judgements, the estimators and their intervals, and simulated rounds."""
