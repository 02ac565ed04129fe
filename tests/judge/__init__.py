"""Tests of `abcde judge` (a package, so that its conftest never shadows tests/conftest.py
for the modules that import from it)."""
