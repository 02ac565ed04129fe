"""`python -m abcde ...`: the same command line as the `abcde` script (useful where the
virtualenv's bin directory is not on PATH)."""

from abcde.cli import main

main(prog_name="abcde")
