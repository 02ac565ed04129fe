"""Real engines for the test session: a throwaway PostgreSQL server on 127.0.0.1, a
Spark local[2] session and a Spark Connect server on 127.0.0.1 (settings and recipe:
docs/method.md §11), each started once and stopped at the end of the session, and the
`engine` fixture that parametrises a test over DuckDB, PostgreSQL and Spark; and headless
Debian Chromium driven by Selenium (`browser_factory`, for the pages of tests/judge and
tests/report).

When a server's binaries are missing the fixture FAILS in CI (environment variable CI
set, as `.ci/run` does) and skips locally with the reason: CI must never pass by
skipping the real engines.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_guard import guard, release

from abcde.engines import Engine

# A shell that starts the suite in the background (`make test &` in a script) ignores
# SIGINT, and every abcde process a test starts would inherit that: the interrupt tests
# send SIGINT and expect exit 130. Ctrl-C as a terminal sends it, whatever the launch.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def unavailable(reason: str) -> None:
    """Fail in CI, skip locally."""
    if in_ci():
        pytest.fail(f"{reason} (CI is set: real engines must run; .ci/run installs them)")
    pytest.skip(reason)


def _free_port() -> int:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: [int(x) if x.isdigit() else 0 for x in p.split("/")])
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """A throwaway PostgreSQL server (initdb + pg_ctl, trust auth, fsync off) on a free
    port of 127.0.0.1; its DSN. Root runs the server as user `postgres`."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        unavailable("psycopg is not installed (pip install 'abcde[postgres]')")
    pg_bin = _pg_bin()
    if pg_bin is None or not (pg_bin / "pg_ctl").exists():
        unavailable("PostgreSQL server binaries (initdb, pg_ctl) not found; "
                    "apt-get install postgresql")
    as_root = os.geteuid() == 0
    if as_root:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            unavailable("running as root but there is no user 'postgres' to run the server")
    data = Path(tempfile.mkdtemp(prefix="abcde_pgdata_"))
    sock = Path(tempfile.mkdtemp(prefix="abcde_pgsock_"))
    if as_root:
        shutil.chown(data, "postgres", "postgres")
        shutil.chown(sock, "postgres", "postgres")
    port = _free_port()

    def command(*args: object) -> list[str]:
        cmd = [str(a) for a in args]
        if as_root:
            cmd = ["su", "postgres", "-s", "/bin/sh", "-c",
                   " ".join(f"'{c}'" for c in cmd)]
        return cmd

    def run(*args: object) -> None:
        subprocess.run(command(*args), check=True, capture_output=True, timeout=120)

    try:
        run(pg_bin / "initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
            "--locale=C.UTF-8")
        run(pg_bin / "pg_ctl", "-D", data, "-l", data / "log", "-w", "-o",
            f"-c listen_addresses=127.0.0.1 -p {port} -k {sock} -c fsync=off", "start")
    except subprocess.CalledProcessError as err:
        log = data / "log"
        pytest.fail(f"cannot start PostgreSQL: {err.stderr.decode(errors='replace')}"
                    + (log.read_text(errors="replace") if log.exists() else ""))
    # pg_ctl daemonises the server: a killed test run would leave it running
    watch = guard(commands=[command(pg_bin / "pg_ctl", "-D", data, "-m", "immediate", "-w",
                                    "stop")], remove=[data, sock])
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        release(watch)
        with contextlib.suppress(Exception):
            run(pg_bin / "pg_ctl", "-D", data, "-m", "fast", "-w", "stop")
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(sock, ignore_errors=True)


@pytest.fixture(scope="session")
def spark_session() -> Iterator[object]:
    """One Spark local[2] session for the whole run (start-up takes 10-17 s)."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        unavailable("pyspark is not installed (pip install 'abcde[spark]')")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        unavailable("no Java runtime for Spark; apt-get install openjdk-17-jre-headless")
    from abcde.engines.spark import local_session

    # the warehouse and the JVM's log in one directory removed at the end (without a
    # log_dir, local_session leaves a temporary one behind)
    work = Path(tempfile.mkdtemp(prefix="abcde_spark_test_"))
    # the JVM ends with this process (it reads our stdin); its directory would not
    watch = guard(remove=[work])
    session = local_session("local[2]", warehouse=work / "warehouse", log_dir=work / "logs")
    try:
        yield session
    finally:
        release(watch)
        session.stop()
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="session")
def spark_connect_url() -> Iterator[str]:
    """A Spark Connect server (shipped with pyspark 4) on a free port of 127.0.0.1,
    local[2], started once for the session and stopped at its end; its URL."""
    try:
        import pyspark
        from pyspark.sql.connect.client.retries import DefaultPolicy  # noqa: F401
    except ImportError:
        unavailable("the Spark Connect client is not installed (pip install 'abcde[spark]')")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        unavailable("no Java runtime for Spark; apt-get install openjdk-17-jre-headless")
    home = Path(pyspark.__file__).resolve().parent
    work = Path(tempfile.mkdtemp(prefix="abcde_spark_connect_"))
    port = _free_port()
    confs = {"spark.connect.grpc.binding.address": "127.0.0.1",
             "spark.connect.grpc.binding.port": str(port), "spark.ui.enabled": "false",
             "spark.sql.shuffle.partitions": "4", "spark.driver.memory": "1g",
             "spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1",
             "spark.sql.session.timeZone": "UTC",
             "spark.sql.warehouse.dir": str(work / "warehouse")}
    cmd = [str(home / "bin" / "spark-submit"), "--class",
           "org.apache.spark.sql.connect.service.SparkConnectServer", "--master", "local[2]",
           "--driver-java-options", f"-Dderby.system.home={work}"]
    for key, value in confs.items():
        cmd += ["--conf", f"{key}={value}"]
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1"}
    log = (work / "server.log").open("wb")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=work, env=env,
                            start_new_session=True)
    watch = guard(killpg=proc.pid, remove=[work])  # its own group: not killed with pytest
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail("the Spark Connect server exited:\n"
                            + (work / "server.log").read_text(errors="replace")[-3000:])
            with contextlib.closing(socket.socket()) as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                pytest.fail("the Spark Connect server did not listen within 180 s")
            time.sleep(0.5)
        yield f"sc://127.0.0.1:{port}"
    finally:
        release(watch)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="session")
def spark_connect_session(spark_connect_url: str) -> Iterator[object]:
    """One Spark Connect client session of the session's server."""
    from abcde.engines.spark import remote_session

    session = remote_session(spark_connect_url)
    try:
        yield session
    finally:
        with contextlib.suppress(Exception):
            session.stop()


