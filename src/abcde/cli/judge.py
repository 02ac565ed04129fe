"""`abcde judge`: judge a pair sample's questions in the browser (docs/method.md §12)."""

from __future__ import annotations

import getpass
import sys

import click

from abcde.cli._common import Checked, ExistingPath
from abcde.errors import InputError
from abcde.params import Real

OVERLAP = Real(0.0, 1.0)


def _default_judge() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "judge"


@click.command("judge")
@click.argument("sample_dir", type=ExistingPath(file_okay=False))
@click.option("--judge", "judge_name", default=None,
              help="Your name in DIR/verdicts.jsonl (default: your login name). Every "
              "judge runs their own `abcde judge` on the same DIR.")
@click.option("--port", type=int, default=0, show_default="a free port",
              help="Port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but loopback lets other machines "
              "reach the page (the token still guards it; the traffic is plain HTTP).")
@click.option("--open", "open_browser", is_flag=True,
              help="Open the page in your default browser.")
@click.option("--overlap", type=Checked(OVERLAP, click.FLOAT), default=None,
              show_default="the value DIR/verdicts.jsonl records, else 0",
              help="Share of the pairs (0-1) shown to every judge, for agreement; the "
              "other pairs need one verdict from anyone. Recorded in the log with the "
              "first verdict: a judge started with another value is refused.")
@click.option("--image-col", "image_cols", multiple=True, metavar="ATTR",
              help="Attribute holding an image URL (http/https), shown as the image. "
              "Repeat or comma-separate.")
@click.option("--link-col", "link_cols", multiple=True, metavar="ATTR",
              help="Attribute holding a web address, shown as a link. Repeat or "
              "comma-separate.")
@click.option("--show-estimates", is_flag=True,
              help="Show ΔPrecision and the split/merge rates as verdicts arrive (off by "
              "default so the numbers do not sway the judges).")
@click.option("--stop-when", multiple=True, help="With the estimates, the stop signal for "
              "a question, as for `abcde estimate --stop-when` ('delta_precision>0', "
              "'halfwidth<=0.01'); implies --show-estimates.")
def judge_cmd(sample_dir: str, judge_name: str | None, port: int, host: str,
              open_browser: bool, overlap: float | None, image_cols: tuple[str, ...],
              link_cols: tuple[str, ...], show_estimates: bool,
              stop_when: tuple[str, ...]) -> None:
    """Judge the pairs of a sample in the browser: one pair at a time, side by side,
    one key per verdict; every verdict is appended to DIR/verdicts.jsonl. DIR is the
    directory of `abcde sample-pairs --out`, or a warehouse sample's exported tables
    (pair_manifest, pair_sample, pair_questions; only read)."""
    from abcde.judge.app import PageOptions, estimate_command, judge_app
    from abcde.judge.questions import load_questions, resolve_columns
    from abcde.judge.session import JudgeSession
    from abcde.sample_files.verdicts import check_writable
    from abcde.server import run
    from abcde.server.app import allowed_hosts

    sample = load_questions(sample_dir)
    images = resolve_columns(sample, image_cols, "--image-col")
    links = resolve_columns(sample, link_cols, "--link-col")
    both = [a for a in images if a in links]
    if both:  # the page would show it as a link only, dropping the image unsaid
        raise InputError(f"--image-col and --link-col both name {', '.join(map(repr, both))}: "
                         "an attribute is shown either as an image or as a link",
                         hint="Name it once: an image is also a link to its address.")
    check_writable(sample.directory)
    session = JudgeSession(sample, _default_judge() if judge_name is None else judge_name,
                           overlap)
    sock = run.bind(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    token = run.new_token()
    app = judge_app(session, token, allowed_hosts(bound_host, bound_port),
                    PageOptions(images, links, show_estimates or bool(stop_when), stop_when))
    url = run.url_of(sock, "/", token)
    progress = session.progress(session.snapshot())
    estimate = estimate_command(sample.directory)
    click.echo(f"abcde judge: sample {sample.sample_id}, judge {session.judge!r}: "
               f"{progress['judged']} of {progress['assigned']} pairs judged, overlap "
               f"{session.overlap!r} (verdicts go to {session.log_path})")
    if not progress["left"]:
        click.echo(f"nothing is left for {session.judge!r} to judge: the round has a verdict "
                   f"on {progress['round_judged']} of {progress['round_pairs']} pairs. "
                   + _next_step(progress, estimate))
    # a line torn by a crash (a verdict not there), and what the sample's loader noticed
    for warning in [*session.log.warnings(), *sample.notes]:
        click.echo(f"warning: {warning}", err=True)
    if not sample.attributes:
        draw = ("`abcde sql sample-pairs ... --attributes TABLE`, run it and export "
                "pair_questions again" if sample.exported
                else "`abcde sample-pairs ... --attributes FILE`")
        click.echo(f"warning: the questions of {sample.directory} carry no attributes (the "
                   "sample was drawn without --attributes): judges see only the two item "
                   f"ids. Draw it with {draw} to show the items' attributes.", err=True)
    if not run.is_loopback(bound_host):
        click.echo(f"warning: listening on {bound_host}, reachable from other machines; "
                   "anyone with the URL can judge as you", err=True)
    click.echo(f"Open {url}\nPress Ctrl-C to stop (every verdict is already saved).")
    sys.stdout.flush()
    run.serve(app, sock, open_url=url if open_browser else None)
    snap = session.snapshot()
    progress = session.progress(snap)
    click.echo(f"stopped: {len(snap.mine)} verdicts of {session.judge!r} in "
               f"{session.log_path}; the round has a verdict on {progress['round_judged']} "
               f"of {progress['round_pairs']} pairs\n" + _next_step(progress, estimate))


def _next_step(progress: dict[str, int], command: str) -> str:
    complete = progress["round_judged"] == progress["round_pairs"]
    return f"{'Estimate' if complete else 'When the round is complete, estimate'} with: {command}"


COMMANDS = (judge_cmd,)
