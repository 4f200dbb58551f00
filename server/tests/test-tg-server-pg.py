#!/usr/bin/env python3
"""Tests of tg-server on PostgreSQL, against the real binary and a real PostgreSQL server.

    test-tg-server-pg.py PATH-TO-TG-SERVER

The test starts a throw-away PostgreSQL cluster (server/tests/pgcluster.py: initdb in a temporary
directory, a Unix socket there, an unprivileged user when run as root) and stops it after.
Where PostgreSQL is missing or does not start, every test here fails and says why.

- one server: matches of every game with SIGKILL and restarts, every acknowledged move in
  the database; the clocks charge the time that passed while the server was down;
- bad input: a bad conninfo, a missing database, a schema from a newer server; the database
  going away in the middle of a run (its connections cut): `err io`, nothing acknowledged lost;
- several servers on one database: a match is played by the one holding its lease, another's
  client is told `err leased` and gets the match once its server lets go; watchers on one
  server see every move made through another;
- failover: three servers, 24 players spread over them playing every game, watchers on other
  servers, rounds of SIGKILL and restart; every acknowledged move is in the database and in
  what every watcher saw, and a killed server's clocked matches are taken over once their
  lease runs out;
- a lock held by another session (as a frozen server holds one): the rows of three matches
  locked for 3 s, the changes that meet the lock are refused `err leased` as before while
  another client of the same server is answered in milliseconds (its moves too), since the
  round's rows are written off the loop;
- the undo request, stored, answered through any server, and the site-wide `status`, metrics
  and --max-matches (test-tg-server-pg-undo.py, run here);
- new matches (`new`, `rematch`, `accept-seek`) written off the loop: the admission lock or the
  rows they need held elsewhere for 3 s while another client is answered in milliseconds, and
  --max-matches and --max-loaded counting the matches still being made
  (test-tg-server-pg-admit.py, run here);
- the take-over claims, the account writes and the loads' reads off the loop: a slow claim, the
  rows they need held elsewhere for 3 s, or a 100,000-ply match's first load, while another
  client is answered in milliseconds (test-tg-server-pg-loop.py, run here);
- accounts (test-tg-server-accounts.py's tests, and test-tg-server-web-accounts.py's over
  HTTP, run here on PostgreSQL), an account made
  through one server signing in through another and signed out everywhere from there, and a
  database of schema 3 brought to 4 (and on);
- the lobby and rated games (test-tg-server-lobby.py's tests, run here on PostgreSQL), and
  across two servers: a seek made through one pushed to a lobby on the other and taken
  there, two takers at once making one match, a rated result rated once site-wide, and the
  live matches listed again by every server after all of them restarted (lobby_matches);
- draw offers (test-tg-server-draws.py's tests, run here on PostgreSQL), and across two
  servers: an offer answered through the other server, and an offer through A, A SIGKILLed,
  accepted through B that never had the match loaded (the offer read from draw_offers), rated
  once;
"""
from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pgcluster  # noqa: E402
import sibling  # noqa: E402

base: Any = sibling.load("tg_server_test", "test-tg-server.py")
undo_tests: Any = sibling.load("tg_server_pg_undo", "test-tg-server-pg-undo.py")
account_tests: Any = sibling.load("tg_server_pg_accounts", "test-tg-server-accounts.py")
web_account_tests: Any = sibling.load("tg_server_pg_web_accounts",
                                      "test-tg-server-web-accounts.py")
lobby_tests: Any = sibling.load("tg_server_pg_lobby", "test-tg-server-lobby.py")
draw_tests: Any = sibling.load("tg_server_pg_draws", "test-tg-server-draws.py")
admit_tests: Any = sibling.load("tg_server_pg_admit", "test-tg-server-pg-admit.py")
loop_tests: Any = sibling.load("tg_server_pg_loop", "test-tg-server-pg-loop.py")
history_tests: Any = sibling.load("tg_server_pg_history", "test-tg-server-history.py")
corr_tests: Any = sibling.load("tg_server_pg_corr", "test-tg-server-correspondence.py")
Conn, show, new_match, GAMES = base.Conn, base.show, base.new_match, base.GAMES

CLUSTER: Optional[pgcluster.Cluster] = None
CLUSTER_ERROR: Optional[str] = None
LEASE = "1"  # seconds: short, so that take-overs happen within the test's time


def setUpModule() -> None:
    global CLUSTER, CLUSTER_ERROR
    try:
        CLUSTER = pgcluster.Cluster()
    except pgcluster.ClusterError as e:
        CLUSTER_ERROR = str(e)


def tearDownModule() -> None:
    if CLUSTER is not None:
        CLUSTER.stop()


class PgServer(base.Server):
    """A tg-server on a PostgreSQL database."""

    def __init__(self, conninfo: str, tmp: str, name: str, *extra: str) -> None:
        super().__init__(conninfo, "--lease", LEASE, *extra,
                         port_file=os.path.join(tmp, name + ".port"))


class PgTestCase(unittest.TestCase):
    databases = 0

    def setUp(self) -> None:
        if CLUSTER is None:
            self.fail("PostgreSQL could not be started for the tests: %s" % CLUSTER_ERROR)
        self.pg = CLUSTER
        PgTestCase.databases += 1
        self.dbname = "t%d" % PgTestCase.databases
        self.pg.psql("CREATE DATABASE %s" % self.dbname)
        self.conninfo = self.pg.conninfo(self.dbname)
        self.tmp = tempfile.TemporaryDirectory(prefix="tg-server-pg-")
        self.servers: list[base.Server] = []

    def tearDown(self) -> None:
        for s in self.servers:
            if s.proc and s.proc.poll() is None:
                s.stop()
            elif s.proc and s.proc.returncode not in (0, -signal.SIGKILL) and s.proc.stderr \
                    and not s.proc.stderr.closed:  # died by itself: say how (a sanitizer's report)
                sys.stderr.write("tg-server exited with %d:\n%s\n"
                                 % (s.proc.returncode, s.proc.stderr.read()[-6000:]))
        self.tmp.cleanup()

    def stop_servers(self) -> None:
        """Stops the servers still running: the store-agnostic mixins' start() has one at a
        time."""
        for s in self.servers:
            if s.proc and s.proc.poll() is None:
                s.stop()

    def server(self, *extra: str, name: Optional[str] = None) -> base.Server:
        s = PgServer(self.conninfo, self.tmp.name, name or "s%d" % len(self.servers), *extra)
        self.servers.append(s)
        return s.start()

    def sql(self, query: str) -> str:
        return self.pg.psql(query, self.dbname)

    def server_binary(self) -> str:
        """The tg-server under test: the mixins' modules are loaded apart from this one."""
        return str(base.SERVER)

    def migrate_logs(self, logs: str) -> "subprocess.CompletedProcess[str]":
        """`tg-server --migrate-logs` of the directory into this test's database."""
        return subprocess.run([base.SERVER, "--db", self.conninfo, "--migrate-logs", logs],
                              capture_output=True, text=True, timeout=600)

    def hold(self, lock_sql: str) -> "subprocess.Popen[str]":
        """Takes the lock in a psql session of its own, inside a transaction left open until
        release(); returns once the lock is held (the session idle in its transaction, which
        has a transaction id once it has locked a row; a lock on no row, such as an advisory
        lock, is followed by txid_current())."""
        assert CLUSTER is not None
        session = subprocess.Popen(
            [os.path.join(CLUSTER.bin, "psql"), "-h", CLUSTER.tmp, "-U", "tg", "-d", self.dbname,
             "-v", "ON_ERROR_STOP=1", "-qAt"],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, PGAPPNAME="tg-test-lock-holder"))
        assert session.stdin is not None
        session.stdin.write("BEGIN;\n%s;\n" % lock_sql)
        session.stdin.flush()
        deadline = time.monotonic() + 10
        while self.sql("SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                       "'tg-test-lock-holder' AND state = 'idle in transaction' AND "
                       "backend_xid IS NOT NULL") != "1":
            if session.poll() is not None:  # its error, once it has ended (read() waits for that)
                self.fail("the session ended: %s" % (session.stderr.read() if session.stderr
                                                     else ""))
            self.assertLess(time.monotonic(), deadline, "the lock was never taken")
            time.sleep(0.02)
        return session

    def release(self, session: "subprocess.Popen[str]") -> None:
        assert session.stdin is not None
        session.stdin.write("COMMIT;\n")
        session.stdin.close()
        code = session.wait(10)
        self.assertEqual(code, 0, session.stderr.read() if session.stderr else "")

    def rows(self, query: str) -> "list[tuple[str, ...]]":
        """The query's rows, every value text: what the store-agnostic mixins read."""
        out = self.sql(query)
        return [tuple(line.split("|")) for line in out.split("\n")] if out else []

    def stored_history(self, mid: int) -> list[str]:
        out = self.sql("SELECT notation FROM moves WHERE match_id = %d ORDER BY ply" % mid)
        return out.split("\n") if out else []

    def assert_acked(self, conn: Any, acked: "dict[int, list[str]]", stored: bool = True) -> None:
        """Every acknowledged ply is served by the server of `conn` (and in the moves table)."""
        for mid, plies in acked.items():
            self.assertEqual(conn.ok("history %d" % mid).split(), plies)
            if stored:
                self.assertEqual(self.stored_history(mid), plies)


def play_one(conn: Any, mid: int, tokens: list[str], rng: random.Random) -> Optional[list[str]]:
    """One decision for the seat to move: the plies acknowledged, or None if the match is over.
    `err leased` is retried: after a SIGKILL the dead server's lease holds until it runs out."""
    deadline = time.monotonic() + 15
    while True:
        info = show(conn, mid)
        if info["result"] != "running":
            return None
        moves = conn.ok("moves %d" % mid).split()
        reply = conn.ask("play %d %s %s %s" % (mid, info["ply"], rng.choice(moves),
                                                tokens[int(info["turn"])]))
        if reply.startswith("ok"):
            return reply[3:].split()
        if not reply.startswith("err leased ") or time.monotonic() > deadline:
            raise AssertionError(reply)
        time.sleep(0.05)


