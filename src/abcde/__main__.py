"""The `abcde` command line's entry point: the `abcde` script (pyproject.toml) and
`python -m abcde` (where the virtualenv's bin directory is not on PATH). Ctrl-C while the
command line is still being imported is "interrupted", exit 130, as inside a command:
`import abcde` itself is light (abcde/__init__.py), so this guard covers almost all of
start-up."""

import sys


def run() -> None:
    try:
        from abcde.cli import main
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    main(prog_name="abcde")


if __name__ == "__main__":
    run()
