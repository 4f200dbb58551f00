#!/usr/bin/env python3
"""Correspondence games (issue 42 item 6) on the line protocol, on SQLite; run by
test-tg-server.py in the same run, and on PostgreSQL by test-tg-server-pg.py
(CorrespondenceTests mixed into its cases, with two servers racing for one flag there):

- `days=N` (1, 2, 3, 5, 7, 14) is taken by `new`, `seek` and `challenge` in place of
  `clock=M+S`; anything else is refused with a clear error and changes nothing;
- each decision gives the seat then to move its whole allowance again;
- the deadline is stored: a match nobody has loaded is flagged by the once-a-second scan of
  the stored deadlines (`result=W by=time`), rated once in the `correspondence` category;
- a restart keeps the deadline (the time before it is not given back, unlike a clock's);
- a rematch is a correspondence match with the same days;
- `--abandon-after` does not abort a correspondence match before its deadline;
- `player-page` (GET /players/NAME.json) lists the player's running correspondence matches,
  each with `your_turn` and its deadline, and no longer once one has ended;
- an old database (schema 5) is brought to 6 in place.

`--day-seconds` (documented as for tests) makes a day a few seconds.
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
import unittest
from typing import Any

import sibling
from store_tests import SqliteStore, StoreTests

SERVER: "str | None" = None  # set by test-tg-server.py

base: Any = sibling.load("tg_server_corr_base", "test-tg-server.py")
accounts: Any = sibling.load("tg_server_corr_accounts", "test-tg-server-accounts.py")
lobby: Any = sibling.load("tg_server_corr_lobby", "test-tg-server-lobby.py")
Conn = base.Conn
PASSWORD = accounts.PASSWORD
OPEN_BUDGETS = accounts.OPEN_BUDGETS
BAD_DAYS = ("days=4", "days=0", "days=15", "days=30", "days=1.5", "days=", "days=-1",
            "days=1x", "days=01", "days=+2", "days=99999999999999999999")


class CorrespondenceTests(StoreTests):
    """The correspondence tests, for any store."""

    # The lobby's helpers, without its tests.
    feed_line = lobby.LobbyTests.feed_line
    matched = lobby.LobbyTests.matched
    ratings = lobby.LobbyTests.ratings
    account_id = lobby.LobbyTests.account_id
    assertRatings = lobby.LobbyTests.assertRatings

    def open_server(self, *extra: str) -> Any:
        return self.start(*(OPEN_BUDGETS + extra))

    def signed_in(self, port: int, name: str) -> Any:
        c = Conn(port)
        c.ok("register %s %s" % (name, PASSWORD))
        return c

    def clock_of(self, conn: Any, mid: int) -> "tuple[dict[str, str], list[int]]":
        info = base.show(conn, mid)
        return info, [int(v) for v in info["clock"].split(",")]

    def play_first(self, conn: Any, mid: int, tokens: "dict[int, str]") -> int:
        """The seat to move plays its first legal move; that seat."""
        info = base.show(conn, mid)
        seat = int(info["turn"])
        moves = conn.ok("moves %d" % mid).split()
        conn.ok("play %d %s %s %s" % (mid, info["ply"], moves[0], tokens[seat]))
        return seat

    def wait_flagged(self, mid: int, limit: float) -> str:
        """The flagged seat, read from the database only (nothing asks the server to load the
        match), once its flag has fallen; fails after limit seconds."""
        deadline = time.monotonic() + limit
        while True:
            rows = self.rows("SELECT flagged FROM clocks WHERE match_id = %d" % mid)
            if rows and rows[0][0] != "":
                return rows[0][0]
            self.assertLess(time.monotonic(), deadline, "match %d was never flagged" % mid)
            time.sleep(0.1)

    def test_days_per_move_are_taken_and_bad_values_refused(self) -> None:
        s = self.open_server()
        c = Conn(s.port)
        alice, bob = self.signed_in(s.port, "alice"), self.signed_in(s.port, "bob")
        watcher = Conn(s.port)
        self.assertEqual(watcher.ask("lobby"), "ok 0 0")
        for bad in BAD_DAYS:
            self.assertReply(c.ask("new hus %s" % bad), "err bad-option ", bad)
            self.assertIn("days=N", c.ask("new hus %s" % bad))
            self.assertReply(alice.ask("seek hus %s rated" % bad), "err bad-option ", bad)
            self.assertReply(alice.ask("challenge bob hus %s casual" % bad), "err bad-option ",
                             bad)
        self.assertReply(c.ask("new hus days=3 clock=5+0"), "err bad-option ")
        self.assertReply(c.ask("new hus days=3 days=3"), "err bad-option ")
        # Nothing changed: no match, no seek.
        self.assertEqual(self.rows("SELECT count(*) FROM matches"), [("0",)])
        self.assertEqual(Conn(s.port).ask("lobby"), "ok 0 0")
        # Each allowed value: a match whose seats each have that many days, stored.
        for days in (1, 2, 3, 5, 7, 14):
            mid, _ = base.new_match(c, "hus days=%d" % days)
            _, clock = self.clock_of(c, mid)
            # The seat to move's day runs from the join.
            self.assertEqual(max(clock), days * 86400000)
            self.assertGreater(min(clock), days * 86400000 - 5000)
            self.assertEqual(self.rows("SELECT days FROM correspondence WHERE match_id = %d"
                                       % mid), [(str(days),)])
        # No deadline runs while the second seat is not taken: the join timeout decides then.
        waiting = int(c.ok("new hus days=1").split()[0])
        self.assertEqual(self.rows("SELECT count(*) FROM correspondence WHERE match_id = %d AND "
                                   "deadline IS NULL" % waiting), [("1",)])
        # In the lobby: the seek line says days and the category.
        seek_id = alice.ok("seek hus days=2 rated")
        words = watcher.read().split()
        self.assertEqual(words[:3], ["lobby", "seek", seek_id])
        self.assertEqual(words[6:9], ["days=2", "correspondence", "rated"])
        challenge = alice.ok("challenge bob hus days=14 casual")
        self.assertEqual(bob.read().split()[6:8], ["days=14", "correspondence"])
        mid, _ = self.matched(alice, bob, challenge)
        self.assertEqual(self.rows("SELECT days FROM correspondence WHERE match_id = %d" % mid),
                         [("14",)])

    def test_an_unloaded_match_is_flagged_by_the_scan_and_rated_once(self) -> None:
        day = 5
        s = self.open_server("--day-seconds", str(day), "--unload-after", "1")
        alice, bob = self.signed_in(s.port, "alice"), self.signed_in(s.port, "bob")
        mid, tokens = self.matched(alice, bob, alice.ok("seek hus days=1 rated"))
        self.assertEqual(self.rows("SELECT game, category FROM rated_matches WHERE match_id = %d"
                                   % mid), [("hus", "correspondence")])
        time.sleep(1.5)
        mover = self.play_first(alice, mid, tokens)
        moved = time.monotonic()
        # The move gave the other seat its whole day again.
        _, clock = self.clock_of(alice, mid)
        self.assertGreater(clock[1 - mover], day * 1000 - 700)
        self.assertEqual(clock[mover], day * 1000)
        for c in (alice, bob):
            c.close()
        # Unloaded well before its deadline: a correspondence match is not pinned.
        probe = Conn(s.port)
        while "loaded=0 " not in probe.ok("status") + " ":
            self.assertLess(time.monotonic() - moved, day - 1.5, "the match stayed loaded")
            time.sleep(0.1)
        self.assertEqual(self.rows("SELECT count(*) FROM clocks WHERE match_id = %d AND "
                                   "flagged IS NULL" % mid), [("1",)])
        flagged = self.wait_flagged(mid, day + 10)
        self.assertGreaterEqual(time.monotonic() - moved, day - 0.5)
        self.assertEqual(int(flagged), 1 - mover)
        info = base.show(probe, mid)
        self.assertEqual((info["result"], info["by"]), (str(mover), "time"))
        self.assertReply(probe.ask("play %d %s a1 %s" % (mid, info["ply"], tokens[1 - mover])),
                         "err ")
        # Rated once, in the correspondence category, with a point of history each.
        winner_account = [int(a) for seat, a in self.rows(
            "SELECT seat, account_id FROM seat_accounts WHERE match_id = %d" % mid)
            if int(seat) == mover][0]
        winner = "alice" if winner_account == self.account_id("alice") else "bob"
        loser = "bob" if winner == "alice" else "alice"
        self.assertRatings(winner, "hus/correspondence",
                                       lobby.glicko2(1500, 350, 0.06, [(1500, 350, 1.0)]), 1)
        self.assertRatings(loser, "hus/correspondence",
                                       lobby.glicko2(1500, 350, 0.06, [(1500, 350, 0.0)]), 1)
        self.assertEqual(self.rows("SELECT count(*) FROM rating_history WHERE match_id = %d"
                                   % mid), [("2",)])

    def test_a_restart_keeps_the_deadline_and_abandon_after_waits_for_it(self) -> None:
        day = 8
        args = ("--day-seconds", str(day), "--abandon-after", "1")
        s = self.open_server(*args)
        c = Conn(s.port)
        mid, token_list = base.new_match(c, "hus days=1")
        tokens = dict(enumerate(token_list))
        mover = self.play_first(c, mid, tokens)
        moved = time.monotonic()
        # --abandon-after (1 s here) aborts a match without a clock; not this one.
        time.sleep(2.5)
        self.assertEqual(base.show(c, mid)["result"], "running")
        self.assertEqual(self.rows("SELECT count(*) FROM aborted"), [("0",)])
        c.close()
        s = self.open_server(*args)
        c = Conn(s.port)
        info, clock = self.clock_of(c, mid)
        spent = time.monotonic() - moved
        # The time before the restart is not given back: the deadline is the stored one.
        self.assertEqual(info["result"], "running")
        self.assertLessEqual(clock[1 - mover], (day - spent) * 1000 + 500)
        self.assertGreater(clock[1 - mover], 0)
        c.close()
        flagged = self.wait_flagged(mid, day + 10)
        self.assertEqual(int(flagged), 1 - mover)
        self.assertGreaterEqual(time.monotonic() - moved, day - 0.5)
        self.assertLess(time.monotonic() - moved, day + 4)
        info = base.show(Conn(s.port), mid)
        self.assertEqual((info["result"], info["by"]), (str(mover), "time"))
        self.assertEqual(self.rows("SELECT count(*) FROM aborted"), [("0",)])


    def test_the_player_page_lists_running_matches_and_whose_turn(self) -> None:
        s = self.open_server()
        alice, bob = self.signed_in(s.port, "alice"), self.signed_in(s.port, "bob")
        mid, tokens = self.matched(alice, bob, alice.ok("seek hus days=3 casual"))
        clocked, clocked_tokens = self.matched(alice, bob, alice.ok("seek hus clock=5+0 casual"))
        del clocked_tokens
        alice_seat = [int(seat) for seat, a in self.rows(
            "SELECT seat, account_id FROM seat_accounts WHERE match_id = %d" % mid)
            if int(a) == self.account_id("alice")][0]

        def listed(name: str) -> "list[dict[str, Any]]":
            reply = Conn(s.port).ok("player-page %s" % name)
            return list(json.loads(reply)["correspondence"])

        def check(turn: int) -> None:
            before_ms = time.time() * 1000
            for name, seat in (("alice", alice_seat), ("bob", 1 - alice_seat)):
                entries = listed(name)
                self.assertEqual([e["match"] for e in entries], [mid], name)  # not the clocked one
                e = entries[0]
                self.assertEqual((e["seat"], e["days"], e["your_turn"]), (seat, 3, seat == turn))
                self.assertEqual(e["opponent"], "bob" if name == "alice" else "alice")
                self.assertEqual(e["spec"].split(":")[0], "hus")
                # The deadline: three days from the last change, in Unix milliseconds.
                self.assertLess(abs(e["deadline"] - (before_ms + 3 * 86400000)), 60000)

        turn = int(base.show(alice, mid)["turn"])
        check(turn)
        self.play_first(alice, mid, tokens)
        check(1 - turn)
        self.assertNotIn(clocked, [e["match"] for e in listed("alice")])
        alice.ok("resign %d %s" % (mid, tokens[alice_seat]))
        # Over: no deadline left in the scan's range.
        self.assertEqual(self.rows("SELECT count(*) FROM correspondence WHERE match_id = %d AND "
                                   "deadline IS NULL" % mid), [("1",)])
        self.assertEqual(listed("alice"), [])
        self.assertEqual(listed("bob"), [])


    def test_a_rematch_keeps_the_days_per_move(self) -> None:
        s = self.open_server()
        c = Conn(s.port)
        mid, token_list = base.new_match(c, "hus days=2")
        c.ok("resign %d %s" % (mid, token_list[0]))
        new = int(c.ok("rematch %d %s" % (mid, token_list[0])).split()[0])
        self.assertEqual(self.rows("SELECT days FROM correspondence WHERE match_id = %d" % new),
                         [("2",)])
        self.assertEqual(self.clock_of(c, new)[1], [2 * 86400000] * 2)
        self.assertIn(" days=2", c.ok("watch %d" % new))


class CorrespondenceTest(SqliteStore, CorrespondenceTests, unittest.TestCase):
    """The tests on SQLite."""

    tmp_prefix = "tg-server-corr-"

    def setUp(self) -> None:
        base.SERVER = SERVER
        super().setUp()

    def new_server(self, *extra: str) -> Any:
        return base.Server(self.db, *extra)

    def test_schema_5_is_brought_to_6_in_place(self) -> None:
        s = self.open_server()
        c = Conn(s.port)
        mid, _ = base.new_match(c, "hus clock=5+0")
        c.close()
        s.stop()
        with sqlite3.connect(self.db) as db:  # as a server of schema 5 left it
            db.execute("DROP TABLE correspondence")
            db.execute("UPDATE meta SET value = '5' WHERE key = 'schema'")
        s = self.open_server("--day-seconds", "2")
        self.assertEqual(self.rows("SELECT value FROM meta WHERE key = 'schema'"), [("8",)])
        c = Conn(s.port)
        self.assertEqual(base.show(c, mid)["clock"], "300000,300000")
        corr, _ = base.new_match(c, "hus days=1")
        self.assertEqual(self.rows("SELECT match_id, days FROM correspondence"),
                         [(str(corr), "1")])


if __name__ == "__main__":
    import sys
    SERVER = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