class OneServerTest(PgTestCase):
    def test_matches_of_every_game_survive_sigkill(self) -> None:
        s = self.server()
        rng = random.Random(29)
        conn = Conn(s.port)
        matches: list[tuple[int, list[str]]] = [new_match(conn, g) for g in GAMES
                                                 for _ in range(2)]
        acked = {mid: conn.ok("history %d" % mid).split() for mid, _ in matches}
        for _ in range(3):
            for mid, tokens in matches:
                for _ in range(8):
                    plies = play_one(conn, mid, tokens, rng)
                    if plies is None:
                        break
                    acked[mid] += plies
            conn.close()
            s.kill()
            s.start()
            conn = Conn(s.port)
            self.assert_acked(conn, acked)
        self.assertIn("set-aside=0", conn.ok("status"))
        conn.close()

    def test_a_clock_is_charged_for_the_time_the_server_was_down(self) -> None:
        s = self.server()
        conn = Conn(s.port)
        (mid, tokens) = new_match(conn, "hus clock=1+0")
        rng = random.Random(3)
        play_one(conn, mid, tokens, rng)  # the first decision starts the clocks
        play_one(conn, mid, tokens, rng)
        conn.close()
        s.kill()
        time.sleep(1.5)
        s.start()
        conn = Conn(s.port)
        conn.send("watch %d" % mid)
        left = None
        while left is None:
            line = conn.read()
            words = line.split()
            if words[:3] == ["event", str(mid), "clock"]:
                running = int(words[5])
                left = int(words[3 + running])
        # The seat to move had at most 60 s when its turn began, 1.5 s before the restart
        # ended: no refund of the time the server was down.
        self.assertLessEqual(left, 60000 - 1500)
        self.assertGreater(left, 30000)
        conn.close()


    def test_old_logs_migrate_into_postgresql(self) -> None:
        logs = os.path.join(self.tmp.name, "logs")
        os.mkdir(logs)
        with open(os.path.join(logs, "match-7.log"), "w") as f:
            f.write("tg-match 1 halusa\n")
        with open(os.path.join(logs, "match-9.log"), "w") as f:
            f.write("not a log\n")
        run = subprocess.run([base.SERVER, "--db", self.conninfo, "--migrate-logs", logs],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 1, run.stderr)  # match-9.log is skipped
        self.assertIn("migrated match-7.log as match 7", run.stdout)
        self.assertIn("match-9.log", run.stdout + run.stderr)
        s = self.server()
        conn = Conn(s.port)
        self.assertEqual(show(conn, 7)["ply"], "0")
        mid, _ = new_match(conn, "hus")
        self.assertEqual(mid, 8)  # new ids start above the imported ones
        conn.close()


class BadInputTest(PgTestCase):
    def start_fails(self, db: str) -> str:
        run = subprocess.run([base.SERVER, "--port", "0", "--db", db], capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(run.returncode, 1, run.stderr)
        return run.stderr

    def test_bad_conninfo_and_missing_database(self) -> None:
        err = self.start_fails("host=%s dbname=no_such_db user=tg" % self.pg.tmp)
        self.assertIn('database "no_such_db" does not exist', err)
        self.assertEqual(err.count("\n"), 1, err)  # one line
        err = self.start_fails("host=/no/such/dir dbname=tg")
        self.assertIn("cannot open the database PostgreSQL", err)
        err = self.start_fails("postgresql://tg@%2Fno%2Fsuch/tg?connect_timeout=nonsense")
        self.assertIn("PostgreSQL", err)
        err = self.start_fails("host=%s dbname=tg frobnicate=1" % self.pg.tmp)
        self.assertIn("frobnicate", err)

    def test_a_newer_schema_is_refused(self) -> None:
        s = self.server()
        s.stop()
        self.sql("INSERT INTO tg_schema (version) VALUES (99)")
        err = self.start_fails(self.conninfo)
        self.assertIn("schema is version 99, newer than this server's", err)

    def test_the_database_going_away_loses_nothing_acknowledged(self) -> None:
        s = self.server()
        conn = Conn(s.port)
        rng = random.Random(7)
        matches = [new_match(conn, g) for g in GAMES]
        acked = {mid: conn.ok("history %d" % mid).split() for mid, _ in matches}
        errors = 0
        stop = threading.Event()

        def cut() -> None:  # the server's connections cut, again and again
            while not stop.is_set():
                self.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                         "datname = '%s' AND pid <> pg_backend_pid()" % self.dbname)
                time.sleep(0.15)

        cutter = threading.Thread(target=cut)
        cutter.start()
        try:
            for _ in range(12):
                for mid, tokens in matches:
                    info = show(conn, mid)
                    if info["result"] != "running":
                        continue
                    moves = conn.ok("moves %d" % mid).split()
                    reply = conn.ask("play %d %s %s %s" % (mid, info["ply"], rng.choice(moves),
                                                            tokens[int(info["turn"])]))
                    if reply.startswith("ok"):
                        acked[mid] += reply[3:].split()
                    else:
                        self.assertRegex(reply, r"^err (io|internal) ", reply)
                        errors += 1
                        # Not acknowledged: stored or not, the history says which.
                        history = conn.ok("history %d" % mid).split()
                        self.assertEqual(history[:len(acked[mid])], acked[mid])
                        acked[mid] = history
        finally:
            stop.set()
            cutter.join()
        # Then PostgreSQL itself stops for a while: every change is refused in words, none
        # is acknowledged, and once it is back the server carries on.
        self.pg.down()
        try:
            for mid, tokens in matches:
                info = show(conn, mid)  # served from memory
                if info["result"] != "running":
                    continue
                moves = conn.ok("moves %d" % mid).split()
                reply = conn.ask("play %d %s %s %s" % (mid, info["ply"], moves[0],
                                                        tokens[int(info["turn"])]))
                self.assertRegex(reply, r"^err io the change could not be stored", reply)
                errors += 1
                self.assertRegex(conn.ask("history 999999"), r"^err ")
        finally:
            self.pg.up()
        self.assertGreater(errors, 0, "no change met a lost connection")
        for mid, tokens in matches:
            info = show(conn, mid)
            if info["result"] == "running":
                deadline = time.monotonic() + 20
                while True:  # the first change after it came back may still meet the old link
                    moves = conn.ok("moves %d" % mid).split()
                    reply = conn.ask("play %d %s %s %s" % (mid, info["ply"], moves[0],
                                                            tokens[int(info["turn"])]))
                    if reply.startswith("ok") or time.monotonic() > deadline:
                        break
                    self.assertRegex(reply, r"^err io ")
                    time.sleep(0.1)
                self.assertTrue(reply.startswith("ok"), reply)
                acked[mid] += reply[3:].split()
        self.assert_acked(conn, acked)
        conn.close()
        s.kill()
        s.start()
        conn = Conn(s.port)
        self.assert_acked(conn, acked, stored=False)
        conn.close()


class Watcher(threading.Thread):
    """Watches matches through one server and keeps the plies its events say; after a lost
    connection it catches up through another server with `watch ID PLY`."""

    def __init__(self, servers: list[base.Server], first: int) -> None:
        super().__init__(daemon=True)
        self.servers, self.at, self.first = servers, first, first
        self.count = 0
        self.seen: dict[int, list[str]] = {}
        self.wanted: list[int] = []
        self.assigned: list[int] = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.error: Optional[str] = None
        self.reconnects = 0

    def add(self, mid: int) -> None:
        with self.lock:
            self.wanted.append(mid)
            self.assigned.append(mid)

    def connect(self) -> Any:
        while not self.stop.is_set():
            try:
                s = self.servers[self.at]
                if s.proc.poll() is None:
                    conn = Conn(s.port, timeout=0.2)
                    try:
                        for mid, plies in self.seen.items():
                            conn.send("watch %d %d" % (mid, len(plies)))
                    except OSError:
                        conn.close()
                        raise
                    return conn
            except OSError:
                pass
            self.at = (self.at + 1) % len(self.servers)
            time.sleep(0.05)
        return None

    def event(self, words: list[str]) -> None:
        mid = int(words[1])
        plies = self.seen.setdefault(mid, [])
        if words[2] == "moves":
            frm = int(words[3])
            if frm > len(plies):
                raise AssertionError("match %d: moves from %d, seen %d" % (mid, frm, len(plies)))
            del plies[frm:]
            plies.extend(words[4:])
        elif words[2] == "undone":
            del plies[int(words[3]):]

    def run(self) -> None:
        try:
            conn = self.connect()
            buf = b""
            while conn is not None and not self.stop.is_set():
                with self.lock:
                    new, self.wanted = self.wanted, []
                try:
                    # A server killed between two reads breaks the pipe here as well as in
                    # recv; the new matches are in `seen` first, so the next server is asked
                    # for them too.
                    for mid in new:
                        self.seen.setdefault(mid, [])
                    for mid in new:
                        conn.send("watch %d 0" % mid)
                    chunk = conn.sock.recv(65536)
                    if not chunk:
                        raise ConnectionError
                    buf += chunk
                except socket.timeout:
                    continue
                except OSError:
                    conn.close()
                    self.reconnects += 1
                    buf = b""
                    conn = self.connect()
                    continue
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    words = line.decode().split()
                    if words and words[0] == "event":
                        self.event(words)
            if conn is not None:
                conn.close()
        except BaseException as e:
            self.error = "watcher: %r" % e


class FailoverPlayer(threading.Thread):
    """Plays its matches to the end through one server, moving to another one when its server
    is killed; keeps every acknowledged ply."""

    def __init__(self, t: "SeveralServersTest", index: int, games: list[str]) -> None:
        super().__init__(daemon=True)
        self.t, self.index, self.todo = t, index, list(games)
        self.at = index % len(t.servers)
        self.rng = random.Random(2900 + index)
        self.acked: dict[int, list[str]] = {}
        self.error: Optional[str] = None
        self.acks = self.refusals = self.moves_to_other_server = 0

    def connect(self) -> Any:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            s = self.t.servers[self.at]
            try:
                if s.proc.poll() is None:
                    return Conn(s.port, timeout=30)
            except OSError:
                pass
            self.at = (self.at + 1) % len(self.t.servers)
            self.moves_to_other_server += 1
            time.sleep(0.02)
        raise AssertionError("no server to connect to")

    def reconcile(self, conn: Any, mid: int, in_flight: bool) -> None:
        history = conn.ok("history %d" % mid).split()
        acked = self.acked[mid]
        if history != acked and not (in_flight and history[:len(acked)] == acked):
            raise AssertionError("match %d: history %r, acknowledged %r" % (mid, history, acked))
        self.acked[mid] = history

    def reconnect(self, conn: Any, mid: Optional[int], in_flight: bool) -> Any:
        """A new connection (through another server if this one is down), the match checked
        against what was acknowledged."""
        while True:
            conn.close()
            conn = self.connect()
            try:
                if mid is not None:
                    self.reconcile(conn, mid, in_flight)
                return conn
            except (ConnectionError, OSError):
                continue

    def run(self) -> None:
        try:
            conn = self.connect()
            while self.todo:
                spec = self.todo.pop(0)
                while True:
                    try:  # a match made but not acknowledged is left behind: no ply of it counts
                        mid, tokens = new_match(conn, spec)
                        self.acked[mid] = conn.ok("history %d" % mid).split()
                        break
                    except (ConnectionError, OSError):
                        conn = self.reconnect(conn, None, False)
                    except AssertionError as e:  # another server admitting a match: try again
                        if "'err busy another server is admitting" not in str(e):
                            raise
                        time.sleep(0.05)
                self.t.watch(mid, self.at)
                in_flight = False
                while True:
                    try:
                        info = show(conn, mid)
                        if info["result"] != "running":
                            break
                        moves = conn.ok("moves %d" % mid).split()
                        in_flight = True
                        reply = conn.ask("play %d %s %s %s" % (
                            mid, info["ply"], self.rng.choice(moves), tokens[int(info["turn"])]))
                        if reply.startswith("ok"):
                            self.acked[mid] += reply[3:].split()
                            self.acks += 1
                        # busy: this server is claiming the match from a killed one (the
                        # claim runs on a database thread, the match busy meanwhile).
                        elif reply.split()[:2] in (["err", "leased"], ["err", "stale"],
                                                   ["err", "io"], ["err", "busy"]):
                            self.refusals += 1
                            self.reconcile(conn, mid, True)
                            time.sleep(0.02)
                        else:
                            raise AssertionError("match %d: %s" % (mid, reply))
                        in_flight = False
                    except (ConnectionError, OSError):
                        conn = self.reconnect(conn, mid, in_flight)
                        in_flight = False
            conn.close()
        except BaseException as e:
            self.error = "player %d: %r" % (self.index, e)


