"""A throw-away PostgreSQL cluster for the tg-server tests and benchmark.

    with Cluster() as pg:
        conninfo = pg.conninfo()          # "host=/tmp/... port=5432 dbname=tg user=tg"
        pg.psql("SELECT count(*) FROM moves")

initdb in a temporary directory, the server listening only on a Unix socket in that
directory (no TCP port, so parallel runs never collide), stopped and removed on exit, on
failure too. PostgreSQL refuses to run as root: as root the cluster runs as an unprivileged
system user (TG_PG_USER, default `nobody`). Where PostgreSQL is missing or does not start,
Cluster() raises ClusterError with what went wrong: the callers fail, they do not skip.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from types import TracebackType
from typing import Optional


class ClusterError(RuntimeError):
    pass


def bin_dir() -> str:
    """PostgreSQL's server programs: pg_config --bindir (libpq-dev), else the newest
    /usr/lib/postgresql/*/bin that has initdb."""
    candidates = []
    if shutil.which("pg_config"):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        if out.returncode == 0:
            candidates.append(out.stdout.strip())
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                         key=lambda p: [int(x) if x.isdigit() else 0
                                        for x in p.split("/")[-2].split(".")],
                         reverse=True)
    for d in candidates:
        if os.access(os.path.join(d, "initdb"), os.X_OK):
            return d
    raise ClusterError("PostgreSQL's initdb was not found (pg_config --bindir, "
                       "/usr/lib/postgresql/*/bin): install Debian's postgresql package "
                       "(scripts/setup-deps.sh)")


class Cluster:
    """One PostgreSQL server on a Unix socket in a fresh temporary directory."""

    def __init__(self, settings: Optional[dict[str, str]] = None) -> None:
        self.bin = bin_dir()
        self.settings = {"fsync": "on", "synchronous_commit": "on", "max_connections": "200",
                         "listen_addresses": "", "shared_buffers": "32MB"}
        self.settings.update(settings or {})
        self.tmp = tempfile.mkdtemp(prefix="tg-pg-")
        self.data = os.path.join(self.tmp, "data")
        self.log = os.path.join(self.tmp, "server.log")
        self.user: Optional[pwd.struct_passwd] = None
        self.proc: Optional[subprocess.Popen[str]] = None
        if os.geteuid() == 0:
            name = os.environ.get("TG_PG_USER", "nobody")
            try:
                self.user = pwd.getpwnam(name)
            except KeyError:
                raise ClusterError("no user %r to run PostgreSQL as (it refuses root); "
                                   "set TG_PG_USER to an unprivileged user" % name)
            os.chown(self.tmp, self.user.pw_uid, self.user.pw_gid)
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _run_as(self) -> dict[str, object]:
        if self.user is None:
            return {}
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}

    def _start(self) -> None:
        init = subprocess.run(
            [os.path.join(self.bin, "initdb"), "-D", self.data, "-U", "tg", "--auth=trust",
             "-E", "UTF8", "--locale=C", "--no-sync"],
            capture_output=True, text=True, cwd=self.tmp, **self._run_as())  # type: ignore
        if init.returncode != 0:
            raise ClusterError("initdb failed: " + (init.stderr or init.stdout).strip())
        self.up()
        t0 = time.monotonic()
        while True:
            r = subprocess.run([os.path.join(self.bin, "psql"), "-h", self.tmp, "-U", "tg",
                                "-d", "postgres", "-qAtc", "CREATE DATABASE tg"],
                               capture_output=True, text=True)
            if r.returncode == 0:
                break
            if time.monotonic() - t0 > 30:
                raise ClusterError("cannot create the test database: " + r.stderr.strip())
            time.sleep(0.05)

    def up(self) -> None:
        """Starts the server (again, after down())."""
        args = [os.path.join(self.bin, "postgres"), "-D", self.data, "-k", self.tmp]
        for k, v in self.settings.items():
            args += ["-c", "%s=%s" % (k, v)]
        log = open(self.log, "a")
        if self.user is not None:
            os.chown(self.log, self.user.pw_uid, self.user.pw_gid)
        proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, text=True,
                                cwd=self.tmp, **self._run_as())  # type: ignore
        self.proc = proc
        log.close()
        t0 = time.monotonic()
        while subprocess.run([os.path.join(self.bin, "pg_isready"), "-q", "-h", self.tmp]
                             ).returncode != 0:
            if proc.poll() is not None or time.monotonic() - t0 > 30:
                raise ClusterError("postgres did not start: " + self.server_log())
            time.sleep(0.02)

    def down(self) -> None:
        """Stops the server (fast shutdown: its clients are cut), keeping its data."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def server_log(self) -> str:
        try:
            with open(self.log) as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    def conninfo(self, dbname: str = "tg") -> str:
        return "host=%s port=5432 dbname=%s user=tg" % (self.tmp, dbname)

    def url(self, dbname: str = "tg") -> str:
        """The same as a URL (the socket directory percent-encoded in the host part)."""
        return "postgresql://tg@%s/%s" % (self.tmp.replace("/", "%2F"), dbname)

    def psql(self, sql: str, dbname: str = "tg") -> str:
        r = subprocess.run([os.path.join(self.bin, "psql"), "-h", self.tmp, "-U", "tg", "-d",
                            dbname, "-v", "ON_ERROR_STOP=1", "-qAtc", sql],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise ClusterError("psql %r: %s" % (sql, r.stderr.strip()))
        return r.stdout.strip()

    def stop(self) -> None:
        self.down()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> "Cluster":
        return self

    def __exit__(self, t: Optional[type], v: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.stop()
