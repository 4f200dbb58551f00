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
  about a tenth of a second and more); once the lock goes, both work.
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