class UndoAndSiteTest(PgTestCase, undo_tests.UndoAndSiteTests):
    """The undo request and the site-wide counts (test-tg-server-pg-undo.py)."""


class WebAccountsPgTest(PgTestCase, web_account_tests.WebAccountTests):
    """Accounts in a browser on PostgreSQL: test-tg-server-web-accounts.py's tests."""

    def start(self, *extra: str) -> base.Server:
        self.stop_servers()
        port_file = os.path.join(self.tmp.name, "web-port-%d" % len(self.servers))
        s = self.server("--web-port", "0", "--web-port-file", port_file, *extra)
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            time.sleep(0.005)
        with open(port_file) as f:
            s.web_port = int(f.read())
        return s


class HistoryPgTest(PgTestCase, history_tests.HistoryTests):
    """The player and match pages on PostgreSQL: test-tg-server-history.py's tests."""

    def setUp(self) -> None:
        history_tests.SERVER = history_tests.lobby.SERVER = base.SERVER
        history_tests.ws.SERVER = base.SERVER
        super().setUp()

    def start(self, *extra: str) -> base.Server:
        return WebAccountsPgTest.start(self, *extra)  # type: ignore[arg-type]


class CorrespondencePgTest(PgTestCase, corr_tests.CorrespondenceTests):
    """Correspondence games on PostgreSQL: test-tg-server-correspondence.py's tests on one
    server, and two servers racing for one match's flag: it falls once, rated once."""

    def setUp(self) -> None:
        corr_tests.SERVER = base.SERVER
        super().setUp()

    def start(self, *extra: str) -> base.Server:
        self.stop_servers()
        return self.server(*extra)

    def test_two_servers_scanning_flag_an_unloaded_match_once(self) -> None:
        day = 5
        args = corr_tests.OPEN_BUDGETS + ("--day-seconds", str(day), "--unload-after", "1")
        a, b = self.server(*args), self.server(*args)
        alice, bob = self.signed_in(a.port, "alice"), self.signed_in(b.port, "bob")
        seek_id = alice.ok("seek hus days=1 rated")
        mid_text, seat, token = bob.ok("accept-seek %s" % seek_id).split()
        mid_i = int(mid_text)
        self.assertEqual(alice.read(), "lobby unseek %s taken" % seek_id)
        words = alice.read().split()  # lobby matched SEEK ID SEAT TOKEN
        tokens = {int(seat): token, int(words[4]): words[5]}
        self.assertEqual(self.sql("SELECT category FROM rated_matches WHERE match_id = %d"
                                  % mid_i), "correspondence")
        # The seat to move moves through B, which made the match; then nobody touches it.
        info = show(bob, mid_i)
        mover = int(info["turn"])
        moves = bob.ok("moves %d" % mid_i).split()
        bob.ok("play %d %s %s %s" % (mid_i, info["ply"], moves[0], tokens[mover]))
        moved = time.monotonic()
        for c in (alice, bob):
            c.close()
        # Both servers let it go (no lease), and both scan the stored deadlines.
        while self.sql("SELECT count(*) FROM leases WHERE match_id = %d" % mid_i) != "0":
            self.assertLess(time.monotonic() - moved, day - 1, "the match stayed leased")
            time.sleep(0.1)
        flagged = self.wait_flagged(mid_i, day + 10)
        self.assertEqual(int(flagged), 1 - mover)
        self.assertGreaterEqual(time.monotonic() - moved, day - 0.5)
        time.sleep(2.5)  # every scan of both servers since has found nothing more to do
        self.assertEqual(self.sql("SELECT count(*) FROM rating_history WHERE match_id = %d"
                                  % mid_i), "2")
        self.assertEqual(self.sql("SELECT sum(games) FROM ratings"), "2")
        self.assertEqual(self.sql("SELECT count(*) FROM rated_matches WHERE match_id = %d AND "
                                  "rated_at IS NOT NULL" % mid_i), "1")
        for s in (a, b):
            info = show(Conn(s.port), mid_i)
            self.assertEqual((info["result"], info["by"]), (str(mover), "time"))


class AccountsPgTest(PgTestCase, account_tests.AccountTests):
    """Accounts on PostgreSQL: test-tg-server-accounts.py's tests, and the site's."""

    def setUp(self) -> None:
        account_tests.SERVER = base.SERVER
        super().setUp()

    def start(self, *extra: str) -> base.Server:
        return self.server(*extra)

    def test_an_account_is_the_whole_site_s(self) -> None:
        a = self.open_server()
        b = self.open_server()
        on_a, on_b, also_a = Conn(a.port), Conn(b.port), Conn(a.port)
        token = self.register(on_a, "alice")
        # Made through a, it signs in through b, with a's session too; its name is taken there.
        self.assertEqual(on_b.ask("session %s" % token), "ok alice")
        self.assertRegex(on_b.ok("login ALICE %s" % account_tests.PASSWORD),
                         account_tests.TOKEN)
        self.assertReply(on_b.ask("register Alice %s" % account_tests.PASSWORD),
                         "err name-taken ")
        self.assertEqual(also_a.ask("session %s" % token), "ok alice")
        # Signed out everywhere through b: a's connections find out at their next check.
        self.assertEqual(on_b.ask("logout-all"), "ok")
        for c in (on_a, also_a):
            self.assertEqual(c.ask("whoami"), "ok -")
        self.assertReply(also_a.ask("session %s" % token), "err bad-session ")
        # Two servers asked for one name at once: one account.
        c1, c2 = Conn(a.port), Conn(b.port)
        c1.send("register racer %s" % account_tests.PASSWORD)
        c2.send("register RACER %s" % account_tests.PASSWORD)
        replies = sorted([c1.read().split()[1], c2.read().split()[1]])
        self.assertEqual(replies[1], "name-taken")
        self.assertRegex(replies[0], account_tests.TOKEN)
        self.assertEqual(self.rows("SELECT count(*) FROM accounts WHERE name_folded = 'racer'"),
                         [("1",)])
        for c in (on_a, on_b, also_a, c1, c2):
            c.close()

    def test_wrong_passwords_through_two_servers_share_the_account_s_budget(self) -> None:
        budgets = ("--sign-in-rate", "3", "--address-sign-in-rate", "1000")
        a, b = self.server(*budgets), self.server(*budgets)
        on_a, on_b = Conn(a.port), Conn(b.port)
        self.register(on_a, "alice")
        # Three wrong passwords, two through A and one through B: alice's whole budget.
        for conn in (on_a, on_a, on_b):
            self.assertEqual(conn.ask("login alice wrong-password"),
                             "err bad-login wrong name or password")
        # The fourth, through B, is refused even with her password, and so it is through A.
        for conn in (on_b, on_a):
            reply = conn.ask("login alice %s" % account_tests.PASSWORD)
            self.assertReply(reply, "err rate-limited ")
            self.assertIn("account", reply)
        self.assertEqual(self.sql("SELECT round(tokens) FROM sign_in_budgets "
                                  "WHERE key = 'nalice'"), "0")
        # The budget refills by the database's clock: a window ago, it is full again.
        self.sql("UPDATE sign_in_budgets SET refilled_at = refilled_at - interval '901 seconds' "
                 "WHERE key = 'nalice'")
        self.assertRegex(on_b.ok("login alice %s" % account_tests.PASSWORD), account_tests.TOKEN)
        for c in (on_a, on_b):
            c.close()

    def test_attempts_through_two_servers_share_the_address_s_budget(self) -> None:
        budgets = ("--sign-in-rate", "1000", "--address-sign-in-rate", "3")
        a, b = self.server(*budgets), self.server(*budgets)
        on_a, on_b = Conn(a.port), Conn(b.port)
        self.register(on_a, "alice")  # the address's attempt 1
        self.assertEqual(on_b.ask("login alice wrong-password"),
                         "err bad-login wrong name or password")  # 2
        self.assertEqual(on_a.ask("login nobody wrong-password"),
                         "err bad-login wrong name or password")  # 3
        for conn, line in ((on_b, "login alice %s" % account_tests.PASSWORD),
                           (on_a, "login alice %s" % account_tests.PASSWORD),
                           (on_b, "register bob %s" % account_tests.PASSWORD)):
            reply = conn.ask(line)
            self.assertReply(reply, "err rate-limited ")
            self.assertIn("address", reply)
        # Refused by the address, alice's own budget was not charged: 1 attempt of 1000.
        self.assertEqual(self.sql("SELECT round(tokens) FROM sign_in_budgets "
                                  "WHERE key = 'nalice'"), "999")
        self.assertEqual(self.account_count(), 1)
        for c in (on_a, on_b):
            c.close()

    def test_sign_in_budgets_full_again_are_deleted(self) -> None:
        s = self.open_server()
        conn = Conn(s.port)
        self.register(conn, "alice")
        self.sql("INSERT INTO sign_in_budgets (key, tokens, refilled_at) SELECT 'nold' || i, 0, "
                 "now() - interval '2 hours' FROM generate_series(1, 150) i")
        # Each charge deletes up to 100 rows a window old: two charges, all 150.
        for _ in range(2):
            self.assertRegex(conn.ok("login alice %s" % account_tests.PASSWORD),
                             account_tests.TOKEN)
        self.assertEqual(self.sql("SELECT count(*) FROM sign_in_budgets WHERE key LIKE 'nold%'"),
                         "0")
        self.assertEqual(self.sql("SELECT count(*) FROM sign_in_budgets"), "2")  # alice, address
        conn.close()

    def test_schema_3_is_brought_to_4_in_place(self) -> None:
        s = self.server()
        conn = Conn(s.port)
        mid = conn.ok("new hus").split()[0]
        history = conn.ok("history %s" % mid)
        conn.close()
        s.stop()
        self.sql("DROP TABLE lobby_matches, draw_offers, sign_in_budgets, correspondence, rating_history, seeks, rated_matches, seat_accounts, ratings, sessions, accounts; "
                 "DELETE FROM tg_schema WHERE version >= 4")
        s = self.open_server()
        conn = Conn(s.port)
        self.assertEqual(conn.ok("history %s" % mid), history)
        self.register(conn, "migrated")
        self.assertEqual(self.sql("SELECT max(version) FROM tg_schema"), "9")
        self.assertEqual(self.sql("SELECT count(*) FROM ratings"), "0")
        conn.close()


