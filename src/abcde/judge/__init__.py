"""``abcde judge``: judge a pair sample in the browser (docs/method.md §12)."""
