"""The loop's own database work on a shared PostgreSQL database, off the loop (issue 41 item 4),
mixed into the test cases of test-tg-server-pg.py (its cluster, its databases, its lock holder):

- the take-over claim of a killed server's clocked matches, made slow (a trigger sleeps 1.5 s
  in each claim that changes a lease's owner): another client of the taking server is answered
  in milliseconds meanwhile, and every match is taken over; the loop that made the claims
  itself froze 1.5 s a match, again at each lease tick;
- the same matches' rows held locked by a `psql` session for 3 s past their lease: the claims
  are refused meanwhile (lock_timeout), the bystander is answered, and once the lock goes the
  matches are taken over;
- account writes with the account's row and its sessions held locked for 3 s: `logout-all`
  and `login` of that account are answered `err io` after lock_timeout, nothing changed, while
  another client's `status`, `show`, `moves` and plays are answered in milliseconds; the loop
  that made those writes itself waited lock_timeout for each, back to back (a median answer of
  about a tenth of a second and more); once the lock goes, both work;
- the correspondence scan with `correspondence` held ACCESS EXCLUSIVE by a `psql` session for
  4 s (a read of committed rows waits for no row lock, only for a table lock, up to
  lock_timeout) while an unloaded match's deadline passes: a reading bystander meets no stall, and
  once the lock goes the overdue match is flagged; the loop that scanned itself stalled
  250 ms every second;
- the end of expired matches that are not loaded, with `aborted` held in SHARE mode for 4 s
  (an end's insert waits lock_timeout for it): a reading bystander meets no stall, and once the
  lock goes every one of them ends; the loop that ended them itself stalled 250 ms a pass;
- the lobby's writes with a seek's row held `FOR UPDATE` for 4 s (as a server frozen while
  taking it holds it) while its owner keeps seeking and withdrawing: each seek is answered, a
  withdrawal skips the held row (`err busy` when it is the one named), a reading bystander
  meets no stall, and the seek lists of both servers and the table are right afterwards; the
  loop that withdrew seeks on its own connection waited for the whole hold;
- the same with the whole `seeks` table locked (as a migration would): every seek answered
  `err busy` after lock_timeout, nothing stored, the bystander meets no stall, and a seek goes
  through once the lock goes;
- `/metrics` showing the database threads' queue and busy threads while seeks are slowed by a
  trigger, both back to 0 once they are stored;
- the first load of stored 200,000-ply matches (migrated in before the server starts, so that
  none is loaded), each asked by two clients at once: both answered with the whole match, its
  rows read once (PostgreSQL's count of scans of a table only a load reads), while a bystander
  playing another match meets no stall; the loop that read the rows itself
  stalled for each read;
- a load whose read meets a table held ACCESS EXCLUSIVE for 4 s (`kept_throws`, which only a
  load reads; a migration would hold it so): each attempt answered `err io ... try again`
  after lock_timeout, a reading bystander meets no stall, and the match loads once the lock
  goes; the loop that read the rows itself waited lock_timeout for each attempt.
"""
from __future__ import annotations

import os
import statistics
import threading
import time
import urllib.request
from typing import Any, Callable

import sibling  # noqa: E402

base: Any = sibling.load("tg_server_pg_loop_base", "test-tg-server.py")
admit: Any = sibling.load("tg_server_pg_loop_admit", "test-tg-server-pg-admit.py")
accounts: Any = sibling.load("tg_server_pg_loop_accounts", "test-tg-server-accounts.py")
Conn, new_match = base.Conn, base.new_match
Hammer = admit.Hammer

VICTIMS = 3  # clocked matches of the killed server
SLOW_CLAIM = 1.5  # seconds the trigger sleeps in a take-over claim
WATCH = 4.0  # seconds the bystander is measured while the take-overs go on
HOLD = 4.0  # seconds a table is held for the once-a-second passes: four passes or more
# An answer slower than this met the loop waiting lock_timeout (250 ms): just under it, so that
# a busy machine's slow answers (most well under it) are rarely counted.
STALL = 0.24
# Stalls allowed while the lock is held HOLD seconds: the loop waiting once a pass made 4 (253
# to 341 ms each) before these passes moved to the database threads; a loaded machine may make
# one or two slow answers by itself.
STALLS_ALLOWED = 2
UNLOADED = 8  # expired matches not loaded, each end meeting the held lock
SEEK = "seek hus clock=5+3 casual"
SLOW_SEEKS = 5  # seeks stored at once while a trigger slows each insert
SLOW_INSERT = 1.0  # seconds the trigger sleeps in each
LONG_PLIES = 200000  # each long match's plies: its first load reads as many rows
# The long matches, loaded one after another: a loop that read them stalled once each (0.29 to
# 0.41 s on an idle machine; 100,000 plies took 0.14 to 0.35 s there, too close to STALL), twice
# more than STALLS_ALLOWED.
LONG_IDS = (7, 8, 9, 10)