class LobbyPgTest(PgTestCase, lobby_tests.LobbyTests):
    """The lobby and rated games on PostgreSQL: test-tg-server-lobby.py's tests on one
    server, and across two (issue 42 items 2 and 3): a seek made through A is pushed to a
    lobby on B, taken through B, its owner on A told; two takers on A and B at once make one
    match; a rated result decided through B updates both ratings once, also after both
    servers restart."""

    def setUp(self) -> None:
        lobby_tests.SERVER = base.SERVER
        super().setUp()

    def start(self, *extra: str) -> base.Server:
        self.stop_servers()
        return self.server(*extra)

    def two_servers(self) -> "tuple[base.Server, base.Server]":
        return (self.server(*lobby_tests.OPEN_BUDGETS), self.server(*lobby_tests.OPEN_BUDGETS))

    def test_a_seek_through_a_is_seen_and_taken_through_b(self) -> None:
        a, b = self.two_servers()
        on_b = self.subscriber(b.port)
        alice, bob = self.signed_in(a.port, "alice"), self.signed_in(b.port, "bob")
        seek_id = alice.ok("seek hus clock=5+3 rated")
        t0 = time.monotonic()
        words = self.feed_line(on_b, "lobby seek %s alice 1500? hus" % seek_id)
        self.assertLess(time.monotonic() - t0, 5)
        self.assertEqual(words[6:], ["clock=5+3", "blitz", "rated"])
        late = Conn(b.port)
        self.assertEqual(late.ask("lobby"), "ok 1 0")
        late.read()
        mid, tokens = self.matched(alice, bob, seek_id)
        self.assertEqual(on_b.read(), "lobby unseek %s taken" % seek_id)
        self.assertEqual(self.feed_line(on_b, "lobby live %d" % mid)[4:6], ["clock=5+3", "rated"])
        self.assertEqual(self.sql("SELECT count(*) FROM seeks"), "0")
        self.assertEqual(self.sql("SELECT game, category FROM rated_matches"), "hus|blitz")
        # Withdrawn through A: B's lobby hears it.
        again = alice.ok("seek hus clock=1+0 casual")
        self.feed_line(on_b, "lobby seek %s" % again)
        self.assertEqual(alice.ask("unseek"), "ok 1")
        self.assertEqual(on_b.read(), "lobby unseek %s withdrawn" % again)
        # Its owner's connection gone: B's lobby hears that too.
        third = alice.ok("seek hus clock=2+0 casual")
        self.feed_line(on_b, "lobby seek %s" % third)
        alice.close()
        self.assertEqual(on_b.read(), "lobby unseek %s owner-gone" % third)
        self.assertEqual(self.sql("SELECT count(*) FROM seeks"), "0")

    def test_two_takers_on_two_servers_make_one_match(self) -> None:
        a, b = self.two_servers()
        alice = self.signed_in(a.port, "alice")
        takers = [self.signed_in(a.port, "bob"), self.signed_in(b.port, "carol")]
        watcher = self.subscriber(b.port)
        for attempt in range(5):
            seek_id = alice.ok("seek hus clock=5+3 casual")
            self.feed_line(watcher, "lobby seek %s" % seek_id)
            replies: "dict[int, str]" = {}

            def take(i: int) -> None:
                replies[i] = takers[i].ask("accept-seek %s" % seek_id)
            threads = [threading.Thread(target=take, args=(i,)) for i in (0, 1)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            oks = [r for r in replies.values() if r.startswith("ok ")]
            self.assertEqual(len(oks), 1, (attempt, replies))
            loser = [r for r in replies.values() if not r.startswith("ok ")][0]
            self.assertTrue(loser.startswith(("err no-such-seek ", "err io ", "err busy ")),
                            loser)
            mid = int(oks[0].split()[1])
            self.assertEqual(self.sql("SELECT count(*) FROM matches"), str(attempt + 1))
            self.assertEqual(alice.read(), "lobby unseek %s taken" % seek_id)
            self.assertEqual(alice.read().split()[:4], ["lobby", "matched", seek_id, str(mid)])
            self.assertEqual(watcher.read(), "lobby unseek %s taken" % seek_id)
            self.feed_line(watcher, "lobby live %d" % mid)
        self.assertEqual(self.sql("SELECT count(*) FROM seeks"), "0")

    def test_a_server_started_later_lists_the_live_matches(self) -> None:
        a = self.server(*lobby_tests.OPEN_BUDGETS)
        alice, bob = self.signed_in(a.port, "alice"), self.signed_in(a.port, "bob")
        first, _ = self.matched(alice, bob, alice.ok("seek hus clock=5+3 casual"))
        second, tokens = self.matched(bob, alice, bob.ok("seek halusa clock=1+0 rated"))
        b = self.server(*lobby_tests.OPEN_BUDGETS)
        # Told by A as B starts: listed at once, or pushed a moment later (no polling).
        late = Conn(b.port)
        late.sock.settimeout(10)
        _, seeks, lives = late.ask("lobby").split()
        self.assertEqual(seeks, "0")
        lines = [late.read() for _ in range(int(lives))]
        while len(lines) < 2:
            lines.append(late.read())
        live = sorted(line.split()[:3] + [line.split()[3].split(":")[0]] for line in lines)
        self.assertEqual(live, [["lobby", "live", str(first), "hus"],
                                ["lobby", "live", str(second), "halusa"]])
        self.assertIn("rated", next(line for line in lines if " %d " % second in line).split())
        # A third server hears the list once, however many servers tell it.
        c = self.server(*lobby_tests.OPEN_BUDGETS)
        third = Conn(c.port)
        third.sock.settimeout(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            reply = third.ask("lobby")
            if reply == "ok 0 2":
                break
            for _ in range(int(reply.split()[2])):
                third.read()
            third.ask("quit")
            third = Conn(c.port)
            third.sock.settimeout(10)
            time.sleep(0.1)
        self.assertEqual(reply, "ok 0 2")
        self.assertEqual(sorted(third.read().split()[2] for _ in range(2)),
                         sorted([str(first), str(second)]))
        # Its end reaches the later servers' lobbies too.
        alice.ok("resign %d %s" % (second, tokens[0]))
        self.assertEqual(late.read(), "lobby ended %d 1" % second)
        self.assertEqual(third.read(), "lobby ended %d 1" % second)

    def test_every_server_restarted_lists_the_live_matches(self) -> None:
        a, b = self.two_servers()
        alice, bob = self.signed_in(a.port, "alice"), self.signed_in(b.port, "bob")
        first, _ = self.matched(alice, bob, alice.ok("seek hus clock=5+3 casual"))
        second, tokens = self.matched(bob, alice, bob.ok("seek halusa days=2 rated"))
        ended, ended_tokens = self.matched(alice, bob, alice.ok("seek hawalis clock=3+0 casual"))
        self.through(alice, "resign %d %s" % (ended, ended_tokens[0]))
        lines = self.live_lines(a.port, 2)
        for c in (alice, bob):
            c.close()
        a.kill()
        b.stop()
        # Nobody is left to tell them: each server reads them from the table.
        a, b = self.two_servers()
        for s in (a, b):
            self.assertEqual(self.live_lines(s.port, 2), lines)
        self.assertEqual(self.sql("SELECT count(*) FROM lobby_matches"), "2")
        self.assertTrue(any(" %d " % first in line for line in lines))
        c = Conn(a.port)
        self.assertTrue(self.through(c, "resign %d %s" % (second, tokens[0])).startswith("ok"))
        c.close()
        a.stop()
        b.stop()
        c = Conn(self.server(*lobby_tests.OPEN_BUDGETS).port)
        self.assertEqual(c.ask("lobby"), "ok 0 1")
        self.assertTrue(c.read().startswith("lobby live %d " % first))

    def test_a_rated_result_decided_through_b_rates_once(self) -> None:
        a, b = self.two_servers()
        alice, bob = self.signed_in(a.port, "alice"), self.signed_in(b.port, "bob")
        watcher = self.subscriber(a.port)
        mid, tokens = self.matched(alice, bob, alice.ok("seek hus clock=5+3 rated"))
        self.feed_line(watcher, "lobby seek ")
        self.feed_line(watcher, "lobby unseek ")
        self.feed_line(watcher, "lobby live %d" % mid)
        alice_seat = [int(seat) for seat, account in self.rows(
            "SELECT seat, account_id FROM seat_accounts WHERE match_id = %d" % mid)
            if int(account) == self.account_id("alice")][0]
        # Decided through B (bob's server, which made the match): alice resigns there.
        deadline = time.monotonic() + 15
        while True:
            reply = bob.ask("resign %d %s" % (mid, tokens[alice_seat]))
            if reply.startswith("ok") or time.monotonic() > deadline or \
                    reply.split()[:2] not in (["err", "leased"], ["err", "stale"]):
                break
            time.sleep(0.05)
        self.assertTrue(reply.startswith("ok"), reply)
        want_alice = lobby_tests.glicko2(1500, 350, 0.06, [(1500, 350, 0.0)])
        want_bob = lobby_tests.glicko2(1500, 350, 0.06, [(1500, 350, 1.0)])
        self.assertRatings("alice", "hus/blitz", want_alice, 1)
        self.assertRatings("bob", "hus/blitz", want_bob, 1)
        # A's lobby hears the end; A serves the result and rates nothing again.
        self.assertEqual(watcher.read(), "lobby ended %d %d" % (mid, 1 - alice_seat))
        self.assertReply(alice.ask("resign %d %s" % (mid, tokens[1 - alice_seat])), "err ")
        for s in (a, b):
            s.stop()
        a, b = self.two_servers()
        for s in (a, b):
            self.assertEqual(base.show(Conn(s.port), mid)["result"], str(1 - alice_seat))
        self.assertRatings("alice", "hus/blitz", want_alice, 1)
        self.assertRatings("bob", "hus/blitz", want_bob, 1)


class DrawsPgTest(PgTestCase, draw_tests.DrawTests):
    """Draw offers on PostgreSQL: test-tg-server-draws.py's tests on one server, and across
    two (issue 42 item 5): an offer made through A is pushed to B's watchers and answered
    through B, and the other way round; a draw agreed through B rates once."""

    def setUp(self) -> None:
        draw_tests.SERVER = base.SERVER
        draw_tests.base.SERVER = base.SERVER
        draw_tests.lobby.SERVER = base.SERVER
        super().setUp()

    def start(self, *extra: str) -> base.Server:
        self.stop_servers()
        return self.server(*extra)

    def through(self, conn: Any, line: str, taking_over: bool = False) -> str:
        """The reply to a change, asked again while another server holds the match's lease
        (err leased, which asks it to let go) or changed it a moment ago (err stale), and,
        taking_over, while this server is claiming the match of a server gone (err busy: the
        claim runs on a database thread)."""
        again = [["err", "leased"], ["err", "stale"]] + ([["err", "busy"]] if taking_over else [])
        deadline = time.monotonic() + 15
        while True:
            reply = str(conn.ask(line))
            if reply.split()[:2] not in again or time.monotonic() > deadline:
                return reply
            time.sleep(0.05)

    def until(self, watcher: Any, mid: int, want: str) -> None:
        """Reads the watcher's events of match mid up to `want`; an offer's or a result's event
        on the way is a failure."""
        while True:
            event = draw_tests.next_event(watcher, mid)
            if event == want:
                return
            self.assertTrue(event.startswith("moves "), "%r before %r" % (event, want))

    def test_an_offer_through_a_is_answered_through_b(self) -> None:
        a, b = (self.server(*lobby_tests.OPEN_BUDGETS), self.server(*lobby_tests.OPEN_BUDGETS))
        alice, bob = self.signed_in(a.port, "alice"), self.signed_in(b.port, "bob")
        mid, tokens = self.matched(alice, bob, alice.ok("seek hus clock=5+3 rated"))
        mine = {int(seat): int(account) for seat, account in self.rows(
            "SELECT seat, account_id FROM seat_accounts WHERE match_id = %d" % mid)}
        seat_a = [seat for seat in (0, 1) if mine[seat] == self.account_id("alice")][0]
        seat_b = 1 - seat_a
        on_a, on_b = self.watching(a.port, mid), self.watching(b.port, mid)
        ply = show(alice, mid)["ply"]
        self.assertEqual(self.through(alice, "offer-draw %d %s %s" % (mid, ply, tokens[seat_a])),
                         "ok")
        for w in (on_a, on_b):
            self.until(w, mid, "draw-offered %d" % seat_a)
        self.assertIn(" draw-offered-by=%d " % seat_a, bob.ok("show %d" % mid))
        # B answers from what A told it: its own offer is refused there too.
        self.assertReply(bob.ask("accept-draw %d %s %s" % (mid, ply, tokens[seat_a])),
                         "err own-offer ")
        self.assertEqual(self.through(bob, "decline-draw %d %s %s" % (mid, ply, tokens[seat_b])),
                         "ok")
        for w in (on_a, on_b):
            self.until(w, mid, "draw-declined %d" % seat_b)
        self.assertReply(self.through(bob, "offer-draw %d %s %s" % (mid, ply, tokens[seat_a])),
                         "err draw-too-soon ")
        self.assertReply(self.through(alice, "offer-draw %d %s %s" % (mid, ply, tokens[seat_a])),
                         "err draw-too-soon ")
        # Each seat plays through its own server until bob's seat has moved.
        bob_moved = False
        while not bob_moved:
            info = show(alice, mid)
            seat = int(info["turn"])
            conn = alice if seat == seat_a else bob
            move = conn.ok("moves %d" % mid).split()[0]
            self.assertTrue(self.through(conn, "play %d %s %s %s" % (
                mid, info["ply"], move, tokens[seat])).startswith("ok"))
            bob_moved = seat == seat_b
        ply = show(alice, mid)["ply"]
        # Offered through A again, accepted through B: a draw, rated once, on both servers.
        self.assertEqual(self.through(alice, "offer-draw %d %s %s" % (mid, ply, tokens[seat_a])),
                         "ok")
        for w in (on_a, on_b):
            self.until(w, mid, "draw-offered %d" % seat_a)
        self.assertEqual(self.through(bob, "accept-draw %d %s %s" % (mid, ply, tokens[seat_b])),
                         "ok")
        for w in (on_a, on_b):
            self.until(w, mid, "result draw by=agreement")
        want = lobby_tests.glicko2(1500, 350, 0.06, [(1500, 350, 0.5)])
        self.assertRatings("alice", "hus/blitz", want, 1)
        self.assertRatings("bob", "hus/blitz", want, 1)
        self.assertEqual(self.sql("SELECT winner IS NULL, reason FROM results WHERE match_id = %d"
                                  % mid), "t|resignation")
        for s in (a, b):
            s.stop()
        a, b = self.server(), self.server()
        for s in (a, b):
            info = show(Conn(s.port), mid)
            self.assertEqual((info["result"], info["by"]), ("draw", "agreement"))
        self.assertRatings("alice", "hus/blitz", want, 1)


    def test_an_offer_through_a_killed_server_is_accepted_through_b(self) -> None:
        """A server that never had the match loaded, and so never heard A's news, takes it
        over after A's SIGKILL and knows the offer from its row."""
        a, b = (self.server(*lobby_tests.OPEN_BUDGETS), self.server(*lobby_tests.OPEN_BUDGETS))
        alice, bob = self.signed_in(a.port, "alice"), self.signed_in(a.port, "bob")
        mid, tokens = self.matched(alice, bob, alice.ok("seek hus clock=5+3 rated"))
        seat_a = [int(seat) for seat, account in self.rows(
            "SELECT seat, account_id FROM seat_accounts WHERE match_id = %d" % mid)
            if int(account) == self.account_id("alice")][0]
        ply = show(alice, mid)["ply"]
        self.assertEqual(alice.ask("offer-draw %d %s %s" % (mid, ply, tokens[seat_a])), "ok")
        for c in (alice, bob):
            c.close()
        a.kill()
        on_b = Conn(b.port)
        self.assertReply(self.through(on_b, "offer-draw %d %s %s" % (mid, ply, tokens[seat_a]),
                                      taking_over=True), "err draw-pending ")
        self.assertEqual(self.sql("SELECT offered_by, spent0, spent1 FROM draw_offers WHERE "
                                  "match_id = %d" % mid),
                         "%d|%s|%s" % (seat_a, "t" if seat_a == 0 else "f",
                                       "t" if seat_a == 1 else "f"))
        self.assertIn(" draw-offered-by=%d " % seat_a, on_b.ok("show %d" % mid))
        self.assertEqual(self.through(on_b, "accept-draw %d %s %s"
                                      % (mid, ply, tokens[1 - seat_a]), taking_over=True), "ok")
        info = show(on_b, mid)
        self.assertEqual((info["result"], info["by"]), ("draw", "agreement"))
        want = lobby_tests.glicko2(1500, 350, 0.06, [(1500, 350, 0.5)])
        self.assertRatings("alice", "hus/blitz", want, 1)
        self.assertRatings("bob", "hus/blitz", want, 1)
        self.assertEqual(self.sql("SELECT count(*) FROM draw_offers"), "0")
        self.assertEqual(self.sql("SELECT count(*) FROM lobby_matches"), "0")
        # A back: the same draw, rated once.
        a = self.server(*lobby_tests.OPEN_BUDGETS)
        info = show(Conn(a.port), mid)
        self.assertEqual((info["result"], info["by"]), ("draw", "agreement"))
        self.assertRatings("alice", "hus/blitz", want, 1)
        self.assertRatings("bob", "hus/blitz", want, 1)


class DrawNewsTest(PgTestCase):
    """What another server says of an offer, played by psql on the database: its news is
    taken once the match is read at its version, whichever comes first; a version that
    changed nothing this server reads holds the offer's answers (err busy) until its news
    comes, at most 2 s; forged and malformed news change nothing."""

    def bump(self, mid: int, news: "str | None" = None) -> int:
        """Another server's change of match mid: its version counted and told, and with it
        the news, if any (NEWS's VERSION is the new version)."""
        version = int(self.sql("SELECT version FROM matches WHERE id = %d" % mid)) + 1
        notices = "SELECT pg_notify('tg_match', '%d %d');" % (mid, version)
        if news is not None:
            notices += "SELECT pg_notify('tg_lobby', '%s');" % news.replace("VERSION", str(version))
        self.sql("BEGIN; UPDATE matches SET version = %d WHERE id = %d; %s COMMIT;"
                 % (version, mid, notices))
        return version

    def test_news_is_taken_and_awaited(self) -> None:
        s = self.server()
        c = Conn(s.port)
        m = base.Match(c, "halusa")
        w = Conn(s.port)
        self.assertTrue(w.ask("watch %d" % m.id).startswith("ok watching"))
        ply, turn, _ = m.state(c)
        # Forged or malformed news: nothing changes, nothing is pushed.
        for news in ("other draw", "other draw %d" % m.id,
                     "other draw %d VERSION %d 5 0 0 draw-offered 0" % (m.id, ply),
                     "other draw %d VERSION %d 0 2 0 draw-offered 0" % (m.id, ply),
                     "other draw %d VERSION %d 0 0 0 draw-accepted 0" % (m.id, ply),
                     "other draw %d VERSION %d 0 0 0 draw-offered 7" % (m.id, ply),
                     "other draw %d VERSION %d 0 1 0 draw-offered 0 extra" % (m.id, ply),
                     "other draw 99999999999999999999 VERSION 0 0 1 0 draw-offered 0",
                     "other draw 999 VERSION 0 0 1 0 draw-offered 0",
                     "other lives\n\n"):
            self.sql("SELECT pg_notify('tg_lobby', '%s')" % news.replace(
                "VERSION", self.sql("SELECT version + 1 FROM matches WHERE id = %d" % m.id)))
        self.assertNotIn("draw-offered-by", c.ok("show %d" % m.id))
        self.assertEqual(Conn(s.port).ask("lobby"), "ok 0 0")
        # A version that changed no row this server reads: the offer's answers wait for its
        # news (err busy), then go on as this server knew it.
        self.bump(m.id)
        seen_busy, t0 = None, time.monotonic()
        while time.monotonic() - t0 < 10:
            reply = c.ask("offer-draw %d %d %s" % (m.id, ply, m.tokens[0]))
            if reply.startswith("err busy "):
                seen_busy = seen_busy or time.monotonic()
            elif not reply.startswith("err stale "):
                break
            time.sleep(0.05)
        self.assertIsNotNone(seen_busy, "the offer waited for the news")
        self.assertEqual(reply, "ok")
        assert seen_busy is not None
        waited = time.monotonic() - seen_busy
        self.assertGreater(waited, 0.5)
        self.assertLess(waited, 8)
        self.assertEqual(draw_tests.next_event(w, m.id), "draw-offered 0")
        # Another server's news: seat 0's offer withdrawn and seat 1's made there.
        self.bump(m.id, "other draw %d VERSION %d 1 1 1 draw-offered 1" % (m.id, ply))
        self.assertEqual(draw_tests.next_event(w, m.id), "draw-offered 1")
        self.assertIn(" draw-offered-by=1 ", c.ok("show %d" % m.id))
        self.assertTrue(c.ask("offer-draw %d %d %s" % (m.id, ply, m.tokens[0])).startswith(
            "err draw-pending "))
        self.assertEqual(c.ask("accept-draw %d %d %s" % (m.id, ply, m.tokens[0])), "ok")
        self.assertEqual(draw_tests.next_event(w, m.id), "result draw by=agreement")
        self.assertEqual(self.sql("SELECT winner IS NULL, reason FROM results WHERE match_id = %d"
                                  % m.id), "t|resignation")
        # A news older than what the server knows changes nothing.
        self.sql("SELECT pg_notify('tg_lobby', 'other draw %d 1 %d 0 1 0 draw-offered 0')"
                 % (m.id, ply))
        self.assertEqual(base.show(c, m.id)["by"], "agreement")
        self.assertNotIn("draw-offered-by", c.ok("show %d" % m.id))
        self.assertIn("servers=1", c.ok("status"))


    def test_a_news_that_never_comes_leaves_the_offer_as_its_row_says(self) -> None:
        s = self.server()
        c = Conn(s.port)
        m = base.Match(c, "halusa")
        w = Conn(s.port)
        self.assertTrue(w.ask("watch %d" % m.id).startswith("ok watching"))
        ply, _, _ = m.state(c)
        # Another server's offer by seat 1: its row and version written, its news lost.
        self.sql("INSERT INTO draw_offers (match_id, offered_by, spent0, spent1) "
                 "VALUES (%d, 1, false, true)" % m.id)
        self.bump(m.id)
        t0 = time.monotonic()
        while True:
            reply = c.ask("offer-draw %d %d %s" % (m.id, ply, m.tokens[0]))
            if not reply.startswith(("err busy ", "err stale ")) or time.monotonic() - t0 > 10:
                break
            time.sleep(0.05)
        self.assertTrue(reply.startswith("err draw-pending "), reply)
        self.assertGreater(time.monotonic() - t0, 0.5)  # the news was awaited first
        self.assertEqual(draw_tests.next_event(w, m.id), "draw-offered 1")
        self.assertIn(" draw-offered-by=1 ", c.ok("show %d" % m.id))
        self.assertTrue(c.ask("withdraw-draw %d %d %s" % (m.id, ply, m.tokens[0])).startswith(
            "err no-draw-offer "))
        self.assertEqual(c.ask("accept-draw %d %d %s" % (m.id, ply, m.tokens[0])), "ok")
        self.assertEqual(draw_tests.next_event(w, m.id), "result draw by=agreement")
        self.assertEqual(self.sql("SELECT count(*) FROM draw_offers"), "0")


def owner_of(server: base.Server) -> str:
    """The server's name in the leases table, from its banner."""
    return server.banner.split("shared, as server ")[1].split(",")[0]


class UnplayedMatchesTest(PgTestCase):
    """Issue 41 items 8 and 9 on PostgreSQL: matches nobody plays end, with the lease of a
    match another server plays respected; an `err io` always says why."""

    def test_never_joined_and_abandoned_matches_end(self) -> None:
        args = ("--join-timeout", "2", "--abandon-after", "3", "--unload-after", "1")
        a, b = self.server(*args), self.server(*args)
        conn, watcher = Conn(a.port), Conn(a.port)
        watched = conn.ok("new halusa").split()[0]  # loaded on a (its lease): ended by a
        unwatched = conn.ok("new tab").split()[0]   # unloaded: ended in the database
        left, tokens = new_match(conn, "halusa")
        conn.ok("play %d 0 c1 %s" % (left, tokens[0]))
        watcher.ok("watch %s" % watched)
        watcher.sock.settimeout(15)
        self.assertEqual(watcher.read(), "event %s result aborted by=no-join" % watched)
        other = Conn(b.port)

        def ended(mid: int) -> bool:
            return show(other, mid)["result"] == "aborted"
        deadline = time.monotonic() + 15
        while not (ended(int(unwatched)) and ended(left)) and time.monotonic() < deadline:
            time.sleep(0.2)
        self.assertEqual(show(other, int(unwatched))["by"], "no-join")
        self.assertEqual(show(other, left)["by"], "abandoned")
        self.assertEqual(self.sql("SELECT count(*) FROM aborted"), "3")
        self.assertEqual(dict(w.partition("=")[::2] for w in other.ok("status").split())["live"],
                         "0")

    def test_a_lost_connection_is_told_with_its_cause(self) -> None:
        s = self.server()
        conn = Conn(s.port)
        conn.ok("new halusa")
        stop = threading.Event()

        def cut() -> None:
            while not stop.is_set():
                self.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                         "datname = '%s' AND pid <> pg_backend_pid()" % self.dbname)
                time.sleep(0.1)
        cutter = threading.Thread(target=cut)
        cutter.start()
        errors = []
        try:
            t0 = time.monotonic()
            while time.monotonic() - t0 < 4:
                reply = conn.ask("list")
                if not reply.startswith("ok"):
                    errors.append(reply)
        finally:
            stop.set()
            cutter.join()
        self.assertTrue(errors)
        self.assertEqual([e for e in errors if "()" in e or not e.startswith("err io ")], [])


class SeveralServersTest(PgTestCase):
    def wait_taken_over(self, mids: list[int], dead_owner: str, limit: float) -> float:
        """Seconds until every live match of mids is leased by a server other than dead_owner
        (at most limit)."""
        t0 = time.monotonic()
        ids = ",".join(str(m) for m in mids) or "0"
        while True:
            left = self.sql(
                "SELECT count(*) FROM leases l JOIN clocks c USING (match_id) WHERE "
                "l.match_id IN (%s) AND c.flagged IS NULL AND NOT EXISTS (SELECT 1 FROM "
                "results r WHERE r.match_id = l.match_id) AND NOT EXISTS (SELECT 1 FROM "
                "aborted a WHERE a.match_id = l.match_id) AND (l.owner = '%s' OR "
                "l.expires_at <= clock_timestamp())" % (ids, dead_owner))
            if left == "0":
                return time.monotonic() - t0
            if time.monotonic() - t0 > limit:
                self.fail("%s of matches %s not taken over after %.1f s" % (left, ids, limit))
            time.sleep(0.02)

    def test_a_killed_servers_clocked_match_is_taken_over_and_its_flag_falls(self) -> None:
        a, b = self.server(), self.server()
        conn = Conn(a.port)
        mid, tokens = new_match(conn, "hus clock=0.1+0")  # 6 s a seat
        rng = random.Random(5)
        play_one(conn, mid, tokens, rng)
        play_one(conn, mid, tokens, rng)
        conn.close()
        self.assertEqual(self.sql("SELECT owner FROM leases WHERE match_id = %d" % mid),
                         owner_of(a))
        a.kill()
        killed = time.monotonic()
        took = self.wait_taken_over([mid], owner_of(a), 5.0)
        self.assertEqual(self.sql("SELECT owner FROM leases WHERE match_id = %d" % mid),
                         owner_of(b))
        # Nobody plays it: its flag falls on B when the seat's 6 s are out.
        while self.sql("SELECT flagged IS NOT NULL FROM clocks WHERE match_id = %d" % mid) != "t":
            self.assertLess(time.monotonic() - killed, 15, "no flag fall")
            time.sleep(0.05)
        fell = time.monotonic() - killed
        # On time: when the seat's 6 s ran out, or at once if that was before the take-over.
        self.assertLess(fell, max(6.0, took) + 2.0)
        conn = Conn(b.port)
        self.assertIn(show(conn, mid)["result"], ("0", "1"))
        conn.close()
        print("# take-over of a killed server's match: %.2f s after the SIGKILL (lease 1 s); "
              "its flag fell %.2f s after" % (took, fell))

    def watch(self, mid: int, played_at: int) -> None:
        """Every match is watched through the two servers it is not played through (as they
        were when it began), by a watcher with room for it (16 matches a connection)."""
        with self.watch_lock:
            for server in range(3):
                if server == played_at:
                    continue
                w = next(w for w in self.watchers if w.first == server and w.count < 16)
                w.count += 1
                w.add(mid)

    def test_leases_hand_over_and_watchers_see_other_servers_moves(self) -> None:
        web_port_file = os.path.join(self.tmp.name, "b.web-port")
        # Leases of 5 s here: A's must not run out on a busy machine while B is refused.
        a = self.server("--lease", "5")
        b = self.server("--lease", "5", "--metrics-port", "0", "--metrics-port-file", web_port_file)
        ca, cb = Conn(a.port), Conn(b.port)
        mid, tokens = new_match(ca, "halusa")
        cb.send("watch %d" % mid)
        self.assertTrue(cb.read().startswith("ok watching"))
        rng = random.Random(1)
        plies = ca.ok("history %d" % mid).split()
        for _ in range(4):
            got = play_one(ca, mid, tokens, rng)
            assert got is not None
            plies += got
        seen: list[str] = []
        while len(seen) < len(plies):
            words = cb.read().split()
            if words[2] == "moves":
                del seen[int(words[3]):]
                seen += words[4:]
        self.assertEqual(seen, plies)
        # B's client plays the match A plays: refused in words, then A lets go and it is B's.
        cb.send("unwatch %d" % mid)
        self.assertEqual(cb.read(), "ok")
        info = show(cb, mid)
        self.assertEqual(int(info["ply"]), len(plies))
        moves = cb.ok("moves %d" % mid).split()
        line = "play %d %s %s %s" % (mid, info["ply"], moves[0], tokens[int(info["turn"])])
        first = cb.ask(line)
        self.assertRegex(first, r"^err leased match %d is being played through another server"
                         % mid)
        deadline = time.monotonic() + 10
        reply = first
        while not reply.startswith("ok") and time.monotonic() < deadline:
            time.sleep(0.05)
            reply = cb.ask(line)
        self.assertTrue(reply.startswith("ok"), reply)
        plies += reply[3:].split()
        owner = self.sql("SELECT count(DISTINCT owner) FROM leases WHERE match_id = %d" % mid)
        self.assertEqual(owner, "1")
        self.assertEqual(self.stored_history(mid), plies)
        # A's copy followed: it shows B's move.
        deadline = time.monotonic() + 5
        while ca.ok("history %d" % mid).split() != plies and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(ca.ok("history %d" % mid).split(), plies)
        ca.close()
        cb.close()
        # B's metrics count the refusal (published once a second).
        with open(web_port_file) as f:
            web_port = int(f.read())
        deadline = time.monotonic() + 10
        while True:
            with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % web_port) as r:
                text = r.read().decode()
            refused = [line for line in text.splitlines()
                       if line.startswith('tg_server_refusals_total{reason="leased-or-stale"}')]
            if (refused and float(refused[0].split()[1]) >= 1) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        self.assertTrue(refused and float(refused[0].split()[1]) >= 1, text)
        self.assertIn("tg_server_lease_renewal_age_seconds", text)
        self.assertIn("tg_server_taken_over_total", text)

    def test_three_servers_sigkill_rounds_nothing_acknowledged_lost(self) -> None:
        self.servers_started = [self.server("--unload-after", "2") for _ in range(3)]
        self.servers = self.servers_started
        self.watchers = [Watcher(self.servers, i % 3) for i in range(15)]
        self.watch_lock = threading.Lock()
        for w in self.watchers:
            w.start()
        # A few clocked matches too: one whose server is killed is taken over by another.
        plan = [GAMES[i % len(GAMES)] for i in range(72)]
        plan[0:6] = ["halusa clock=30+0", "hus clock=30+0", "tab clock=30+0",
                     "hawalis clock=30+0", "walak-pussa clock=30+0", "halusa clock=30+0"]
        players = [FailoverPlayer(self, i, plan[i::24]) for i in range(24)]
        t0 = time.monotonic()
        for p in players:
            p.start()
        rng = random.Random(29)
        kills = taken = 0
        takeovers: list[float] = []
        while any(p.is_alive() for p in players) and kills < 4:
            time.sleep(0.5 + 0.5 * rng.random())
            victim = self.servers[kills % 3]
            dead = owner_of(victim)
            clocked = self.sql("SELECT match_id FROM leases JOIN clocks USING (match_id) WHERE "
                               "owner = '%s' AND flagged IS NULL" % dead)
            victim.kill()
            kills += 1
            time.sleep(0.3)
            victim.start()
            # Its clocked matches are leased by a live server once their lease ran out.
            mids = [int(m) for m in clocked.split()]
            takeovers.append(self.wait_taken_over(mids, dead, 10.0) + 0.3)
            taken += len(mids)
        for p in players:
            p.join(timeout=150)
        elapsed = time.monotonic() - t0
        acked_of = {mid: plies for p in players for mid, plies in p.acked.items()}

        def caught_up() -> bool:
            return all(w.seen.get(mid) == acked_of.get(mid)
                       for w in self.watchers for mid in list(w.assigned))

        deadline = time.monotonic() + 20
        while not caught_up() and time.monotonic() < deadline:
            time.sleep(0.1)
        for w in self.watchers:
            w.stop.set()
        for w in self.watchers:
            w.join(timeout=10)
        errors = [p.error for p in players if p.error] + \
                 ["player %d still running" % p.index for p in players if p.is_alive()] + \
                 [w.error for w in self.watchers if w.error]
        self.assertEqual(errors, [])
        self.assertEqual(kills, 4)
        self.assertGreater(sum(p.moves_to_other_server for p in players), 0)
        # Every acknowledged ply is in the database and was seen by every watcher of it.
        conn = Conn(self.servers[0].port)
        for p in players:
            for mid, plies in p.acked.items():
                self.assertEqual(self.stored_history(mid), plies, "match %d" % mid)
                self.assertNotEqual(show(conn, mid)["result"], "running")
        conn.close()
        watched = 0
        for w in self.watchers:
            for mid in w.assigned:
                self.assertEqual(w.seen.get(mid), acked_of[mid], "match %d as watched" % mid)
                watched += 1
        self.assertEqual(watched, 2 * 72)  # each match through both other servers
        print("# failover: 3 servers, 24 players, 72 matches, 4 SIGKILLs in %.1f s; %d "
              "acknowledged moves, %d refused (leased/stale/io/busy) and retried, %d watched copies "
              "identical; %d clocked matches of killed servers taken over, the slowest "
              "%.2f s after its SIGKILL" % (elapsed, sum(p.acks for p in players),
                                            sum(p.refusals for p in players), watched, taken,
                                            max(takeovers)))


