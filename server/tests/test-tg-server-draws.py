#!/usr/bin/env python3
"""Draw offers (issue 42 item 5) on the line protocol, on SQLite; run by test-tg-server.py in
the same run, and on PostgreSQL by test-tg-server-pg.py (DrawTests mixed into its cases, with a
test across two servers there):

- `offer-draw` is pushed to the watchers (`event ID draw-offered S`) and shown by `show`; the
  other seat declines (`draw-declined`) or accepts it: the match ends `result draw
  by=agreement`, stored as a result row with no winner, its record saying so
  (`ServerResult "1/2-1/2"`, `ServerEnd "agreement"`), after a restart too;
- an offer stands through its own seat's moves and lapses with the other seat's next decision
  or an accepted undo (`draw-lapsed S`); the seat that offered may withdraw it;
- one offer per seat until the other seat has moved again (`err draw-too-soon`);
- a rated match drawn by agreement moves both ratings once, by Glicko-2 with a score of 1/2;
- the offer is stored: an open offer survives a SIGKILL and a restart (still open, accepted
  after it: a draw by agreement), and so does a seat's spent offer (`err draw-too-soon` until
  the other seat has moved, also across a second restart); a declined offer is not back
  after one; a schema-6 database is brought to the current schema in place (SQLite);
- hostile input: an offer in a finished match or before the join, an answer with no offer, a
  seat accepting its own offer, a watcher without a token or with a wrong one, bad ids and
  plies: each a clear error, and nothing changes.
"""
from __future__ import annotations

import os
import sqlite3
import unittest
from typing import Any

import sibling
from store_tests import SqliteStore, StoreTests

SERVER: "str | None" = None  # set by test-tg-server.py

base: Any = sibling.load("tg_server_draws_base", "test-tg-server.py")
lobby: Any = sibling.load("tg_server_draws_lobby", "test-tg-server-lobby.py")
Conn = base.Conn


def next_event(watcher: Any, mid: int) -> str:
    """The watcher's next event of match mid but its clocks, without "event ID "."""
    while True:
        line = str(watcher.read())
        prefix = "event %d " % mid
        if not line.startswith(prefix):
            raise AssertionError("%r is not an event of match %d" % (line, mid))
        if not line.startswith(prefix + "clock "):
            return line[len(prefix):]