def owner_of(server: Any) -> str:
    """The server's name in the leases table, from its banner."""
    return str(server.banner.split("shared, as server ")[1].split(",")[0])


class DatabaseThreadTests:
    """Needs PgTestCase: server(), sql(), hold(), release()."""

    server: Callable[..., Any]
    sql: Callable[[str], str]
    hold: Callable[[str], Any]
    release: Callable[[Any], None]
    assertEqual: Callable[..., None]
    assertTrue: Callable[..., None]
    assertLess: Callable[..., None]
    assertLessEqual: Callable[..., None]
    assertGreaterEqual: Callable[..., None]
    fail: Callable[..., None]
    dead_owner: str
    tmp: Any  # PgTestCase's temporary directory
    # The admission tests' measures, not their tests (those run in AdmissionTest).
    bystander = admit.AdmissionTests.bystander
    measure_under_lock = admit.AdmissionTests.measure_under_lock
    assert_fast = admit.AdmissionTests.assert_fast

    def killed_servers_matches(self) -> "tuple[Any, list[int], Any]":
        """A server (the taker) and the clocked matches of another server that was then killed
        (5 minutes a seat: they stay live), with the taker's bystander's connection."""
        victim = self.server(*admit.BUDGETS)
        taker = self.server(*admit.BUDGETS)
        conn = Conn(victim.port, timeout=30)
        mids = [new_match(conn, "hus clock=5+0")[0] for _ in range(VICTIMS)]
        conn.close()
        self.dead_owner = owner_of(victim)
        victim.kill()
        return taker, mids, victim

    def owners(self, mids: "list[int]") -> "list[str]":
        out = self.sql("SELECT owner FROM leases WHERE match_id IN (%s) ORDER BY match_id"
                       % ",".join(map(str, mids)))
        return out.split("\n") if out else []

    def wait_owned_by(self, mids: "list[int]", owner: str, limit: float) -> float:
        t0 = time.monotonic()
        while self.owners(mids) != [owner] * len(mids):
            if time.monotonic() - t0 > limit:
                self.fail("not taken over in %.0f s: %s" % (limit, self.owners(mids)))
            time.sleep(0.05)
        return time.monotonic() - t0

    def test_a_slow_take_over_claim_does_not_stall_the_loop(self) -> None:
        taker, mids, _ = self.killed_servers_matches()
        # Only a claim that changes a lease's owner sleeps: renewals and a server's claims of
        # its own leases do not. Made within the lease, before any take-over.
        self.sql("CREATE FUNCTION slow_take_over() RETURNS trigger LANGUAGE plpgsql AS $$ "
                 "BEGIN PERFORM pg_sleep(%g); RETURN NEW; END $$; CREATE TRIGGER "
                 "slow_take_over BEFORE UPDATE ON leases FOR EACH ROW WHEN (OLD.owner IS "
                 "DISTINCT FROM NEW.owner) EXECUTE FUNCTION slow_take_over()" % SLOW_CLAIM)
        conn = Conn(taker.port, timeout=30)
        mid, tokens = new_match(conn, "hus")
        # The lease (1 s) runs out, then the taker's ticks claim the matches, slowly.
        times = self.bystander(conn, mid, tokens, time.monotonic() + WATCH)
        self.assert_fast("take-over claims slowed %.1f s each" % SLOW_CLAIM, times, [])
        took = self.wait_owned_by(mids, owner_of(taker), 30.0)
        print("# %d matches of a killed server taken over, claims slowed %.1f s each: all "
              "the taker's %.1f s after the bystander's %.0f s" % (VICTIMS, SLOW_CLAIM, took,
                                                                  WATCH))
        conn.close()

    def test_a_match_locked_past_its_lease_is_taken_over_once_the_lock_goes(self) -> None:
        taker, mids, _ = self.killed_servers_matches()
        session = self.hold("SELECT 1 FROM matches WHERE id IN (%s) FOR UPDATE"
                            % ",".join(map(str, mids)))
        held_until = time.monotonic() + admit.HOLD
        conn = Conn(taker.port, timeout=30)
        try:
            mid, tokens = new_match(conn, "hus")
            times = self.bystander(conn, mid, tokens, held_until - 0.2)
            # Past the lease, and still the dead server's: every claim met the lock.
            self.assertEqual(self.owners(mids), [self.dead_owner] * VICTIMS)
        finally:
            time.sleep(max(0.0, held_until - time.monotonic()))
            self.release(session)
        self.assert_fast("rows of a killed server's matches", times, [])
        took = self.wait_owned_by(mids, owner_of(taker), 30.0)
        print("# the locked matches taken over %.2f s after the lock went" % took)
        conn.close()

    def test_account_writes_held_by_a_lock_do_not_stall_the_loop(self) -> None:
        s = self.server(*(admit.BUDGETS + accounts.OPEN_BUDGETS))
        alice = Conn(s.port, timeout=30)
        alice.ok("register alice %s" % accounts.PASSWORD)
        other = Conn(s.port, timeout=30)
        other.ok("login alice %s" % accounts.PASSWORD)
        account = self.sql("SELECT id FROM accounts WHERE name = 'alice'")
        sessions = self.sql("SELECT count(*) FROM sessions WHERE account_id = %s" % account)
        signer = Conn(s.port, timeout=30)
        hammers = [Hammer(lambda: str(alice.ask("logout-all"))),
                   Hammer(lambda: str(signer.ask("login alice %s" % accounts.PASSWORD)))]
        times = self.measure_under_lock(
            s.port, "SELECT 1 FROM accounts WHERE id = %s FOR UPDATE; SELECT 1 FROM sessions "
            "WHERE account_id = %s FOR UPDATE" % (account, account), hammers)
        self.assert_fast("an account's rows", times, hammers)
        # Refused while the rows were held, in words, and nothing changed.
        for h in hammers:
            self.assertEqual(set(h.replies), {"err io"}, h.replies)
        self.assertEqual(self.sql("SELECT count(*) FROM sessions WHERE account_id = %s"
                                  % account), sessions)
        self.assertEqual(alice.ok("whoami").split()[0], "alice")
        # The lock gone, both go through: every session of the account is revoked.
        self.assertTrue(signer.ask("login alice %s" % accounts.PASSWORD).startswith("ok "))
        alice.ok("logout-all")
        self.assertEqual(alice.ask("whoami"), "ok -")
        self.assertEqual(self.sql("SELECT count(*) FROM sessions WHERE account_id = %s"
                                  % account), "0")
        for c in (alice, other, signer):
            c.close()


    def assert_no_stalls(self, what: str, times: "list[float]", seconds: float = HOLD) -> None:
        """A pass's statement held by lock_timeout (250 ms) on the loop stalls it once a
        second, so the bystander, always asking, meets each stall: more than STALLS_ALLOWED
        answers slower than STALL is the loop waiting (a loaded machine may make one or two)."""
        median, slowest = statistics.median(times), max(times)
        stalls = [round(t, 3) for t in times if t > STALL]
        print("# %s held %.1f s: the bystander's %d answers, median %.1f ms, slowest %.0f ms, "
              "%d slower than %.0f ms %s" % (what, seconds, len(times), median * 1000,
                                             slowest * 1000, len(stalls), STALL * 1000, stalls))
        self.assertLess(median, admit.MEDIAN_BOUND)
        self.assertLess(slowest, admit.SLOWEST_BOUND)
        self.assertLessEqual(len(stalls), STALLS_ALLOWED, stalls)

    def reader(self, conn: Any, mid: int, until: float) -> "list[float]":
        """Another client's reads until `until` (status, show and moves of its match), each
        answer's time. Reads only: the passes are skipped while a round is open, so a
        bystander that plays would mostly hide them."""
        times: list[float] = []
        while time.monotonic() < until:
            for line in ("status", "show %d" % mid, "moves %d" % mid):
                t0 = time.monotonic()
                reply = str(conn.ask(line))
                times.append(time.monotonic() - t0)
                self.assertTrue(reply.startswith("ok"), "%r -> %r" % (line, reply))
        return times

    def wait_unloaded(self, conn: Any, since: float, limit: float) -> None:
        while "loaded=0 " not in conn.ok("status") + " ":
            self.assertLess(time.monotonic() - since, limit, "the matches stayed loaded")
            time.sleep(0.05)

    def test_a_correspondence_scan_held_by_a_lock_does_not_stall_the_loop(self) -> None:
        day = 3
        s = self.server(*(admit.BUDGETS + ("--day-seconds", str(day), "--unload-after", "1")))
        player = Conn(s.port, timeout=30)
        overdue, _ = new_match(player, "hus days=1")  # its day runs from the start
        made = time.monotonic()
        # Unloaded before its deadline: only the scan finds it.
        self.wait_unloaded(player, made, day - 0.5)
        player.close()
        # A read of committed rows waits for no row lock: only a table lock (DDL, a VACUUM
        # FULL) or a slow database holds the scan. Every read of `correspondence` waits here.
        session = self.hold("LOCK TABLE correspondence IN ACCESS EXCLUSIVE MODE; "
                            "SELECT txid_current()")
        held_until = time.monotonic() + HOLD
        conn = Conn(s.port, timeout=30)
        try:
            mid, _ = new_match(conn, "hus")
            times = self.reader(conn, mid, held_until - 0.2)
            self.assertLess(made + day, time.monotonic(), "the deadline passed under the lock")
            # Its flag is written with its deadline row: not while the table is held.
            self.assertEqual(self.sql("SELECT flagged IS NULL FROM clocks WHERE match_id = %d"
                                      % overdue), "t")
        finally:
            time.sleep(max(0.0, held_until - time.monotonic()))
            self.release(session)
        self.assert_no_stalls("the correspondence table", times)
        t0 = time.monotonic()
        while self.sql("SELECT flagged FROM clocks WHERE match_id = %d" % overdue) == "":
            self.assertLess(time.monotonic() - t0, 15, "the overdue match was never flagged")
            time.sleep(0.1)
        print("# the overdue match flagged %.2f s after the lock went" % (time.monotonic() - t0))
        conn.close()

    def test_ends_of_unloaded_matches_held_by_a_lock_do_not_stall_the_loop(self) -> None:
        s = self.server(*(admit.BUDGETS + ("--join-timeout", "3", "--unload-after", "1")))
        maker = Conn(s.port, timeout=30)
        waiting = [int(maker.ok("new tab").split()[0]) for _ in range(UNLOADED)]
        # Unloaded before they expire: each is then ended in the database, not by a round.
        self.wait_unloaded(maker, time.monotonic(), 2.5)
        maker.close()
        ids = ",".join(map(str, waiting))
        # SHARE mode lets every read of `aborted` through, and holds every insert.
        session = self.hold("LOCK TABLE aborted IN SHARE MODE; SELECT txid_current()")
        held_until = time.monotonic() + HOLD
        conn = Conn(s.port, timeout=30)
        try:
            mid, _ = new_match(conn, "hus")
            times = self.reader(conn, mid, held_until - 0.2)
            self.assertEqual(self.sql("SELECT count(*) FROM aborted WHERE match_id IN (%s)"
                                      % ids), "0")
        finally:
            time.sleep(max(0.0, held_until - time.monotonic()))
            self.release(session)
        self.assert_no_stalls("the aborted table, %d matches to end" % UNLOADED, times)
        t0 = time.monotonic()
        while self.sql("SELECT count(*) FROM aborted WHERE match_id IN (%s)" % ids) \
                != str(UNLOADED):
            self.assertLess(time.monotonic() - t0, 15, "the expired matches never ended")
            time.sleep(0.1)
        print("# %d expired matches ended %.2f s after the lock went"
              % (UNLOADED, time.monotonic() - t0))
        conn.close()

    def lobby_seeks(self, port: int) -> "list[int]":
        """The ids of the seeks a new connection's `lobby` lists on the server at port."""
        conn = Conn(port, timeout=30)
        words = conn.ok("lobby").split()
        lines = [conn.read() for _ in range(int(words[0]) + int(words[1]))]
        conn.close()
        return sorted(int(line.split()[2]) for line in lines if line.startswith("lobby seek "))

    def wait_lobby_seeks(self, port: int, want: "list[int]") -> None:
        """The server's lobby lists exactly want within 5 s (another server hears a change on
        the lobby's channel)."""
        deadline = time.monotonic() + 5
        while self.lobby_seeks(port) != want and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(self.lobby_seeks(port), want)

    def site_seeks(self) -> "list[int]":
        out = self.sql("SELECT id FROM seeks ORDER BY id")
        return [int(x) for x in out.split("\n")] if out else []

    def test_lobby_writes_held_by_a_lock_do_not_stall_the_loop(self) -> None:
        a = self.server(*admit.BUDGETS)
        b = self.server(*admit.BUDGETS)
        owner = Conn(a.port, timeout=30)
        held = int(owner.ok(SEEK))
        self.wait_lobby_seeks(b.port, [held])

        def seek_and_withdraw() -> str:
            """A seek (stored while the other is held), then everything of the connection
            withdrawn: the held seek is skipped, the new one goes; then the held one named:
            busy. "ok" when all three were answered so, else the reply that was not."""
            made = admit.answer(owner, SEEK)
            if not made.startswith("ok "):
                return made
            withdrawn = admit.answer(owner, "unseek")
            if withdrawn != "ok 1":
                return withdrawn
            named = admit.answer(owner, "unseek %d" % held)
            return "ok" if named.startswith("err busy seek %d is being taken" % held) else named

        hammer = Hammer(seek_and_withdraw)
        conn = Conn(a.port, timeout=30)
        mid, _ = new_match(conn, "hus")
        # As a server frozen in the middle of taking the seek holds its row. Let go by a timer,
        # not by this thread: a loop that waits for the row answers nobody until then.
        session = self.hold("SELECT 1 FROM seeks WHERE id = %d FOR UPDATE" % held)
        held_until = time.monotonic() + HOLD
        releaser = threading.Timer(HOLD, lambda: self.release(session))
        releaser.start()
        try:
            hammer.start()
            times = self.reader(conn, mid, held_until - 0.2)
            answered_while_held = hammer.first.is_set() and time.monotonic() < held_until
        finally:
            hammer.stopping.set()
            hammer.join(30)
            releaser.join(30)
        self.assertEqual(session.returncode, 0)
        self.assert_no_stalls("a seek's row", times)
        self.assertTrue(answered_while_held, "the seeking client was not answered while held")
        self.assertEqual(hammer.error, [])
        self.assertEqual(list(hammer.replies), ["ok"], (hammer.replies, hammer.last))
        print("# the seeking client's rounds (seek, unseek, unseek of the held one) under the "
              "lock: %d" % hammer.replies["ok"])
        # Nothing lost or doubled: the held seek alone, on the site and on both servers.
        self.assertEqual(self.site_seeks(), [held])
        self.wait_lobby_seeks(a.port, [held])
        self.wait_lobby_seeks(b.port, [held])
        # The lock gone, it is withdrawn, everywhere.
        self.assertEqual(admit.answer(owner, "unseek %d" % held), "ok 1")
        self.assertEqual(self.site_seeks(), [])
        self.wait_lobby_seeks(a.port, [])
        self.wait_lobby_seeks(b.port, [])
        owner.close()
        conn.close()

    def test_lobby_writes_with_the_seeks_table_locked_are_refused_busy(self) -> None:
        a = self.server(*admit.BUDGETS)
        b = self.server(*admit.BUDGETS)
        owner = Conn(a.port, timeout=30)

        def seek_and_withdraw() -> str:
            made = admit.answer(owner, SEEK)
            if not made.startswith("ok "):
                return made
            withdrawn = admit.answer(owner, "unseek")
            return "ok" if withdrawn == "ok 1" else withdrawn

        hammer = Hammer(seek_and_withdraw)
        conn = Conn(a.port, timeout=30)
        mid, _ = new_match(conn, "hus")
        # As a migration (or an operator) holds the whole table: every write meets the lock.
        session = self.hold("LOCK TABLE seeks IN ACCESS EXCLUSIVE MODE; SELECT txid_current()")
        held_until = time.monotonic() + HOLD
        releaser = threading.Timer(HOLD, lambda: self.release(session))
        releaser.start()
        try:
            hammer.start()
            times = self.reader(conn, mid, held_until - 0.2)
            replies_while_held = dict(hammer.replies)
        finally:
            hammer.stopping.set()
            hammer.join(30)
            releaser.join(30)
        self.assertEqual(session.returncode, 0)
        self.assert_no_stalls("the seeks table", times)
        self.assertEqual(hammer.error, [])
        # Refused in words after lock_timeout, each; never stored behind the client's back.
        self.assertEqual(list(replies_while_held), ["err busy"], replies_while_held)
        self.assertTrue(hammer.last.startswith("err busy the site's seeks are locked by another "
                                               "session; nothing changed: try again")
                        or hammer.last == "ok", hammer.last)
        print("# seeks refused `err busy` under the table lock: %d" % replies_while_held["err busy"])
        self.assertEqual(self.site_seeks(), [])
        self.wait_lobby_seeks(a.port, [])
        self.wait_lobby_seeks(b.port, [])
        # The lock gone, a seek is stored and seen on both servers.
        made = int(owner.ok(SEEK))
        self.assertEqual(self.site_seeks(), [made])
        self.wait_lobby_seeks(a.port, [made])
        self.wait_lobby_seeks(b.port, [made])
        owner.close()
        conn.close()

    def db_thread_metrics(self, port: int) -> "tuple[float, float]":
        """The database threads' (queued jobs, busy threads) as /metrics says them; the first
        page is published a second after the start, so it is waited for."""
        deadline = time.monotonic() + 5
        while True:
            with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port) as r:
                text = r.read().decode()
            values = {}
            for line in text.splitlines():
                if line.startswith(("tg_server_db_queued_jobs ", "tg_server_db_busy_threads ")):
                    values[line.split()[0]] = float(line.split()[1])
            if len(values) == 2 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertEqual(len(values), 2, text)
        return values["tg_server_db_queued_jobs"], values["tg_server_db_busy_threads"]

    def metrics_port(self, port_file: str) -> int:
        deadline = time.monotonic() + 10
        while True:
            if os.path.exists(port_file):
                with open(port_file) as f:
                    text = f.read().strip()
                if text:
                    return int(text)
            self.assertLess(time.monotonic(), deadline, "no metrics port written")
            time.sleep(0.05)

    def wait_db_threads_idle(self, port: int) -> None:
        """/metrics says no job queued or running within 5 s (an idle server's passes take
        milliseconds, and the page is made before they are handed over)."""
        deadline = time.monotonic() + 5
        while self.db_thread_metrics(port) != (0.0, 0.0):
            self.assertLess(time.monotonic(), deadline, "the database threads stayed busy")
            time.sleep(0.1)

    def test_metrics_show_the_database_threads(self) -> None:
        port_file = os.path.join(self.tmp.name, "metrics-port")
        s = self.server(*(admit.BUDGETS + ("--metrics-port", "0", "--metrics-port-file",
                                           port_file)))
        port = self.metrics_port(port_file)
        self.wait_db_threads_idle(port)
        self.sql("CREATE FUNCTION slow_seek() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                 "PERFORM pg_sleep(%g); RETURN NEW; END $$; CREATE TRIGGER slow_seek BEFORE "
                 "INSERT ON seeks FOR EACH ROW EXECUTE FUNCTION slow_seek()" % SLOW_INSERT)
        seekers = [Conn(s.port, timeout=30) for _ in range(SLOW_SEEKS)]
        replies: list[str] = []
        started = time.monotonic()

        def seek(conn: Any) -> None:
            replies.append(str(conn.ask(SEEK)))

        threads = [threading.Thread(target=seek, args=(c,)) for c in seekers]
        for t in threads:
            t.start()
        seen: "list[tuple[float, float]]" = []
        while any(t.is_alive() for t in threads):
            seen.append(self.db_thread_metrics(port))
            time.sleep(0.1)
        for t in threads:
            t.join()
        took = time.monotonic() - started
        self.assertEqual(len(replies), SLOW_SEEKS)
        self.assertTrue(all(r.startswith("ok ") for r in replies), replies)
        # Two threads, each insert slowed: the rest waited in the queue, and it showed.
        self.assertGreaterEqual(took, SLOW_INSERT * ((SLOW_SEEKS + 1) // 2) - 0.1)
        self.assertEqual(max(busy for _, busy in seen), 2.0, seen)
        self.assertGreaterEqual(max(queued for queued, _ in seen), 1.0, seen)
        self.wait_db_threads_idle(port)
        print("# %d slowed seeks stored in %.1f s; /metrics showed (queued, busy) %s"
              % (SLOW_SEEKS, took, sorted(set(seen))))
        self.assertEqual(len(self.site_seeks()), SLOW_SEEKS)
        for c in seekers:
            c.close()

    def store_long_matches(self) -> None:
        """LONG_IDS, each a Halusa match of LONG_PLIES plies (quiet=0: it never ends), migrated
        into the database before any server starts, so that none is loaded."""
        long: Any = sibling.load("tg_server_pg_loop_long", "test-tg-server-long.py")
        long.SERVER = self.server_binary()
        tg = long.library()
        if tg is None:
            self.skipTest("no uninstrumented library beside the server for the Python package")
        spec = "halusa:quiet=0"
        moves, names = long.cycling_game(tg, spec, LONG_PLIES)
        logs = os.path.join(self.tmp.name, "logs")
        os.mkdir(logs)
        for mid in LONG_IDS:
            with open(os.path.join(logs, "match-%d.log" % mid), "w") as f:
                f.write("tg-match 1 %s\n" % spec)
                f.writelines("m %d %s\n" % (m, n) for m, n in zip(moves, names))
        run = self.migrate_logs(logs)
        self.assertEqual(run.returncode, 0, run.stderr)

    def kept_throws_scans(self) -> int:
        """Scans of kept_throws so far: one for each read of a match's rows (its one statement
        reads every table of the match), and nothing else here reads that table (a round writes
        it only after an accepted undo)."""
        return int(self.sql("SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0) FROM "
                            "pg_stat_user_tables WHERE relname = 'kept_throws'"))

    def test_a_long_matchs_first_load_does_not_stall_the_loop(self) -> None:
        self.store_long_matches()
        s = self.server(*admit.BUDGETS)
        conn = Conn(s.port, timeout=30)
        mid, tokens = new_match(conn, "hus")
        scans_before = self.kept_throws_scans()
        replies: "list[tuple[int, str, str]]" = []
        took: "list[float]" = []

        def load_each() -> None:
            """Two clients ask for each long match at once: the second command waits for the
            first one's read and replay, and both are told the whole match."""
            for long_id in LONG_IDS:
                first, second = Conn(s.port, timeout=60), Conn(s.port, timeout=60)
                t0 = time.monotonic()
                first.send("show %d" % long_id)
                second.send("show %d" % long_id)
                replies.append((long_id, str(first.read()), str(second.read())))
                took.append(time.monotonic() - t0)
                first.close()
                second.close()

        loader = threading.Thread(target=load_each)
        started = time.monotonic()
        loader.start()
        times: list[float] = []
        try:
            while loader.is_alive():
                times += self.bystander(conn, mid, tokens, time.monotonic() + 0.5)
        finally:
            loader.join()
        self.assertEqual([r[0] for r in replies], list(LONG_IDS))
        for long_id, first, second in replies:
            self.assertTrue(first.startswith("ok ply=%d " % LONG_PLIES), (long_id, first))
            self.assertEqual(first, second, long_id)
        print("# %d matches of %d plies loaded (each asked twice at once) in %s s"
              % (len(LONG_IDS), LONG_PLIES, ", ".join("%.2f" % t for t in took)))
        self.assert_no_stalls("first loads of long matches", times, time.monotonic() - started)
        conn.close()
        # One read a match, not one a command: the statistics come within a second or so of
        # each database thread going idle, and none comes after.
        deadline = time.monotonic() + 15
        while self.kept_throws_scans() < scans_before + len(LONG_IDS):
            self.assertLess(time.monotonic(), deadline, "the reads were never counted")
            time.sleep(0.2)
        time.sleep(2)
        self.assertEqual(self.kept_throws_scans() - scans_before, len(LONG_IDS))

    def test_a_load_held_by_a_locked_table_does_not_stall_the_loop(self) -> None:
        s = self.server(*(admit.BUDGETS + ("--unload-after", "1")))
        maker = Conn(s.port, timeout=30)
        stored, _ = new_match(maker, "hus")
        self.assertTrue(maker.ok("show %d" % stored).startswith("ply="))
        self.wait_unloaded(maker, time.monotonic(), 10)
        maker.close()
        # Only a load reads kept_throws (a round writes it after an accepted undo): a table
        # lock there holds the load's read, up to lock_timeout, and nothing else.
        session = self.hold("LOCK TABLE kept_throws IN ACCESS EXCLUSIVE MODE; "
                            "SELECT txid_current()")
        held_until = time.monotonic() + HOLD
        conn, asker = Conn(s.port, timeout=30), Conn(s.port, timeout=30)
        answers: list[str] = []

        def ask_for_the_stored_match() -> None:
            while time.monotonic() < held_until - 0.5:
                answers.append(str(asker.ask("show %d" % stored)))

        loads = threading.Thread(target=ask_for_the_stored_match)
        try:
            mid, _ = new_match(conn, "hus")
            loads.start()
            times = self.reader(conn, mid, held_until - 0.2)
        finally:
            loads.join()
            time.sleep(max(0.0, held_until - time.monotonic()))
            self.release(session)
        self.assert_no_stalls("kept_throws (a load's read)", times)
        print("# the load asked %d times under the lock: %s" % (len(answers), sorted(set(
            a.split(" (")[0] for a in answers))))
        self.assertGreaterEqual(len(answers), 3, answers)
        self.assertTrue(all(a.startswith("err io the match could not be read (")
                            and a.endswith("; try again") for a in answers), answers)
        self.assertTrue(asker.ok("show %d" % stored).startswith("ply="))
        conn.close()
        asker.close()

    def test_a_load_whose_client_left_or_whose_server_stops_during_its_read(self) -> None:
        s = self.server(*(admit.BUDGETS + ("--unload-after", "1")))
        maker = Conn(s.port, timeout=30)
        stored, _ = new_match(maker, "hus")
        self.wait_unloaded(maker, time.monotonic(), 10)
        session = self.hold("LOCK TABLE kept_throws IN ACCESS EXCLUSIVE MODE; "
                            "SELECT txid_current()")
        try:
            # Its read waits for the lock on a database thread while the client goes away.
            quitter = Conn(s.port, timeout=30)
            quitter.send("show %d" % stored)
            quitter.close()
            self.assertIn("loaded=0", maker.ok("status").split())
            # Another read waits for the lock as the server is told to stop.
            waiter = Conn(s.port, timeout=30)
            waiter.send("show %d" % stored)
            time.sleep(0.05)
            t0 = time.monotonic()
            s.stop()  # exit status 0, or it raises
            took = time.monotonic() - t0
            waiter.close()
        finally:
            self.release(session)
        print("# stopped in %.2f s with a load's read waiting for a lock" % took)
        self.assertLess(took, 5.0)
        maker.close()
        again = self.server(*admit.BUDGETS)
        conn = Conn(again.port, timeout=30)
        self.assertTrue(conn.ok("show %d" % stored).startswith("ply="))
        conn.close()

    def test_a_load_with_no_room_is_refused_and_a_missing_one_not_found(self) -> None:
        s = self.server(*(admit.BUDGETS + ("--unload-after", "1", "--max-loaded", "2")))
        conn = Conn(s.port, timeout=30)
        stored, _ = new_match(conn, "hus")
        self.wait_unloaded(conn, time.monotonic(), 10)
        # Two clocked matches fill --max-loaded and cannot be unloaded while their clocks may
        # run: the load is refused before its read, and once one has ended it goes through.
        pinned = [new_match(conn, "hus clock=5+0") for _ in range(2)]
        self.assertTrue(conn.ask("show %d" % stored).startswith(
            "err overloaded every loaded match is in use; try again"))
        self.assertEqual(conn.ok("resign %d %s" % (pinned[0][0], pinned[0][1][0])), "")
        time.sleep(1.2)  # an ended match is let go by the pinned matches' sweep, once a second
        self.assertTrue(conn.ok("show %d" % stored).startswith("ply="))
        # An id never stored, asked twice at once: one read, both told.
        other = Conn(s.port, timeout=30)
        conn.send("show 999")
        other.send("show 999")
        for c in (conn, other):
            self.assertEqual(c.read(), "err no-such-match no match has that id")
        conn.close()
        other.close()