class FrozenServerTest(PgTestCase):
    """A server stopped (SIGSTOP) in the middle of a round, its transaction open and its match's
    rows locked: the others' loops do not wait on it, `new` works there, and its clocked match
    is taken over once PostgreSQL has ended the frozen session (idle_in_transaction_session_
    timeout, the lease) and the match's flag falls (issue 41 item 4)."""

    def backend_in_round(self, owner: str) -> bool:
        """Whether the server's session is between two statements of a transaction that wrote
        (its claim of the match done, its rows locked)."""
        return self.sql("SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                        "'tg-server %s' AND state = 'idle in transaction' AND backend_xid "
                        "IS NOT NULL" % owner) == "1"

    def stop_in_round(self, frozen: base.Server, conn: Any, line: str, rng: random.Random) \
            -> bool:
        """Sends `line` to `frozen` and stops it (SIGSTOP) a moment later: whether it was
        stopped in the middle of that command's round. If not, it runs on, and the command's
        answer is read."""
        conn.send(line)
        time.sleep(rng.random() * 0.003)
        frozen.proc.send_signal(signal.SIGSTOP)
        time.sleep(0.05)  # a statement under way ends: its session waits for the next
        if self.backend_in_round(owner_of(frozen)):
            return True
        frozen.proc.send_signal(signal.SIGCONT)
        try:
            conn.read()
        except ConnectionError:
            # Seen once, under a second test file's load, and not reproduced since: say what
            # the server was doing, so that the next occurrence can be told apart.
            code = frozen.proc.poll()
            if code is not None:
                self.fail("the server exited (%d) after SIGCONT: %s"
                          % (code, frozen.proc.stderr.read()))
            self.fail("the server closed a client's connection after SIGSTOP/SIGCONT; its "
                      "session in pg_stat_activity: %s" % self.sql(
                          "SELECT state || ' xid=' || coalesce(backend_xid::text, '-') FROM "
                          "pg_stat_activity WHERE application_name = 'tg-server %s'"
                          % owner_of(frozen)))
        return False

    def freeze_in_round(self, frozen: base.Server, conn: Any) -> tuple[int, str]:
        """Plays moves of clocked matches on `frozen` and stops it in the middle of one move's
        round: (the match, the reply's expected ply)."""
        rng = random.Random(41)
        mid, tokens = new_match(conn, "hus clock=0.1+0")
        for _ in range(300):
            info = show(conn, mid)
            if info["result"] != "running" or int(info["clock"].split(",")[int(info["turn"])]) \
                    < 4000:
                mid, tokens = new_match(conn, "hus clock=0.1+0")
                continue
            moves = conn.ok("moves %d" % mid).split()
            play = "play %d %s %s %s" % (mid, info["ply"], rng.choice(moves),
                                         tokens[int(info["turn"])])
            if info["ply"] == "0":  # the first decision starts the clocks: before the freeze
                conn.ok(play)
            elif self.stop_in_round(frozen, conn, play, rng):
                return mid, info["ply"]
        self.fail("the server was never stopped in the middle of a round in 300 tries")

    def test_a_server_frozen_in_its_round_does_not_stall_the_others(self) -> None:
        frozen, a, b = self.server(), self.server(), self.server()
        player = Conn(frozen.port, timeout=60)
        mid, ply = self.freeze_in_round(frozen, player)
        stopped_at = time.monotonic()
        try:
            watcher = Conn(a.port, timeout=60)  # past the bound below: that one says why
            watcher.ok("watch %d" % mid)
            result: list[str] = []
            fell_at: list[float] = []

            def watch() -> None:
                while True:
                    line = watcher.read()
                    if line.startswith("event %d result " % mid):
                        result.append(line)
                        fell_at.append(time.monotonic() - stopped_at)
                        return

            threading.Thread(target=watch, daemon=True).start()
            others = [Conn(a.port, timeout=30), Conn(b.port, timeout=30)]
            slowest, answers, made = 0.0, 0, 0
            # Over the freeze, past the lease and the frozen session's end: each loop answers
            # every time within 2 s (it froze 5 s at a time), and `new` works on both.
            while time.monotonic() - stopped_at < 4.0 or not fell_at:
                # 40 s: the lease (1 s) and the frozen session's end take a few seconds idle,
                # but 20 s was passed by 0.04 s once at load 5 with the other suites running.
                if time.monotonic() - stopped_at >= 40.0:
                    # Seen once in a whole suite's run at load 8 (never alone): what each
                    # server and the database say then, to tell a take-over that never came
                    # from a flag that fell unseen by the watcher's server.
                    self.fail("the frozen server's clocked match was not taken over, or its "
                              "flag did not fall: lease %s; result row %s; show on A %s, on "
                              "B %s; pg_stat_activity %s"
                              % (self.sql("SELECT owner || ' ' || (expires_at - now())::text "
                                          "FROM leases WHERE match_id = %d" % mid),
                                 self.sql("SELECT winner || ' ' || ply FROM results WHERE "
                                          "match_id = %d" % mid),
                                 others[0].ask("show %d" % mid), others[1].ask("show %d" % mid),
                                 self.sql("SELECT string_agg(application_name || ':' || state, "
                                          "', ') FROM pg_stat_activity WHERE application_name "
                                          "LIKE 'tg-server%'")))
                for conn in others:
                    t0 = time.monotonic()
                    self.assertTrue(conn.ask("status").startswith("ok "))
                    slowest = max(slowest, time.monotonic() - t0)
                    answers += 1
                if made < 2:
                    reply = others[made].ask("new hus")
                    if reply.startswith("ok "):
                        made += 1
                    else:  # a lock held by the frozen server: `busy`, try again, never `io`
                        self.assertTrue(reply.startswith("err busy "), reply)
                time.sleep(0.05)
            self.assertTrue(result[0].endswith(" by=time"), result)
            self.assertLess(slowest, 2.0)
            self.assertEqual(made, 2)
            self.assertNotEqual(self.sql("SELECT owner FROM leases WHERE match_id = %d" % mid),
                                owner_of(frozen))
            self.assertIn(show(others[0], mid)["result"], ("0", "1"))
            print("# a server frozen in its round: %d answers of the others, the slowest %.2f "
                  "s; its match's flag fell %.2f s after the SIGSTOP (lease 1 s)"
                  % (answers, slowest, fell_at[0]))
        finally:
            frozen.proc.send_signal(signal.SIGCONT)
        # Its session was ended under it: the move in flight is refused or was stored, and the
        # server carries on.
        reply = player.read()
        stored = self.stored_history(mid)
        if reply.startswith("ok"):
            self.assertGreater(len(stored), int(ply))
        else:
            self.assertTrue(reply.startswith("err "), reply)
        deadline = time.monotonic() + 10
        while True:
            reply = player.ask("new hus")
            if reply.startswith("ok ") or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        self.assertTrue(reply.startswith("ok "), reply)
        for conn in [player, watcher] + others:
            conn.close()

    def test_a_server_frozen_while_admitting_a_match_does_not_block_new(self) -> None:
        """Stopped in the middle of a `new`, holding the site's admission lock (tg_admit): the
        others' `new` is answered at once, `err busy` at worst, and works again once
        PostgreSQL has ended the frozen session."""
        frozen, other = self.server(), self.server()
        conn, rng = Conn(frozen.port, timeout=60), random.Random(5)
        for _ in range(300):
            if self.stop_in_round(frozen, conn, "new hus", rng):
                break
        else:
            self.fail("the server was never stopped in the middle of a `new` in 300 tries")
        stopped_at = time.monotonic()
        try:
            client, slowest, busy = Conn(other.port, timeout=30), 0.0, 0
            while True:
                self.assertLess(time.monotonic() - stopped_at, 10.0, "`new` never went through")
                t0 = time.monotonic()
                reply = client.ask("new hus")
                slowest = max(slowest, time.monotonic() - t0)
                if reply.startswith("ok "):
                    break
                self.assertTrue(reply.startswith("err busy "), reply)
                busy += 1
                time.sleep(0.05)
            self.assertLess(slowest, 2.0)
            print("# a server frozen holding the admission lock: `new` elsewhere %.2f s after "
                  "the SIGSTOP (%d times err busy before), the slowest answer %.2f s"
                  % (time.monotonic() - stopped_at, busy, slowest))
        finally:
            frozen.proc.send_signal(signal.SIGCONT)
        conn.read()  # the frozen `new`: refused (its session was ended) or made
        self.assertTrue(conn.ask("status").startswith("ok "))
        client.close()
        conn.close()


