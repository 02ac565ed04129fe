"""`python -m abcde ...`: the same command line as the `abcde` script (useful where the
virtualenv's bin directory is not on PATH). Ctrl-C while the command line is still
being imported is "interrupted", exit 130, as inside a command."""

import sys

try:
    from abcde.cli import main
except KeyboardInterrupt:
    print("interrupted", file=sys.stderr)
    sys.exit(130)

main(prog_name="abcde")