class DrawTests(StoreTests):
    """The draw offers' tests, for any store."""

    # The lobby's helpers: two accounts, a seek taken, ratings read.
    signed_in = lobby.LobbyTests.signed_in
    matched = lobby.LobbyTests.matched
    feed_line = lobby.LobbyTests.feed_line
    ratings = lobby.LobbyTests.ratings
    account_id = lobby.LobbyTests.account_id
    assertRatings = lobby.LobbyTests.assertRatings

    def watching(self, port: int, mid: int) -> Any:
        w = Conn(port)
        self.assertTrue(w.ask("watch %d" % mid).startswith("ok watching"))
        return w

    def match_rows(self, mid: int) -> "list[tuple[str, ...]]":
        return self.rows("SELECT winner, reason, ply FROM results WHERE match_id = %d" % mid)

    def move(self, c: Any, m: Any, watcher: Any) -> None:
        """The seat to move plays its first legal move; the watcher sees it."""
        ply, turn, _ = m.state(c)
        first = c.ok("moves %d" % m.id).split()[0]
        c.ok("play %d %d %s %s" % (m.id, ply, first, m.tokens[int(turn)]))
        self.assertTrue(next_event(watcher, m.id).startswith("moves %d " % ply))

    def test_offer_decline_again_after_a_move_and_accept(self) -> None:
        s = self.start()
        c = Conn(s.port)
        m = base.Match(c, "halusa")
        w = self.watching(s.port, m.id)
        ply, turn, _ = m.state(c)
        a, b = int(turn), 1 - int(turn)  # a is to move
        ta, tb = m.tokens[a], m.tokens[b]
        self.assertEqual(c.ask("offer-draw %d %d %s" % (m.id, ply, ta)), "ok")
        self.assertEqual(next_event(w, m.id), "draw-offered %d" % a)
        self.assertIn(" draw-offered-by=%d " % a, c.ok("show %d" % m.id))
        # One offer at a time; a seat never answers its own.
        self.assertReply(c.ask("offer-draw %d %d %s" % (m.id, ply, ta)), "err draw-pending ")
        self.assertReply(c.ask("offer-draw %d %d %s" % (m.id, ply, tb)), "err draw-pending ")
        self.assertReply(c.ask("accept-draw %d %d %s" % (m.id, ply, ta)), "err own-offer ")
        self.assertReply(c.ask("decline-draw %d %d %s" % (m.id, ply, ta)), "err own-offer ")
        self.assertReply(c.ask("withdraw-draw %d %d %s" % (m.id, ply, tb)), "err no-draw-offer ")
        self.assertEqual(c.ask("decline-draw %d %d %s" % (m.id, ply, tb)), "ok")
        self.assertEqual(next_event(w, m.id), "draw-declined %d" % b)
        self.assertNotIn("draw-offered-by", c.ok("show %d" % m.id))
        self.assertReply(c.ask("accept-draw %d %d %s" % (m.id, ply, tb)), "err no-draw-offer ")
        # Not again until the other seat has moved: a's own move does not count.
        self.assertReply(c.ask("offer-draw %d %d %s" % (m.id, ply, ta)), "err draw-too-soon ")
        self.move(c, m, w)
        ply += 1
        self.assertReply(c.ask("offer-draw %d %d %s" % (m.id, ply, ta)), "err draw-too-soon ")
        self.move(c, m, w)
        ply += 1
        # b moved: a offers again, and withdraws it.
        self.assertEqual(c.ask("offer-draw %d %d %s" % (m.id, ply, ta)), "ok")
        self.assertEqual(next_event(w, m.id), "draw-offered %d" % a)
        self.assertEqual(c.ask("withdraw-draw %d %d %s" % (m.id, ply, ta)), "ok")
        self.assertEqual(next_event(w, m.id), "draw-withdrawn %d" % a)
        self.assertReply(c.ask("offer-draw %d %d %s" % (m.id, ply, ta)), "err draw-too-soon ")
        # b's offer (b has not offered yet) lapses with a's move.
        self.assertEqual(c.ask("offer-draw %d %d %s" % (m.id, ply, tb)), "ok")
        self.assertEqual(next_event(w, m.id), "draw-offered %d" % b)
        self.move(c, m, w)
        ply += 1
        self.assertEqual(next_event(w, m.id), "draw-lapsed %d" % b)
        self.assertNotIn("draw-offered-by", c.ok("show %d" % m.id))
        self.assertReply(c.ask("accept-draw %d %d %s" % (m.id, ply, ta)), "err no-draw-offer ")
        # b to move: b offers with its move; the offer stands after it, and a accepts.
        self.assertEqual(c.ask("offer-draw %d %d %s" % (m.id, ply, tb)), "ok")
        self.assertEqual(next_event(w, m.id), "draw-offered %d" % b)
        self.move(c, m, w)
        ply += 1
        self.assertIn(" draw-offered-by=%d " % b, c.ok("show %d" % m.id))
        self.assertReply(c.ask("accept-draw %d %d %s" % (m.id, ply - 1, ta)), "err stale-ply ")
        self.assertEqual(self.match_rows(m.id), [])
        self.assertEqual(c.ask("accept-draw %d %d %s" % (m.id, ply, ta)), "ok")
        self.assertEqual(next_event(w, m.id), "result draw by=agreement")
        info = base.show(c, m.id)
        self.assertEqual((info["result"], info["by"], info["turn"]), ("draw", "agreement", "-"))
        self.assertNotIn("draw-offered-by", c.ok("show %d" % m.id))
        self.assertEqual(c.ask("moves %d" % m.id), "ok")
        self.assertEqual(self.match_rows(m.id), [("", "resignation", str(ply))])
        # Over: nothing more changes it.
        for line in ("offer-draw %d %d %s" % (m.id, ply, ta), "accept-draw %d %d %s" % (m.id, ply, tb),
                     "resign %d %s" % (m.id, ta), "undo %d %d %s" % (m.id, ply, tb)):
            self.assertReply(c.ask(line), "err game-over ", line)
        record = self.record(c, m.id)
        self.assertIn('[ServerResult "1/2-1/2"]', record)
        self.assertIn('[ServerEnd "agreement"]', record)
        # Read again after a restart: the same ending, not a damaged record.
        c.close()
        w.close()
        s = self.start()
        c = Conn(s.port)
        info = base.show(c, m.id)
        self.assertEqual((info["result"], info["by"]), ("draw", "agreement"))
        w = Conn(s.port)
        w.send("watch %d" % m.id)
        self.assertTrue(w.read().startswith("ok watching"))
        self.assertTrue(next_event(w, m.id).startswith("moves 0 "))
        self.assertEqual(next_event(w, m.id), "result draw by=agreement")
        self.assertIn('[ServerEnd "agreement"]', self.record(c, m.id))

    def killed_and_restarted(self, s: Any, *conns: Any) -> "tuple[Any, Any]":
        """SIGKILL, then a new server on the same database and a client of it."""
        for c in conns:
            c.close()
        s.kill()
        s = self.start()
        return s, Conn(s.port)

    def test_an_open_offer_survives_a_kill_and_a_restart(self) -> None:
        s = self.start()
        c = Conn(s.port)
        m = base.Match(c, "hus")
        ply, turn, _ = m.state(c)
        a, b = int(turn), 1 - int(turn)
        self.assertEqual(c.ask("offer-draw %d %d %s" % (m.id, ply, m.tokens[a])), "ok")
        s, c = self.killed_and_restarted(s, c)
        self.assertIn(" draw-offered-by=%d " % a, c.ok("show %d" % m.id))
        w = self.watching(s.port, m.id)  # told in its catch-up
        event = next_event(w, m.id)
        while event.startswith(("moves ", "joined ")):
            event = next_event(w, m.id)
        self.assertEqual(event, "draw-offered %d" % a)
        # Still a's offer: a may not offer again nor answer it.
        self.assertReply(self.through(c, "offer-draw %d %d %s" % (m.id, ply, m.tokens[a])),
                         "err draw-pending ")
        self.assertReply(c.ask("accept-draw %d %d %s" % (m.id, ply, m.tokens[a])),
                         "err own-offer ")
        self.assertEqual(self.through(c, "accept-draw %d %d %s" % (m.id, ply, m.tokens[b])), "ok")
        self.assertEqual(next_event(w, m.id), "result draw by=agreement")
        self.assertEqual(self.match_rows(m.id), [("", "resignation", str(ply))])
        self.assertEqual(self.rows("SELECT count(*) FROM draw_offers WHERE match_id = %d" % m.id),
                         [("0",)])  # gone with the match's end

    def test_a_spent_offer_survives_and_a_declined_one_stays_declined(self) -> None:
        s = self.start()
        c = Conn(s.port)
        m = base.Match(c, "hus")
        ply, turn, _ = m.state(c)
        a, b = int(turn), 1 - int(turn)  # a is to move
        self.assertEqual(c.ask("offer-draw %d %d %s" % (m.id, ply, m.tokens[a])), "ok")
        self.assertEqual(c.ask("decline-draw %d %d %s" % (m.id, ply, m.tokens[b])), "ok")
        m.play(c, c.ok("moves %d" % m.id).split()[0])  # a's own move: a's offer stays spent
        ply += 1
        s, c = self.killed_and_restarted(s, c)
        self.assertNotIn("draw-offered-by", c.ok("show %d" % m.id))
        self.assertReply(self.through(c, "accept-draw %d %d %s" % (m.id, ply, m.tokens[b])),
                         "err no-draw-offer ")
        self.assertReply(c.ask("offer-draw %d %d %s" % (m.id, ply, m.tokens[a])),
                         "err draw-too-soon ")
        # b, whose turn it is, has not offered: b may, and withdraws it.
        self.assertEqual(self.through(c, "offer-draw %d %d %s" % (m.id, ply, m.tokens[b])), "ok")
        self.assertEqual(c.ask("withdraw-draw %d %d %s" % (m.id, ply, m.tokens[b])), "ok")
        # b moves: a may offer again, also after another restart; b may not.
        while int(base.show(c, m.id)["turn"]) == b:
            move = c.ok("moves %d" % m.id).split()[0]
            self.assertTrue(c.ok("play %d %d %s %s" % (m.id, ply, move, m.tokens[b])))
            ply += 1
        ply = int(base.show(c, m.id)["ply"])
        s, c = self.killed_and_restarted(s, c)
        self.assertReply(self.through(c, "offer-draw %d %d %s" % (m.id, ply, m.tokens[b])),
                         "err draw-too-soon ")
        self.assertEqual(self.through(c, "offer-draw %d %d %s" % (m.id, ply, m.tokens[a])), "ok")
        self.assertIn(" draw-offered-by=%d " % a, c.ok("show %d" % m.id))

    def record(self, c: Any, mid: int) -> str:
        n = int(c.ok("record %d" % mid))
        return "\n".join(c.read() for _ in range(n))

    def test_an_accepted_undo_ends_an_offer(self) -> None:
        s = self.start()
        c = Conn(s.port)
        m = base.Match(c, "hus")
        w = self.watching(s.port, m.id)
        self.move(c, m, w)
        ply, turn, _ = m.state(c)
        to_move, moved = int(turn), 1 - int(turn)
        self.assertEqual(c.ask("offer-draw %d %d %s" % (m.id, ply, m.tokens[to_move])), "ok")
        self.assertEqual(next_event(w, m.id), "draw-offered %d" % to_move)
        self.assertEqual(c.ok("undo %d %d %s" % (m.id, ply, m.tokens[moved])), "requested")
        self.assertEqual(next_event(w, m.id), "undo-requested %d" % moved)
        # The offer survived the request; the accepted undo takes it away.
        self.assertIn(" draw-offered-by=%d " % to_move, c.ok("show %d" % m.id))
        c.ok("accept %d %d %s" % (m.id, ply, m.tokens[to_move]))
        self.assertEqual(next_event(w, m.id), "undone 0")
        self.assertEqual(next_event(w, m.id), "draw-lapsed %d" % to_move)
        self.assertReply(c.ask("accept-draw %d 0 %s" % (m.id, m.tokens[moved])),
                         "err no-draw-offer ")

    def test_a_rated_draw_by_agreement_rates_once(self) -> None:
        s = self.start(*lobby.OPEN_BUDGETS)
        alice, bob = self.signed_in(s.port, "alice"), self.signed_in(s.port, "bob")
        feed = Conn(s.port)
        mid, tokens = self.matched(alice, bob, alice.ok("seek hus clock=5+3 rated"))
        self.assertEqual(feed.ask("lobby"), "ok 0 1")
        feed.read()
        info = base.show(alice, mid)
        self.assertEqual(alice.ask("offer-draw %d %s %s" % (mid, info["ply"], tokens[0])), "ok")
        self.assertEqual(bob.ask("accept-draw %d %s %s" % (mid, info["ply"], tokens[1])), "ok")
        self.assertEqual(feed.read(), "lobby ended %d draw" % mid)
        want = lobby.glicko2(1500, 350, 0.06, [(1500, 350, 0.5)])
        self.assertRatings("alice", "hus/blitz", want, 1)
        self.assertRatings("bob", "hus/blitz", want, 1)
        self.assertReply(bob.ask("accept-draw %d %s %s" % (mid, info["ply"], tokens[1])),
                         "err game-over ")
        s = self.start(*lobby.OPEN_BUDGETS)
        self.assertEqual(base.show(Conn(s.port), mid)["by"], "agreement")
        self.assertRatings("alice", "hus/blitz", want, 1)
        self.assertRatings("bob", "hus/blitz", want, 1)

    def test_bad_input_is_refused_and_changes_nothing(self) -> None:
        s = self.start()
        c = Conn(s.port)
        waiting, _, _ = c.ok("new halusa").split()
        m = base.Match(c, "halusa")
        ply, turn, _ = m.state(c)
        token = m.tokens[int(turn)]
        watcher = Conn(s.port)
        cases = [
            # A watcher holds no token, or a wrong one.
            ("offer-draw %d %d" % (m.id, ply), "err token-required "),
            ("accept-draw %d %d" % (m.id, ply), "err token-required "),
            ("offer-draw %d %d %s" % (m.id, ply, "0" * 32), "err bad-token "),
            ("offer-draw %d %d %s" % (m.id, ply, "zz"), "err bad-token "),
            # No offer to answer or withdraw.
            ("accept-draw %d %d %s" % (m.id, ply, token), "err no-draw-offer "),
            ("decline-draw %d %d %s" % (m.id, ply, m.tokens[1 - int(turn)]), "err no-draw-offer "),
            ("withdraw-draw %d %d %s" % (m.id, ply, token), "err no-draw-offer "),
            # Bad ids and plies.
            ("offer-draw 999999 0 %s" % token, "err no-such-match "),
            ("offer-draw x 0 %s" % token, "err no-such-match "),
            ("offer-draw -1 0 %s" % token, "err no-such-match "),
            ("offer-draw 99999999999999999999999 0 %s" % token, "err no-such-match "),
            ("offer-draw %d x %s" % (m.id, token), "err usage "),
            ("offer-draw %d -1 %s" % (m.id, token), "err usage "),
            ("offer-draw %d %d %s" % (m.id, ply + 1, token), "err stale-ply "),
            ("offer-draw %d %d %s extra" % (m.id, ply, token), "err usage "),
            ("offer-draw", "err usage "),
            ("draw-offer %d %d %s" % (m.id, ply, token), "err unknown-command "),
            # Another match's token.
            ("offer-draw %s 0 %s" % (waiting, token), "err bad-token "),
        ]
        for line, want in cases:
            self.assertReply(watcher.ask(line), want, line + ": ")
        self.assertNotIn("draw-offered-by", c.ok("show %d" % m.id))
        self.assertEqual(base.show(c, m.id)["result"], "running")
        # A finished match (resigned) takes no offer.
        c.ok("resign %d %s" % (m.id, token))
        for line in ("offer-draw %d %d %s" % (m.id, ply, token),
                     "accept-draw %d %d %s" % (m.id, ply, m.tokens[1 - int(turn)])):
            self.assertReply(watcher.ask(line), "err game-over ", line + ": ")
        self.assertEqual(self.match_rows(m.id), [(str(1 - int(turn)), "resignation", str(ply))])

    def test_an_offer_before_the_join_is_refused(self) -> None:
        s = self.start()
        c = Conn(s.port)
        mid, token, _ = c.ok("new halusa").split()
        self.assertReply(c.ask("offer-draw %s 0 %s" % (mid, token)), "err not-joined ")
        self.assertNotIn("draw-offered-by", c.ok("show %s" % mid))