class HeldLockTest(PgTestCase):
    """Another session holds rows a change needs locked for 3 s (as a server frozen inside its
    transaction would): the server's loop does not wait for the lock. Another client's `status`,
    `show` and 8 plays of another match are all answered before the lock goes (an order on the
    lock holder's timeline, no latency bound), while each change that meets the lock is answered
    as before, `err leased` after lock_timeout (issue 41 item 4)."""

    HOLD = 3.0
    PLAYS = 8

    def test_a_row_lock_held_elsewhere_does_not_stall_the_loop(self) -> None:
        s = self.server()
        conn = Conn(s.port, timeout=30)
        locked = [new_match(conn, "hus") for _ in range(3)]
        free_mid, free_tokens = new_match(conn, "hus")
        session = self.hold("SELECT 1 FROM leases WHERE match_id IN (%s) FOR UPDATE"
                            % ",".join(str(mid) for mid, _ in locked))
        # The lock holder's timeline: held from now, released no earlier than HOLD from now.
        held_until = time.monotonic() + self.HOLD
        held = threading.Event()
        held.set()
        refused: list[int] = []
        in_flight = threading.Semaphore(0)  # released as each hammer's first play is sent
        unexpected: list[str] = []

        def hammer(mid: int, tokens: list[str]) -> None:
            """Plays the locked match until the lock goes: `err leased` while it is held (an
            `ok` as it goes)."""
            player, rng, leased = Conn(s.port, timeout=30), random.Random(mid), 0
            sent = 0
            while held.is_set():
                info = show(player, mid)
                move = rng.choice(player.ok("moves %d" % mid).split())
                player.send("play %d %s %s %s" % (mid, info["ply"], move,
                                                   tokens[int(info["turn"])]))
                sent += 1
                if sent == 1:
                    in_flight.release()
                reply = player.read()
                if reply.startswith("err leased "):
                    leased += 1
                elif not reply.startswith("ok"):
                    unexpected.append(reply)
            refused.append(leased)
            player.close()

        hammers = [threading.Thread(target=hammer, args=m, daemon=True) for m in locked]
        for t in hammers:
            t.start()
        for _ in hammers:
            self.assertTrue(in_flight.acquire(timeout=30), "a hammer never played")
        # Three changes that meet the lock are in flight; the bystander's fixed work (4 answers
        # a play) must all be answered before the lock is released. On the loop, each refused
        # change held every answer up to lock_timeout (250 ms: a median of 0.51 s an answer
        # was measured, about 16 s for these); off it, they take milliseconds.
        bystander, rng = Conn(s.port, timeout=30), random.Random(7)
        answers = plays = 0
        while plays < self.PLAYS and time.monotonic() < held_until:
            self.assertTrue(bystander.ask("status").startswith("ok"))
            info = show(bystander, free_mid)
            answers += 2
            if info["result"] != "running":
                free_mid, free_tokens = new_match(conn, "hus")
                continue
            moves = bystander.ok("moves %d" % free_mid).split()
            bystander.ok("play %d %s %s %s" % (free_mid, info["ply"], rng.choice(moves),
                                               free_tokens[int(info["turn"])]))
            answers += 2
            plays += 1
        answered_by = time.monotonic()
        time.sleep(max(0.0, held_until - time.monotonic()))
        self.release(session)
        held.clear()
        for t in hammers:
            t.join(30)
        self.assertEqual(plays, self.PLAYS,
                         "the lock was held %.0f s; %d answers came meanwhile"
                         % (self.HOLD, answers))
        self.assertLess(answered_by, held_until)
        self.assertEqual(unexpected, [])
        self.assertEqual(len(refused), 3)
        self.assertTrue(all(n >= 1 for n in refused), refused)
        # The lock gone, the locked matches are played again.
        mid, tokens = locked[0]
        info = show(conn, mid)
        move = conn.ok("moves %d" % mid).split()[0]
        conn.ok("play %d %s %s %s" % (mid, info["ply"], move, tokens[int(info["turn"])]))
        print("# rows locked elsewhere for %.0f s: %s changes refused `err leased`; another "
              "client's %d answers (%d plays) all came within the first %.2f s of it"
              % (self.HOLD, "+".join(map(str, refused)), answers, plays,
                 answered_by - (held_until - self.HOLD)))
        bystander.close()
        conn.close()


