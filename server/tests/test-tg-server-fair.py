#!/usr/bin/env python3
"""Workers shared fairly between addresses (issue 41 items 3 and 6), run by test-tg-server.py
in the same run. One address (127.0.0.1, over TCP) floods the workers; another (a browser the
trusted relay names 203.0.113.5) must still be served:

- bots: with one bot worker, the first address queues costly searches from many connections;
  it may hold four (the others are told `err rate-limited`), the other address's `bot greedy`
  runs on the move workers and is answered before any of them, and its own search waits for
  the one running and then its turn, not for the whole queue;
- records: the first address asks the record of a 300,000-ply match from many connections and
  reads none of them: the record is made once and shared, every connection is answered, and
  the server's memory stays small (before, each queued record held a copy of the match's
  notation, and all ran on the move workers: a `play` waited for every record before it; then
  each answered record sat whole in its connection's output); it asks the records of three
  other such matches at once: it may have two being made, the third is told
  `err rate-limited`; and the other address's `play` is answered meanwhile.
"""
import os
import re
import select
import subprocess
import tempfile
import time
import unittest

import sibling

SERVER = None  # set by test-tg-server.py

ws = sibling.load("tg_server_fair_ws", "test-tg-server-ws.py")
base = ws.base
Conn, Match = base.Conn, base.Match
BROWSER = "X-Forwarded-For: 203.0.113.5\r\n"


def replied(conns, seen=()):
    """The first line of every connection not in seen that has one now (without waiting), by
    index."""
    rest = [c.sock for i, c in enumerate(conns) if i not in seen]
    ready, _, _ = select.select(rest, [], [], 0) if rest else ([], [], [])
    return {i: c.read() for i, c in enumerate(conns) if i not in seen and c.sock in ready}


def wait_replies(conns, count, timeout=60.0):
    """The first lines of connections as they come, until `count` of them have come."""
    got, t0 = {}, time.monotonic()
    while len(got) < count and time.monotonic() - t0 < timeout:
        rest = [c for i, c in enumerate(conns) if i not in got]
        ready, _, _ = select.select([c.sock for c in rest], [], [], 0.1)
        for c in rest:
            if c.sock in ready:
                got[conns.index(c)] = c.read()
    return got


class FairCase(unittest.TestCase):
    server_args = ()

    def setUp(self):
        base.SERVER = ws.SERVER = SERVER
        self.tmp = tempfile.TemporaryDirectory(prefix="tg-server-test-")
        self.db = os.path.join(self.tmp.name, "matches.db")
        self.prepare()
        self.server = ws.WebServer(self.db, "--trusted-proxy", "127.0.0.1",
                                   *self.server_args).start()
        self.conns = []

    def prepare(self):
        pass

    def tearDown(self):
        for c in self.conns:
            c.close()
        # A search or record still running is abandoned after two seconds: no wait for the
        # rest of the flood.
        self.server.stop()
        self.tmp.cleanup()

    def flood(self, n, line_for):
        """n connections from 127.0.0.1, each sending line_for(i, conn) and reading nothing."""
        for i in range(n):
            c = Conn(self.server.port)
            self.conns.append(c)
            c.send(line_for(i, c))
        return self.conns[-n:]


class FairBotsTest(FairCase):
    server_args = ("--bot-threads", "1", "--max-bot-ms", "2000")

    def test_a_cheap_bot_and_another_address_are_not_stuck_behind_one_addresss_searches(self):
        matches = []

        def costly(i, c):
            m = Match(c, "halusa")
            matches.append(m)
            return "bot %d 0 search:time=2000 %s" % (m.id, m.tokens[0])
        a = self.flood(7, costly)
        # Four searches held by 127.0.0.1 (8 s of the only bot worker); the other three told.
        refused = wait_replies(a, 3, timeout=10)
        self.assertEqual(len(refused), 3, refused)
        self.assertTrue(all(r.startswith("err rate-limited ") for r in refused.values()), refused)
        waiting = [c for i, c in enumerate(a) if i not in refused]

        b = ws.WS(self.server.web_port, timeout=60, headers=BROWSER)
        m = Match(b, "halusa")
        # Greedy does not search: a move's work, answered while the first search still runs
        # (one more may have ended on a slow machine; before, all of them had).
        self.assertTrue(b.ask("bot %d 0 greedy %s" % (m.id, m.tokens[0])).startswith("ok "))
        done = replied(waiting)
        self.assertLessEqual(len(done), 1, done)
        # A search of its own waits for the one running and one more of 127.0.0.1's turns,
        # not for all four: one of them at least is still to come.
        reply = b.ask("bot %d 1 search:time=100 %s" % (m.id, m.tokens[1]))
        self.assertTrue(reply.startswith("ok "), reply)
        done.update(replied(waiting, done))
        self.assertLessEqual(len(done), 3, done)
        self.assertTrue(all(r.startswith("ok ") for r in done.values()), done)
        b.close()


