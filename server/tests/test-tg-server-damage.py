#!/usr/bin/env python3
"""Damage to tg-server's files on disk (issue 28 item 9), run by test-tg-server.py in the same
run. Each test damages a real database file, write-ahead log or sync:

- a damaged leaf page of `matches`: the server starts, names the stretch of ids that page
  held, sets those matches aside, serves every other match exactly as stored and takes new
  ones; `--check` runs on the same file;
- a damaged schema page (page 1, with or without its header; and, with a schema on several
  pages, a leaf of it): the whole schema rebuilt from the copy kept beside the database and
  the file vacuumed; every match is served as before; with no copy the server says why it
  cannot start;
- a damaged frame of the write-ahead log, with commits after it: the start says loudly that
  the log was cut short and how many commits are lost, and keeps a copy of the log; a frame
  torn by a crash at the end of the log is no warning;
- fsync failing with EIO at a commit (a preloaded library, libtg-fsync-fault.so): the change
  is refused, and it is not in the database after a SIGKILL; changes are refused while the
  refused frames cannot be kept out of the log for certain, and taken again once they can.
"""
import os
import random
import sqlite3
import struct
import time
import unittest

import sibling

SERVER = None  # set by test-tg-server.py

base = sibling.load("tg_server_damage_base", "test-tg-server.py")
Conn, Match, Server, show = base.Conn, base.Match, base.Server, base.show


class DamageCase(base.ServerTestCase):
    def setUp(self):
        base.SERVER = SERVER
        super().setUp()

    def make(self, n, plies=0):
        """n matches of Halusa, the first ten with `plies` random moves: id -> (history, show)."""
        c = Conn(self.server.port)
        rng = random.Random(5)
        made = {}
        for i in range(n):
            m = Match(c, "halusa")
            for _ in range(plies if i < 10 else 0):
                m.play(c, rng.choice(c.ok("moves %d" % m.id).split()))
            made[m.id] = m
        out = {mid: (c.ok("history %d" % mid).split(), show(c, mid)) for mid in made}
        c.close()
        return out

    def start(self, *extra, env=None):
        saved = dict(os.environ)
        os.environ.update(env or {})
        try:
            self.server = Server(self.db, *extra).start()
        finally:
            os.environ.clear()
            os.environ.update(saved)
        return self.server

    def served_as_made(self, made, skip=()):
        c = Conn(self.server.port)
        for mid, (history, info) in sorted(made.items()):
            if mid in skip:
                self.assertTrue(c.ask("show %d" % mid).startswith("err set-aside"), mid)
            else:
                self.assertEqual(c.ok("history %d" % mid).split(), history, "match %d" % mid)
                self.assertEqual(show(c, mid), info)
        fresh = Match(c, "hus")  # and new matches and moves are taken
        move = c.ok("moves %d" % fresh.id).split()[0]
        self.assertEqual(fresh.play(c, move), [move])
        c.close()


