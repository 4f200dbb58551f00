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
- the correspondence scan with the database made slow at it (a read of committed rows waits
  for no row lock, so a restrictive row-level policy on `correspondence` sleeps 2 s in every
  read that meets a passed deadline): the bystander is answered in milliseconds, and once the
  policy goes the overdue match is flagged; the loop that scanned itself froze 2 s a second;
- the end of expired matches that are not loaded, with `aborted` held in SHARE mode by a
  `psql` session for 3 s (an end's insert waits lock_timeout, 250 ms, for it): the bystander
  is answered in milliseconds, and once the lock goes every one of them ends; the loop that
  ended them itself froze 250 ms a match, 2 s a pass.
"""
from __future__ import annotations

import time
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
SLOW_SCAN = 2.0  # seconds the row-level policy sleeps in each read of a passed deadline
UNLOADED = 8  # expired matches not loaded, each end meeting the held lock


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
    fail: Callable[..., None]
    dead_owner: str
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


    def test_a_slow_correspondence_scan_does_not_stall_the_loop(self) -> None:
        day = 3
        s = self.server(*(admit.BUDGETS + ("--day-seconds", str(day), "--unload-after", "1")))
        player = Conn(s.port, timeout=30)
        overdue, _ = new_match(player, "hus days=1")  # its day runs from the start
        player.close()
        deadline = time.monotonic() + day
        # Every read of a row whose deadline passed sleeps, once a statement: the scan's.
        self.sql("ALTER TABLE correspondence ENABLE ROW LEVEL SECURITY; ALTER TABLE "
                 "correspondence FORCE ROW LEVEL SECURITY; CREATE POLICY everyone ON "
                 "correspondence USING (true) WITH CHECK (true); CREATE POLICY slow ON "
                 "correspondence AS RESTRICTIVE FOR SELECT USING ((SELECT true FROM "
                 "pg_sleep(%g)))" % SLOW_SCAN)
        conn = Conn(s.port, timeout=30)
        mid, tokens = new_match(conn, "hus")
        try:
            times = self.bystander(conn, mid, tokens, deadline + 3.0)
        finally:
            self.sql("DROP POLICY slow ON correspondence")
        self.assert_fast("a correspondence scan slowed %.0f s" % SLOW_SCAN, times, [])
        t0 = time.monotonic()
        while self.sql("SELECT flagged FROM clocks WHERE match_id = %d" % overdue) == "":
            self.assertLess(time.monotonic() - t0, 15, "the overdue match was never flagged")
            time.sleep(0.1)
        print("# the overdue match flagged %.2f s after the scan was fast again"
              % (time.monotonic() - t0))
        conn.close()

    def test_ends_of_unloaded_matches_held_by_a_lock_do_not_stall_the_loop(self) -> None:
        s = self.server(*(admit.BUDGETS + ("--join-timeout", "3", "--unload-after", "1")))
        maker = Conn(s.port, timeout=30)
        waiting = [int(maker.ok("new tab").split()[0]) for _ in range(UNLOADED)]
        made = time.monotonic()
        # Unloaded before they expire: each is then ended in the database, not by a round.
        while "loaded=0 " not in maker.ok("status") + " ":
            self.assertLess(time.monotonic() - made, 2.5, "the matches stayed loaded")
            time.sleep(0.05)
        maker.close()
        ids = ",".join(map(str, waiting))
        # SHARE mode lets every read of `aborted` through, and holds every insert.
        session = self.hold("LOCK TABLE aborted IN SHARE MODE; SELECT txid_current()")
        held_until = time.monotonic() + admit.HOLD + 1.0
        conn = Conn(s.port, timeout=30)
        try:
            mid, tokens = new_match(conn, "hus")
            times = self.bystander(conn, mid, tokens, held_until - 0.2)
            self.assertEqual(self.sql("SELECT count(*) FROM aborted WHERE match_id IN (%s)"
                                      % ids), "0")
        finally:
            time.sleep(max(0.0, held_until - time.monotonic()))
            self.release(session)
        self.assert_fast("the ends of %d unloaded matches" % UNLOADED, times, [])
        t0 = time.monotonic()
        while self.sql("SELECT count(*) FROM aborted WHERE match_id IN (%s)" % ids) \
                != str(UNLOADED):
            self.assertLess(time.monotonic() - t0, 15, "the expired matches never ended")
            time.sleep(0.1)
        print("# %d expired matches ended %.2f s after the lock went"
              % (UNLOADED, time.monotonic() - t0))
        conn.close()
