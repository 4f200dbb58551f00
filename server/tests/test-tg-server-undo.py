#!/usr/bin/env python3
"""The undo request as stored (issue 29) on SQLite, run by test-tg-server.py in the same run:

- a request is a row of `undo_requests` (who asked, at which ply), acknowledged once stored:
  it survives a SIGKILL and a restart of the server, and the other seat accepts or declines it
  afterwards; a watcher that comes later is told of it;
- a decline keeps the row with its answer; an accept, and any other change to the match (a
  move), take it away, so a request never outlives the position it was made in;
- bad input: accept with no request, by the requester, after a move (the old ply, and the new
  one): each a clear error, nothing changed in the database;
- the schema: a database of schema 1 (made before undo requests were stored) is brought to the
  current one (7) in place, its matches as they were; a database of a newer schema is refused
  at start-up.
"""
import os
import sqlite3
import subprocess
import tempfile
import unittest

import sibling

SERVER: "str | None" = None  # set by test-tg-server.py

base = sibling.load("tg_server_undo_base", "test-tg-server.py")


class StoredUndoTest(base.ServerTestCase):
    def setUp(self) -> None:
        base.SERVER = SERVER
        super().setUp()

    def rows(self, mid: int) -> "list[tuple[int, int, str | None]]":
        with sqlite3.connect(self.db) as db:
            return db.execute("SELECT seat, ply, answer FROM undo_requests WHERE match_id = ?",
                              (mid,)).fetchall()

    def played(self, conn: "base.Conn", decisions: int) -> "tuple[base.Match, list[str]]":
        m = base.Match(conn, "halusa")
        for _ in range(decisions):
            ply, turn, _ = m.state(conn)
            move = conn.ok("moves %d" % m.id).split()[0]
            conn.ok("play %d %d %s %s" % (m.id, ply, move, m.tokens[int(turn)]))
        return m, conn.ok("history %d" % m.id).split()

    def test_a_request_survives_sigkill_and_is_accepted_after(self) -> None:
        c = base.Conn(self.server.port)
        m, history = self.played(c, 3)
        ply, turn, _ = m.state(c)
        asker, answerer = m.tokens[int(turn)], m.tokens[1 - int(turn)]
        self.assertEqual(c.ok("undo %d %d %s" % (m.id, ply, asker)), "requested")
        self.assertEqual(self.rows(m.id), [(int(turn), ply, None)])
        c.close()
        self.server.kill()
        self.server.start()
        c = base.Conn(self.server.port)
        self.assertIn("undo-requested-by=%s" % turn, c.ok("show %d" % m.id))
        w = base.Conn(self.server.port)
        w.send("watch %d" % m.id)
        self.assertTrue(w.read().startswith("ok watching"))
        lines = []
        while not lines or "undo-requested" not in lines[-1]:
            lines.append(w.read())
        self.assertEqual(lines[-1], "event %d undo-requested %s" % (m.id, turn))
        # The requester cannot accept it; nothing changes.
        self.assertReply(c.ask("accept %d %d %s" % (m.id, ply, asker)), "err not-your-turn")
        self.assertEqual(self.rows(m.id), [(int(turn), ply, None)])
        kept = int(c.ok("accept %d %d %s" % (m.id, ply, answerer)))
        self.assertLess(kept, ply)
        self.assertEqual(w.read(), "event %d undone %d" % (m.id, kept))
        self.assertEqual(c.ok("history %d" % m.id).split(), history[:kept])
        self.assertEqual(self.rows(m.id), [])
        self.assertReply(c.ask("accept %d %d %s" % (m.id, kept, answerer)),
                         "err no-undo-request")
        # A restart (SIGTERM this time) brings no request back.
        c.close()
        w.close()
        self.restart()
        c = base.Conn(self.server.port)
        self.assertNotIn("undo-requested-by", c.ok("show %d" % m.id))
        self.assertEqual(c.ok("history %d" % m.id).split(), history[:kept])
        c.close()

    def test_decline_and_a_move_end_a_request_in_the_database(self) -> None:
        c = base.Conn(self.server.port)
        m, history = self.played(c, 2)
        ply, turn, _ = m.state(c)
        mover, other = m.tokens[int(turn)], m.tokens[1 - int(turn)]
        self.assertReply(c.ask("accept %d %d %s" % (m.id, ply, mover)), "err no-undo-request")
        self.assertEqual(self.rows(m.id), [])
        self.assertEqual(c.ok("undo %d %d %s" % (m.id, ply, other)), "requested")
        self.assertEqual(c.ok("decline %d %d %s" % (m.id, ply, mover)), "declined")
        self.assertEqual(self.rows(m.id), [(1 - int(turn), ply, "declined")])
        self.assertReply(c.ask("accept %d %d %s" % (m.id, ply, mover)), "err no-undo-request")
        # Declined, it stays declined after a SIGKILL.
        c.close()
        self.server.kill()
        self.server.start()
        c = base.Conn(self.server.port)
        self.assertNotIn("undo-requested-by", c.ok("show %d" % m.id))
        # Asked again, then the seat to move moves: the request goes with that move.
        self.assertEqual(c.ok("undo %d %d %s" % (m.id, ply, other)), "requested")
        move = c.ok("moves %d" % m.id).split()[0]
        history += c.ok("play %d %d %s %s" % (m.id, ply, move, mover)).split()
        self.assertEqual(self.rows(m.id), [])
        new_ply, _, info = m.state(c)
        self.assertNotIn("undo-requested-by", c.ok("show %d" % m.id))
        self.assertReply(c.ask("accept %d %d %s" % (m.id, ply, mover)), "err stale-ply")
        self.assertReply(c.ask("accept %d %d %s" % (m.id, new_ply, mover)),
                         "err no-undo-request")
        self.assertEqual(c.ok("history %d" % m.id).split(), history)
        c.close()
        self.server.kill()
        self.server.start()
        c = base.Conn(self.server.port)
        self.assertNotIn("undo-requested-by", c.ok("show %d" % m.id))
        self.assertEqual(c.ok("history %d" % m.id).split(), history)
        c.close()