class DamagedMatchesPageTest(DamageCase):
    def test_a_damaged_leaf_of_matches_does_not_stop_the_start(self):
        made = self.make(420, plies=4)
        self.server.stop()
        db = sqlite3.connect(self.db)
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        leaves = [r[0] for r in db.execute(
            "SELECT pageno FROM dbstat WHERE name = 'matches' AND pagetype = 'leaf' "
            "ORDER BY path")]
        self.assertGreaterEqual(len(leaves), 3)
        victim = leaves[1]  # neither the first nor the last: matches before and after it
        lost = []
        for (mid,) in db.execute("SELECT id FROM matches ORDER BY id"):
            lost.append(mid)
        db.close()
        with open(self.db, "r+b") as f:
            f.seek((victim - 1) * page_size)
            f.write(os.urandom(page_size))
        # Which ids sat on that page: the ids SQLite can no longer read.
        db = sqlite3.connect(self.db)
        readable = set()
        for mid in lost:
            try:
                if db.execute("SELECT id FROM matches WHERE id = ?", (mid,)).fetchone():
                    readable.add(mid)
            except sqlite3.DatabaseError:
                pass
        db.close()
        unreadable = set(made) - readable
        self.assertGreater(len(unreadable), 10)
        self.start()
        err_lines = []
        self.assertIn("%d set aside" % len(unreadable), self.server.banner)
        self.assertIn("%d matches in" % len(readable), self.server.banner)
        self.served_as_made(made, skip=unreadable)
        # `list` pages through every readable match, past the damaged page.
        c = Conn(self.server.port)
        listed, after = [], 0
        while True:
            words = c.ok("list %d" % after).split()
            more = words[-1:] == ["more"]
            listed += [int(w) for w in words if w != "more"]
            if not more:
                break
            after = listed[-1]
        inside = c.ok("list %d" % (min(unreadable) + 5)).split()  # from inside the page
        self.assertEqual(int(inside[0]), max(unreadable) + 1)
        c.close()
        self.assertEqual(listed, sorted(readable) + [max(made) + 1])  # and the Hus match made
        err = self.server.stop()
        err_lines = [line for line in err.splitlines() if "damaged page" in line]
        self.assertEqual(len(err_lines), 1, err)
        self.assertIn("ids %d to %d" % (min(unreadable), max(unreadable)), err_lines[0])
        # --check runs through the same file: SQLite's check names the damage, every readable
        # match is replayed (a damaged row of the last match, past the damaged page, is
        # found), and the server then serves.
        last = max(made)
        db = sqlite3.connect(self.db)
        db.execute("DELETE FROM seats WHERE match_id = ? AND seat = 1", (last,))
        db.commit()
        db.close()
        self.start("--check")
        self.assertIn("%d set aside" % (len(unreadable) + 1), self.server.banner)
        self.served_as_made({k: v for k, v in made.items() if k != last}, skip=unreadable)
        err = self.server.stop()
        self.assertIn("integrity_check:", err)
        self.assertNotIn("integrity_check: ok", err)
        self.assertIn("match %d set aside: seats rows" % last, err)


class DamagedSchemaPageTest(DamageCase):
    def damage_page_one(self, from_byte):
        size = os.path.getsize(self.db)
        with open(self.db, "r+b") as f:
            f.seek(from_byte)
            f.write(os.urandom(4096 - from_byte))
        self.assertEqual(os.path.getsize(self.db), size)

    def test_a_damaged_schema_page_is_rebuilt_from_the_copy(self):
        made = self.make(30, plies=6)
        self.server.stop()
        self.assertTrue(os.path.exists(self.db + ".schema"))
        for from_byte in (100, 0):  # the schema's b-tree; then the file's header as well
            self.damage_page_one(from_byte)
            with self.assertRaises(sqlite3.DatabaseError):
                sqlite3.connect(self.db).execute("SELECT count(*) FROM matches").fetchone()
            self.start()
            # served_as_made makes one Hus match each time; make(1) one more, in `made`.
            self.assertIn("%d matches in" % (len(made) + (from_byte == 0)), self.server.banner)
            self.assertIn("0 set aside", self.server.banner)
            self.served_as_made(made)
            made.update(self.make(1))
            err = self.server.stop()
            self.assertIn("the schema page was damaged; rebuilt from", err)
            kept = [f for f in os.listdir(self.tmp.name) if ".damaged-" in f]
            self.assertTrue(kept)
            for f in kept:
                os.unlink(os.path.join(self.tmp.name, f))
        # The rebuilt file passes SQLite's own check: the pages of the old schema are gone.
        rows = [r[0] for r in sqlite3.connect(self.db).execute("PRAGMA integrity_check")]
        self.assertEqual(rows, ["ok"])

    def test_a_schema_on_several_pages_is_rebuilt_whole(self):
        """The schema's b-tree grown past page 1 (tables an operator added, besides the
        server's own): a damaged page 1, then a damaged leaf of the schema's other pages, each
        rebuilt from the copy; every table is found again with its rows, and the rebuilt file
        passes SQLite's integrity check whole (the schema's old pages dropped by a VACUUM)."""
        made = self.make(12, plies=4)
        self.server.stop()
        db = sqlite3.connect(self.db)
        for i in range(40):  # about 16 KB of schema rows: five pages or so
            columns = ", ".join("padding_column_%d_%d TEXT" % (i, k) for k in range(12))
            db.execute("CREATE TABLE operator_notes_%d (id INTEGER PRIMARY KEY, %s)"
                       % (i, columns))
            db.execute("INSERT INTO operator_notes_%d (id) VALUES (%d)" % (i, i))
        db.commit()
        db.close()
        self.start()
        made.update(self.make(1))
        self.server.stop()

        def schema_pages():
            db = sqlite3.connect(self.db)
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            pages = [r[0] for r in db.execute(
                "SELECT pageno FROM dbstat WHERE name = 'sqlite_schema' ORDER BY pageno")]
            db.close()
            return pages

        for root in (True, False):  # page 1 (an interior page now), then a leaf
            pages = schema_pages()  # after each VACUUM, since it moves them
            self.assertGreaterEqual(len(pages), 3, pages)
            victim = 1 if root else pages[-1]
            with open(self.db, "r+b") as f:
                f.seek((victim - 1) * 4096 + (100 if victim == 1 else 0))
                f.write(bytes(4096 - (100 if victim == 1 else 0)))  # no valid page type
            with self.assertRaises(sqlite3.DatabaseError):
                sqlite3.connect(self.db).execute("SELECT count(*) FROM matches").fetchone()
            self.start()
            self.assertIn("0 set aside", self.server.banner)
            self.served_as_made(made)
            made.update(self.make(1))
            err = self.server.stop()
            self.assertIn("the schema page was damaged; rebuilt from", err)
            self.assertIn("rewritten without the schema's old pages", err)
            db = sqlite3.connect(self.db)
            self.assertEqual([r[0] for r in db.execute("PRAGMA integrity_check")], ["ok"])
            for i in range(40):
                self.assertEqual(db.execute("SELECT id FROM operator_notes_%d" % i).fetchall(),
                                 [(i,)])
            db.close()
            for f in os.listdir(self.tmp.name):
                if ".damaged-" in f:
                    os.unlink(os.path.join(self.tmp.name, f))

    def test_without_a_copy_the_server_says_why(self):
        self.make(3)
        self.server.stop()
        os.unlink(self.db + ".schema")
        self.damage_page_one(100)
        with self.assertRaises(RuntimeError) as caught:
            self.start()
        self.assertIn("no usable copy of the schema", str(caught.exception))