class AdmissionTest(PgTestCase, admit_tests.AdmissionTests):
    """New matches written off the loop (test-tg-server-pg-admit.py)."""


class DatabaseThreadTest(PgTestCase, loop_tests.DatabaseThreadTests):
    """Take-over claims, account writes and the loads' reads off the loop
    (test-tg-server-pg-loop.py)."""


class HistoryLockTest(PgTestCase):
    """The history's reads on the loop (docs/server.md, "History"): a session holding every
    account's, seat's and rating's row locked does not make `player-page` or `match-page` wait
    (plain reads take no row locks); one holding rating_history's table lock, as a migration
    would, has `player-page` answered `err io` after lock_timeout, well before the lock goes,
    while another client's `status` is answered too; once it goes, the page reads again."""

    HOLD = HeldLockTest.HOLD
    hold = HeldLockTest.hold
    release = HeldLockTest.release

    def test_history_reads_wait_for_no_row_lock_and_give_up_on_a_table_lock(self) -> None:
        s = self.server(*lobby_tests.OPEN_BUDGETS)
        conn = Conn(s.port, timeout=30)
        conn.ok("register alice %s" % account_tests.PASSWORD)
        other = Conn(s.port, timeout=30)
        other.ok("register bob %s" % account_tests.PASSWORD)
        seek = conn.ok("seek hus clock=5+3 rated")
        mid = int(other.ok("accept-seek %s" % seek).split()[0])
        self.assertEqual(conn.read().split()[:2], ["lobby", "unseek"])
        conn.read()  # lobby matched
        self.assertTrue(conn.ask("player-page alice").startswith("ok {"))
        session = self.hold("SELECT 1 FROM accounts, seat_accounts, rated_matches FOR UPDATE")
        held_until = time.monotonic() + self.HOLD
        try:
            self.assertTrue(conn.ask("player-page alice").startswith("ok {"))
            self.assertTrue(conn.ask("match-page %d" % mid).startswith("ok {"))
            self.assertLess(time.monotonic(), held_until)
        finally:
            self.release(session)
        session = self.hold("LOCK TABLE rating_history IN ACCESS EXCLUSIVE MODE; "
                            "SELECT 1 FROM accounts FOR UPDATE")
        held_until = time.monotonic() + self.HOLD
        try:
            reply = conn.ask("player-page alice")
            self.assertTrue(reply.startswith("err io "), reply)
            self.assertTrue(other.ask("status").startswith("ok matches="))
            self.assertLess(time.monotonic(), held_until)
        finally:
            self.release(session)
        self.assertTrue(conn.ask("player-page alice").startswith("ok {"))
        conn.close()
        other.close()


