"""`python -m abcde.cli ...`: the `abcde` command line."""

from abcde.cli import main

main(prog_name="abcde")