def wal_frames(path):
    """(page size, [(offset, commit size, salts)]) of the log's frames."""
    with open(path, "rb") as f:
        data = f.read()
    page = struct.unpack(">I", data[8:12])[0]
    salts = data[16:24]
    frames = []
    at = 32
    while at + 24 + page <= len(data):
        commit = struct.unpack(">I", data[at + 4:at + 8])[0]
        frames.append((at, commit, data[at + 8:at + 16] == salts))
        at += 24 + page
    return page, frames


class DamagedLogTest(DamageCase):
    def test_a_damaged_frame_of_the_log_is_said_loudly(self):
        made = self.make(40, plies=3)
        self.server.kill()  # the log keeps its frames: nothing checkpointed them
        wal = self.db + "-wal"
        page, frames = wal_frames(wal)
        commits = [i for i, (_, commit, ours) in enumerate(frames) if commit and ours]
        self.assertGreater(len(commits), 20)
        victim = commits[len(commits) // 2] - 0  # a commit frame halfway: many after it
        with open(wal, "r+b") as f:
            f.seek(frames[victim][0] + 24 + page // 2)
            f.write(b"\xff" * 16)
        self.start()
        self.assertIn("WARNING: the write-ahead log was cut short: frame %d" % (victim + 1),
                      self.server.banner)
        lost = len(commits) - len(commits) // 2
        self.assertIn("and %d committed transactions after it are lost" % lost,
                      self.server.banner)
        copies = [f for f in os.listdir(self.tmp.name) if "-wal.cut-" in f]
        self.assertEqual(len(copies), 1)
        err = self.server.stop()
        self.assertIn("WARNING: the write-ahead log was cut short", err)

    def test_a_frame_torn_at_the_end_is_no_warning(self):
        self.make(5, plies=3)
        self.server.kill()
        wal = self.db + "-wal"
        page, frames = wal_frames(wal)
        with open(wal, "r+b") as f:  # the last frame half written, as a crash leaves it
            f.truncate(frames[-1][0] + 24 + page // 2)
        self.start()
        self.assertNotIn("WARNING", self.server.banner)
        self.server.stop()


class FailedSyncTest(DamageCase):
    def fault(self):
        lib = os.path.join(os.path.dirname(SERVER), "libtg-fsync-fault.so")
        if not os.path.exists(lib):
            self.skipTest("no libtg-fsync-fault.so beside the server")
        trigger = os.path.join(self.tmp.name, "fail-syncs")
        preload = " ".join(p for p in (os.environ.get("LD_PRELOAD"), lib) if p)
        # A sanitizer build wants its runtime first; the fault library needs none.
        asan = os.environ.get("ASAN_OPTIONS", "")
        env = {"LD_PRELOAD": preload, "TG_FSYNC_FAIL": trigger,
               "ASAN_OPTIONS": (asan + ":" if asan else "") + "verify_asan_link_order=0"}
        return trigger, env

    def test_a_refused_commit_is_not_in_the_database_after_a_crash(self):
        trigger, env = self.fault()
        self.server.stop()
        self.start(env=env)
        c = Conn(self.server.port)
        m = Match(c, "halusa")
        acked = m.play(c, "c1") + m.play(c, "a2")
        open(trigger, "w").close()
        reply = c.ask("play %d 2 b1 %s" % (m.id, m.tokens[0]))
        self.assertTrue(reply.startswith("err io "), reply)
        # The refused frames are out of the log in the file, but its sync fails too: the
        # state on disk is not known, and no change is taken.
        reply = c.ask("play %d 2 b1 %s" % (m.id, m.tokens[0]))
        self.assertTrue(reply.startswith("err halted "), reply)
        self.assertTrue(c.ask("new hus").startswith("err halted "))
        self.assertEqual(c.ok("history %d" % m.id).split(), acked)  # reads still work
        c.close()
        self.server.kill()
        os.unlink(trigger)
        self.start()
        c = Conn(self.server.port)
        self.assertEqual(c.ok("history %d" % m.id).split(), acked)
        self.assertEqual(m.play(c, "b1"), ["b1"])
        c.close()

    def test_changes_are_taken_again_once_the_disk_answers(self):
        trigger, env = self.fault()
        self.server.stop()
        self.start(env=env)
        c = Conn(self.server.port)
        m = Match(c, "halusa")
        acked = m.play(c, "c1")
        open(trigger, "w").close()
        self.assertTrue(c.ask("play %d 1 a2 %s" % (m.id, m.tokens[1])).startswith("err io "))
        os.unlink(trigger)
        deadline = time.monotonic() + 10
        while True:
            reply = c.ask("play %d 1 a2 %s" % (m.id, m.tokens[1]))
            if not reply.startswith("err halted"):
                break
            self.assertLess(time.monotonic(), deadline, "changes stay refused")
            time.sleep(0.1)
        self.assertEqual(reply, "ok a2")
        acked.append("a2")
        c.close()
        self.server.kill()
        self.start()
        c = Conn(self.server.port)
        self.assertEqual(c.ok("history %d" % m.id).split(), acked)
        c.close()
        err = self.server.stop()
        del err


class DamagedSideTableTest(DamageCase):
    """Every page of the file but page 1 (the schema's: above) damaged in turn: the server
    starts each time, serves every match it does not set aside exactly as made, and a damaged
    side table sets aside only the matches whose rows it may have held (store-quarantine.c)."""

    def build(self):
        c = Conn(self.server.port)
        rng = random.Random(11)
        kinds = {}  # id -> what it is
        for i in range(6):
            m = Match(c, "halusa")
            for _ in range(3 + i):
                m.play(c, rng.choice(c.ok("moves %d" % m.id).split()))
            kinds[m.id] = "plain"
        clocked = Match(c, "walak-pussa clock=60+0")
        clocked.play(c, c.ok("moves %d" % clocked.id).split()[0])
        kinds[clocked.id] = "clocked"
        unjoined = int(c.ok("new hus").split()[0])
        kinds[unjoined] = "unjoined"
        kinds[int(c.ok("new halusa clock=60+0").split()[0])] = "unjoined-clocked"
        resigned = Match(c, "hawalis")
        resigned.play(c, c.ok("moves %d" % resigned.id).split()[0])
        c.ok("resign %d %s" % (resigned.id, resigned.tokens[0]))
        kinds[resigned.id] = "resigned"
        tab = Match(c, "tab")  # a decision taken back: its throws are kept
        ply, turn, _ = tab.state(c)
        c.ok("play %d %d %s %s" % (tab.id, ply, c.ok("moves %d" % tab.id).split()[0],
                                   tab.tokens[int(turn)]))
        ply, _, _ = tab.state(c)
        c.ok("undo %d %d %s" % (tab.id, ply, tab.tokens[int(turn)]))
        c.ok("accept %d %d %s" % (tab.id, ply, tab.tokens[1 - int(turn)]))
        kinds[tab.id] = "tab"
        asking = Match(c, "halusa")  # an open undo request
        asking.play(c, c.ok("moves %d" % asking.id).split()[0])
        c.ok("undo %d 1 %s" % (asking.id, asking.tokens[0]))
        kinds[asking.id] = "undo-asked"
        made = {}
        for mid in kinds:
            info = show(c, mid)
            info.pop("clock", None)  # time left moves on; its presence is kept below
            made[mid] = (c.ok("history %d" % mid).split(), info, "clock" in show(c, mid))
        c.close()
        return kinds, made

    def check_served(self, made, lost_undo=False, writable=True):
        """The ids set aside; every other match exactly as made (but for its undo request,
        with lost_undo); and, if writable, new matches and moves are taken."""
        c = Conn(self.server.port)
        aside = set()
        for mid, (history, info, clocked) in sorted(made.items()):
            if c.ask("show %d" % mid).startswith("err set-aside"):
                aside.add(mid)
                continue
            now = show(c, mid)
            self.assertEqual("clock" in now, clocked, mid)
            now.pop("clock", None)
            want = dict(info)
            if lost_undo:
                want.pop("undo-requested-by", None)
            self.assertEqual(now, want, "match %d" % mid)
            self.assertEqual(c.ok("history %d" % mid).split(), history, "match %d" % mid)
        if writable:
            fresh = Match(c, "halusa")
            move = c.ok("moves %d" % fresh.id).split()[0]
            self.assertEqual(fresh.play(c, move), [move])
        c.close()
        return aside

    def test_every_page_damaged_in_turn(self):
        kinds, made = self.build()
        self.server.stop()
        db = sqlite3.connect(self.db)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        owner = dict(db.execute("SELECT pageno, name FROM dbstat WHERE pageno > 1"))
        db.close()
        with open(self.db, "rb") as f:
            pristine = f.read()
        with open(self.db + ".schema", "rb") as f:
            schema_copy = f.read()
        # What a damaged table may cost, at most: the matches the other tables cannot clear.
        cost = {
            "meta": set(), "sqlite_autoindex_meta_1": set(), "set_aside": set(),
            "undo_requests": set(),
            "invites": {m for m, k in kinds.items() if k.startswith("unjoined")},
            "kept_throws": {m for m, k in kinds.items() if k == "tab"},
            "aborted": {m for m, k in kinds.items() if k == "unjoined-clocked"},
        }
        # A damaged page of the main tables sets aside the matches on it (above); in a file
        # this small each is one page, so nothing more can be written to it either.
        main_tables = {"matches", "seats", "moves", "sqlite_autoindex_seats_1",
                       "sqlite_autoindex_moves_1"}
        seen_tables = set()
        for page in sorted(owner):
            name = owner[page]
            with open(self.db, "wb") as f:
                f.write(pristine)
            with open(self.db + ".schema", "wb") as f:
                f.write(schema_copy)
            with open(self.db, "r+b") as f:
                f.seek((page - 1) * page_size)
                f.write(os.urandom(page_size))
            with self.subTest(page=page, table=name):
                self.start()
                try:
                    aside = self.check_served(made, lost_undo=name == "undo_requests",
                                              writable=name not in main_tables)
                finally:
                    err = self.server.stop()
                if name in cost:
                    self.assertEqual(aside, cost[name])
                    seen_tables.add(name)
                    if name != "sqlite_autoindex_meta_1":
                        self.assertIn("the %s table was damaged" % name, err)
                    # The marks are stored: the next start, on the table made anew, keeps them.
                    self.start()
                    try:
                        self.assertEqual(self.check_served(made,
                                                           lost_undo=name == "undo_requests"),
                                         cost[name])
                    finally:
                        self.assertNotIn("renamed damaged_", self.server.stop())
        self.assertEqual(seen_tables, set(cost))


if __name__ == "__main__":  # alone: test-tg-server-damage.py BUILD/server/tg-server
    import sys
    SERVER = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