class RematchAcrossServersTest(PgTestCase):
    """`rematch` asked on two servers at the same moment makes one match, site-wide, both
    seats in it swapped, and the watchers on both servers are told the same one (issue 41
    item 5)."""

    def ask_until_ok(self, conn: Any, line: str, out: "dict[str, str]", key: str) -> None:
        deadline = time.monotonic() + 15
        while True:
            reply = conn.ask(line)
            if reply.startswith("ok ") or time.monotonic() > deadline or \
                    reply.split()[:2] not in (["err", "leased"], ["err", "busy"],
                                              ["err", "stale"]):
                out[key] = reply
                return
            time.sleep(0.05)

    def rematch_event(self, conn: Any, mid: int) -> str:
        while True:
            words = conn.read().split()
            if words[:3] == ["event", str(mid), "rematch"]:
                return words[3]

    def test_rematch_asked_on_two_servers_at_once_makes_one(self) -> None:
        a, b = self.server(), self.server()
        south, north = Conn(a.port, timeout=30), Conn(b.port, timeout=30)
        for attempt in range(8):
            watch_a, watch_b = Conn(a.port, timeout=30), Conn(b.port, timeout=30)
            mid, (t0, t1) = new_match(south, "hus clock=5+3")
            moves = south.ok("moves %d" % mid).split()
            south.ok("play %d 0 %s %s" % (mid, moves[0], t0))
            south.ok("resign %d %s" % (mid, t0))
            for w in (watch_a, watch_b):
                w.ok("watch %d" % mid)
            replies: dict[str, str] = {}
            asks = [threading.Thread(target=self.ask_until_ok,
                                     args=(south, "rematch %d %s" % (mid, t0), replies, "s")),
                    threading.Thread(target=self.ask_until_ok,
                                     args=(north, "rematch %d %s" % (mid, t1), replies, "n"))]
            for t in asks:
                t.start()
            for t in asks:
                t.join()
            s_new, s_seat, _ = replies["s"][3:].split()
            n_new, n_seat, _ = replies["n"][3:].split()
            self.assertEqual(s_new, n_new, (attempt, replies))
            self.assertEqual((s_seat, n_seat), ("1", "0"))
            self.assertEqual(self.sql("SELECT count(*) FROM matches WHERE id > %d" % mid), "1")
            self.assertEqual(self.sql("SELECT id FROM matches WHERE rematch_of = %d" % mid),
                             s_new)
            self.assertNotIn("waiting-for", show(north, int(s_new)))
            self.assertEqual(self.rematch_event(watch_a, mid), s_new)
            self.assertEqual(self.rematch_event(watch_b, mid), s_new)
            watch_a.close()
            watch_b.close()
        south.close()
        north.close()


# meson runs this file as two tests side by side, each with a cluster of its own
# (server/meson.build), so that neither takes the whole run's time alone: `--part sites`, the
# classes of several servers, frozen ones and held locks (most of the time spent waiting for
# leases, locks and 200,000-ply loads), and `--part one`, every other class. Without --part,
# or with class names, as unittest takes them.
SITES_PART = ("SeveralServersTest", "FrozenServerTest", "HeldLockTest", "AdmissionTest",
              "DatabaseThreadTest", "HistoryLockTest", "RematchAcrossServersTest",
              "DrawNewsTest", "UnplayedMatchesTest")


def part_classes(part: str) -> "list[str]":
    """The test classes of `part` ('sites' or 'one'), by name."""
    if part not in ("sites", "one"):
        sys.exit("test-tg-server-pg.py: --part takes 'sites' or 'one', not %r" % part)
    every = [name for name, item in globals().items() if isinstance(item, type)
             and issubclass(item, unittest.TestCase) and item.__module__ == "__main__"
             and name.endswith("Test")]
    missing = set(SITES_PART) - set(every)
    if missing:
        sys.exit("test-tg-server-pg.py: no test class %s" % ", ".join(sorted(missing)))
    return [name for name in every if (name in SITES_PART) == (part == "sites")]


if __name__ == "__main__":
    base.SERVER = os.path.abspath(sys.argv.pop(1))
    if len(sys.argv) > 2 and sys.argv[1] == "--part":
        sys.argv[1:3] = part_classes(sys.argv[2])
    unittest.main(verbosity=2)