CONNECT_FIXTURES = {"spark_connect_url", "spark_connect_session"}
# pytest's own fixtures, none of which reaches a Spark session (`request` does when a test
# takes it itself: `make_engine(request, "spark")`)
BUILTIN_FIXTURES = {"request", "tmp_path", "tmp_path_factory", "monkeypatch", "capsys",
                    "capfd", "caplog", "recwarn", "pytestconfig"}


def _own_jvm(item: pytest.Item, names: set[str]) -> bool:
    """A Spark test that uses no fixture of a Spark session (its JVM is a subprocess's)."""
    own = getattr(getattr(item, "_fixtureinfo", None), "argnames", ())
    return names <= BUILTIN_FIXTURES and "request" not in own


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`make test` runs the suite on two pytest-xdist workers (`--dist loadgroup`): the
    tests of one server, and those that install dbt or fakesnow, share a group so that one
    worker starts that server (or fills the virtualenv) once — never two at a time. The
    local Spark session and the Spark Connect server are two groups, so that the two
    workers can share the Spark tests; a Spark test that starts its own JVM in a
    subprocess and uses neither is in no group. Tests that drive Chromium (tests/judge:
    the `browser_factory` fixture) get the `browser` mark and share a group too: two
    browsers at once on two cores only slow each other."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if "browser_factory" in names:
            item.add_marker(pytest.mark.browser)
        if item.get_closest_marker("spark") is not None:
            group = ("spark-connect" if names & CONNECT_FIXTURES
                     else None if _own_jvm(item, names) else "spark")
        elif item.get_closest_marker("postgres") is not None:
            group = "postgres"
        elif item.get_closest_marker("browser") is not None:
            group = "browser"
        else:
            group = ("dbt" if "dbt_bin" in names
                     else "fakesnow" if "fakesnow_python" in names else None)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


ENGINE_NAMES = ("duckdb", "postgres", "spark")


@pytest.fixture(params=[
    "duckdb",
    pytest.param("postgres", marks=pytest.mark.postgres),
    pytest.param("spark", marks=pytest.mark.spark),
])
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    """A fresh Engine per test, on DuckDB, PostgreSQL and Spark. Work tables of different
    tests cannot collide: each engine has its own private schema (`work_schema`)."""
    yield from _make_engine(request, request.param)


def make_engine(request: pytest.FixtureRequest, name: str) -> Iterator[Engine]:
    """A fresh engine by name (for fixtures of other test files)."""
    yield from _make_engine(request, name)


def _make_engine(request: pytest.FixtureRequest, name: str) -> Iterator[Engine]:
    if name == "duckdb":
        from abcde.engines.duckdb import DuckDBEngine

        eng: Engine = DuckDBEngine()
    elif name == "postgres":
        from abcde.engines.postgres import PostgresEngine

        eng = PostgresEngine(request.getfixturevalue("postgres_dsn"))
    elif name == "spark":
        from abcde.engines.spark import SparkEngine

        eng = SparkEngine(request.getfixturevalue("spark_session"))
    else:
        raise ValueError(name)
    try:
        yield eng
    finally:
        eng.close()


# --------------------------------------------------------------------------- #
# The browser (Debian's chromium and chromedriver)
# --------------------------------------------------------------------------- #

def _browser_missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install 'abcde[dev]')"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.exists():
            return f"{path} not found; apt-get install {package}"
    return None


@pytest.fixture
def browser_factory(tmp_path: Path) -> Iterator[object]:
    """Makes headless Chromium sessions (Debian's /usr/bin/chromium and chromedriver:
    Selenium Manager never downloads anything); all quit at the end."""
    missing = _browser_missing()
    if missing:
        if in_ci():
            pytest.fail(f"{missing} (CI is set: browser tests must run; .ci/run installs "
                        "chromium and chromium-driver)")
        pytest.skip(missing)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    drivers: list[webdriver.Chrome] = []

    def make() -> webdriver.Chrome:
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        profile = tempfile.mkdtemp(prefix="chrome-", dir=tmp_path)
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                    "--disable-dev-shm-usage", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--disable-quic",
                    "--disable-default-apps", "--disable-extensions", "--no-first-run",
                    "--no-default-browser-check", "--window-size=1280,900",
                    f"--user-data-dir={profile}"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)),
                                  options=options)
        driver.set_page_load_timeout(90)
        drivers.append(driver)
        return driver

    try:
        yield make
    finally:
        for d in drivers:
            with contextlib.suppress(Exception):
                d.quit()