class UndoSchemaTest(unittest.TestCase):
    def setUp(self) -> None:
        base.SERVER = SERVER
        self.tmp = tempfile.TemporaryDirectory(prefix="tg-server-undo-")
        self.db = os.path.join(self.tmp.name, "matches.db")

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def made_by_schema_1(self) -> "tuple[int, list[str]]":
        """A database as a server of schema 1 left it: a match, no undo_requests table (nor
        schema 3's accounts, nor schema 4's rated_matches, nor schema 5's rating_history, nor
        schema 6's correspondence, nor schema 7's draw_offers and lobby_matches, nor schema 8's
        rematches)."""
        s = base.Server(self.db).start()
        c = base.Conn(s.port)
        m = base.Match(c, "hus")
        history = c.ok("history %d" % m.id).split()
        c.close()
        s.stop()
        with sqlite3.connect(self.db) as db:
            db.execute("DROP TABLE undo_requests")
            for table in ("rematches", "lobby_matches", "draw_offers", "correspondence", "rating_history",
                          "rated_matches", "seat_accounts", "ratings", "sessions", "accounts"):
                db.execute("DROP TABLE %s" % table)
            db.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
        return m.id, history

    def test_schema_1_is_brought_to_the_current_one_in_place(self) -> None:
        mid, history = self.made_by_schema_1()
        s = base.Server(self.db).start()
        c = base.Conn(s.port)
        self.assertEqual(c.ok("history %d" % mid).split(), history)
        c.close()
        s.stop()
        with sqlite3.connect(self.db) as db:
            self.assertEqual(db.execute("SELECT value FROM meta WHERE key = 'schema'")
                             .fetchall(), [("8",)])
            self.assertEqual(db.execute("SELECT count(*) FROM undo_requests").fetchall(),
                             [(0,)])

    def test_a_newer_schema_is_refused(self) -> None:
        self.made_by_schema_1()
        with sqlite3.connect(self.db) as db:
            db.execute("UPDATE meta SET value = '9' WHERE key = 'schema'")
        r = subprocess.run([SERVER, "--port", "0", "--db", self.db], capture_output=True,
                           text=True, timeout=20)
        self.assertEqual(r.returncode, 1)
        self.assertIn("the database's schema is version 9, newer than this server's (8)",
                      r.stderr)


if __name__ == "__main__":
    unittest.main()
