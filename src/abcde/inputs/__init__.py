"""Inputs: what the user names (the input specification), how each source is read
and registered with an engine, and every check of the rows (run in SQL)."""