class FairRecordsTest(FairCase):
    PLIES = 300000

    def prepare(self):
        long = sibling.load("tg_server_fair_long", "test-tg-server-long.py")
        long.SERVER = SERVER
        tg = long.library()
        if tg is None:
            raise unittest.SkipTest("no uninstrumented library beside the server for the "
                                    "Python package")
        logs = os.path.join(self.tmp.name, "logs")
        os.mkdir(logs)
        spec = "halusa:quiet=0"
        moves, names = long.cycling_game(tg, spec, self.PLIES)
        for mid in (7, 8, 9, 10):  # four matches, four records to make
            with open(os.path.join(logs, "match-%d.log" % mid), "w") as f:
                f.write("tg-match 1 %s\n" % spec)
                f.writelines("m %d %s\n" % (m, n) for m, n in zip(moves, names))
        out = subprocess.run([SERVER, "--db", self.db, "--migrate-logs", logs],
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(out.returncode, 0, out.stderr)

    def rss_mb(self):
        with open("/proc/%d/status" % self.server.proc.pid) as f:
            return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1)) / 1024

    def test_records_nobody_reads_neither_delay_another_address_nor_take_memory(self):
        probe = Conn(self.server.port)
        self.conns.append(probe)
        self.assertTrue(probe.ok("show 7").startswith("ply=%d " % self.PLIES))
        before = self.rss_mb()
        # One record asked from 60 connections: made once, every one of them answered (before,
        # all but two were told `err rate-limited`, and each answered one sat whole, 3 MB, in
        # its connection's output).
        a = self.flood(60, lambda i, c: "record 7")
        first = wait_replies(a, 60, timeout=60)
        self.assertEqual(len(set(first.values())), 1, set(first.values()))
        self.assertTrue(first[0].startswith("ok "), first[0])
        # Three other records at once: two may be made at a time, the third is refused. The
        # three matches are loaded first and the lines sent back to back on connections opened
        # before: otherwise each request waits for its match's load (a replay of 300,000
        # plies), and the first record was sometimes made before the third match was loaded,
        # so the third was rightly accepted.
        for mid in (8, 9, 10):
            self.assertTrue(probe.ok("show %d" % mid).startswith("ply=%d " % self.PLIES))
        others = [Conn(self.server.port) for _ in range(3)]
        self.conns.extend(others)
        for i, c in enumerate(others):
            c.send("record %d" % (8 + i))
        made = wait_replies(others, 3, timeout=60)
        self.assertEqual(sorted(r.split()[0] for r in made.values()), ["err", "ok", "ok"], made)
        refused = [r for r in made.values() if r.startswith("err")]
        self.assertTrue(refused[0].startswith("err rate-limited "), refused)

        b = ws.WS(self.server.web_port, timeout=60, headers=BROWSER)
        m = Match(b, "halusa")
        t0 = time.monotonic()
        reply = b.ask("play %d 0 c1 %s" % (m.id, m.tokens[0]))
        self.assertTrue(reply.startswith("ok "), reply)
        # Before, the play waited for every record asked before it (31 s for 100 of them).
        self.assertLess(time.monotonic() - t0, 5)
        # The records made wait, unread: three of them, each connection holding its output's
        # 64 KB of its one; the record worker's replays (tens of MB of history) came and went.
        time.sleep(1)
        grown = self.rss_mb() - before
        print("# 63 unread records of 3 MB: the server grew by %.1f MB" % grown)
        self.assertLess(grown, 100, "the server grew by %.0f MB" % grown)
        b.close()


if __name__ == "__main__":
    import sys
    SERVER = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