class DrawTest(SqliteStore, DrawTests, unittest.TestCase):
    tmp_prefix = "tg-server-draws-"

    def setUp(self) -> None:
        base.SERVER = SERVER
        lobby.SERVER = SERVER
        super().setUp()

    def new_server(self, *extra: str) -> Any:
        return base.Server(self.db, *extra)

    def test_schema_6_is_brought_to_the_current_one_in_place(self) -> None:
        s = self.start()
        c = Conn(s.port)
        m = base.Match(c, "hus")
        ply, turn, _ = m.state(c)
        c.close()
        s.stop()
        with sqlite3.connect(self.db) as db:  # as a server of schema 6 left it
            db.execute("DROP TABLE draw_offers")
            db.execute("DROP TABLE lobby_matches")
            db.execute("DROP TABLE rematches")  # schema 8's
            db.execute("UPDATE meta SET value = '6' WHERE key = 'schema'")
        s = self.start()
        self.assertEqual(self.rows("SELECT value FROM meta WHERE key = 'schema'"), [("8",)])
        c = Conn(s.port)
        self.assertEqual(base.show(c, m.id)["result"], "running")
        self.assertEqual(c.ask("offer-draw %d %d %s" % (m.id, ply, m.tokens[int(turn)])), "ok")
        self.assertEqual(self.rows("SELECT match_id, offered_by, spent0, spent1 FROM draw_offers"),
                         [(str(m.id), turn, "1" if turn == "0" else "0",
                           "1" if turn == "1" else "0")])


if __name__ == "__main__":
    import sys
    SERVER = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
