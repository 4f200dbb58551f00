#!/usr/bin/env python3
"""Long matches on tg-server (issue 28 item 4), run by test-tg-server.py in the same run.

A Halusa match of 300,000 plies (quiet=0, which `new` refuses but an older database may hold,
played into a cycle of 248 plies by a policy that never captures) is written as an old-format
log and migrated into the database, using the Python package over the library beside the
server for the moves. Then:

- a move in it costs what a move in a fresh match costs (the worker gets the position, not
  the history; before, every move cloned 300,000 plies of history on the loop): medians of
  the two in one run compared, with a generous factor;
- its `history` (about 900 KB, one line), `watch ID 0` and `record ID` arrive whole, over TCP
  and over WebSocket (fragmented: a line over 64 KB never reached a browser before), and the
  record over HTTP;
- `new` refuses quiet=0; `record` with a bad id is refused in words.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

import sibling

SERVER = None  # set by test-tg-server.py
PLIES = 300000

_here = os.path.dirname(os.path.abspath(__file__))
ws = sibling.load("tg_server_long_ws", "test-tg-server-ws.py")
base = ws.base


def library():
    """The Python package over the library built beside the server, or None."""
    lib = os.path.join(os.path.dirname(SERVER), os.pardir, "lib", "libtraditional-games.so")
    if not os.path.exists(lib):
        return None
    with open(lib, "rb") as f:
        if b"__asan_init" in f.read():
            return None  # an instrumented library: this interpreter cannot load it
    os.environ["TG_LIBRARY"] = os.path.abspath(lib)
    sys.path.insert(0, os.path.join(_here, os.pardir, os.pardir, "bindings", "python"))
    try:
        import traditional_games
    except ImportError:
        return None
    return traditional_games


def cycling_game(tg, spec, plies):
    """(move numbers, names) of `plies` plies: the first move that captures nothing and does
    not end the game (else the first move), each time, until a position comes back; then that
    cycle again."""
    s = tg.State(spec)
    seen, moves, names = {}, [], []
    while True:
        key = re.sub(r" quiet=\d+", "", s.to_string())
        if key in seen:
            start = seen[key]
            break
        seen[key] = s.ply
        pick = None
        for m in s.legal_moves():
            scores = s.scores
            s.apply(m)
            quiet = s.scores == scores and not s.is_terminal
            s.undo()
            if quiet:
                pick = m
                break
        if pick is None:  # a capture it cannot avoid
            pick = s.legal_moves()[0]
        moves.append(pick)
        names.append(s.move_to_string(pick))
        s.apply(pick)
    while len(moves) < plies:
        k = start + (len(moves) - start) % (len(seen) - start)
        moves.append(moves[k])
        names.append(names[k])
    return moves[:plies], names[:plies]


class LongMatchTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        base.SERVER = ws.SERVER = SERVER
        cls.tg = library()
        if cls.tg is None:
            raise unittest.SkipTest("no uninstrumented library beside the server for the "
                                    "Python package")
        cls.tmp = tempfile.TemporaryDirectory(prefix="tg-server-long-")
        logs = os.path.join(cls.tmp.name, "logs")
        os.mkdir(logs)
        cls.spec = "halusa:quiet=0"
        moves, cls.names = cycling_game(cls.tg, cls.spec, PLIES)
        with open(os.path.join(logs, "match-7.log"), "w") as f:
            f.write("tg-match 1 %s\n" % cls.spec)
            f.writelines("m %d %s\n" % (m, n) for m, n in zip(moves, cls.names))
        cls.db = os.path.join(cls.tmp.name, "long.db")
        out = subprocess.run([SERVER, "--db", cls.db, "--migrate-logs", logs],
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        cls.tokens = re.search(r"seat tokens (\w+) (\w+)", out.stdout)
        assert cls.tokens, out.stdout
        cls.tokens = [cls.tokens.group(1), cls.tokens.group(2)]
        cls.server = ws.WebServer(cls.db).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.tmp.cleanup()

    def test_a_move_in_a_long_match_costs_what_one_in_a_short_match_costs(self):
        c = base.Conn(self.server.port)
        self.assertTrue(c.ok("show 7").startswith("ply=%d " % PLIES))
        short = base.Match(c, "halusa")

        def move_times(mid, tokens, n):
            times = []
            for _ in range(n):
                info = base.show(c, mid)
                ply, turn = int(info["ply"]), int(info["turn"])
                move = c.ok("moves %d" % mid).split()[0]
                t0 = time.monotonic()
                c.ok("play %d %d %s %s" % (mid, ply, move, tokens[turn]))
                times.append(time.monotonic() - t0)
                if base.show(c, mid)["result"] != "running":
                    break
            return times

        long_times = move_times(7, self.tokens, 12)
        short_times = move_times(short.id, short.tokens, 12)
        a, b = statistics.median(long_times), statistics.median(short_times)
        print("# a move at ply %d: median %.1f ms; in a fresh match: %.1f ms"
              % (PLIES, a * 1000, b * 1000))
        # The old server copied 300,000 plies of history per move (about a second a move, 280
        # times a fresh match's); a factor of 10 and 100 ms more still tell the two apart, and
        # hold for medians on a busy 2-core machine and under the sanitizers.
        self.assertLess(a, 10 * b + 0.100)
        for _ in range(len(long_times)):  # the match back as it was, for the other tests
            ply = int(base.show(c, 7)["ply"])
            seat_asking = int(base.show(c, 7)["turn"])
            c.ok("undo 7 %d %s" % (ply, self.tokens[seat_asking]))
            c.ok("accept 7 %d %s" % (ply, self.tokens[1 - seat_asking]))
        self.assertEqual(int(base.show(c, 7)["ply"]), PLIES)
        c.close()

    def test_long_replies_arrive_whole_over_tcp_and_websocket(self):
        c = base.Conn(self.server.port)
        self.assertEqual(c.ok("history 7").split(), self.names)
        b = ws.WS(self.server.web_port, timeout=120)
        reply = b.ask("history 7")
        self.assertGreater(len(reply), 64 * 1024)
        self.assertGreater(b.fragments, 1)
        self.assertEqual(reply[3:].split(), self.names)
        first = b.ask("watch 7 0")
        self.assertTrue(first.startswith("ok watching ply=%d" % PLIES), first[:80])
        event = b.recv()
        self.assertEqual(event.split()[:4], ["event", "7", "moves", "0"])
        self.assertEqual(event.split()[4:], self.names)
        b.ask("unwatch 7")
        # The record: `ok N`, then N lines; the same over both doors, and it reads back.
        head = b.ask("record 7")
        lines = [b.recv() for _ in range(int(head.split()[1]))]
        text = "\n".join(lines) + "\n"
        c.send("record 7")
        n = int(c.read().split()[1])
        self.assertEqual([c.read() for _ in range(n)], lines)
        self.assertIn('[Rules "halusa:', text)
        self.assertIn('[Match "7"]', text)
        state = self.tg.State.from_record(text)
        self.assertEqual(state.ply, PLIES)
        with urllib.request.urlopen("http://127.0.0.1:%d/matches/7.tgr"
                                    % self.server.web_port, timeout=120) as r:
            self.assertEqual(r.read().decode(), text)
            self.assertTrue(r.headers["Content-Type"].startswith("text/plain"))
        b.close()
        c.close()

    def test_the_record_of_a_resigned_match(self):
        c = base.Conn(self.server.port)
        m = base.Match(c, "halusa")
        m.play(c, "c1")
        c.ok("resign %d %s" % (m.id, m.tokens[1]))
        n = int(c.ask("record %d" % m.id).split()[1])
        text = "\n".join(c.read() for _ in range(n)) + "\n"
        self.assertIn('[Match "%d"]\n' % m.id, text)
        self.assertIn('[ServerResult "1-0"]\n[ServerEnd "resignation"]\n', text)
        self.assertIn('[Result "*"]', text)  # the rules' own: the game itself did not end
        self.assertTrue(text.rstrip().endswith("1. c1 *"), text)
        self.assertEqual(self.tg.State.from_record(text).ply, 1)
        c.close()

    def test_bad_input(self):
        c = base.Conn(self.server.port)
        for line, word in (("record", "err usage"), ("record 0", "err no-such-match"),
                           ("record abc", "err no-such-match"),
                           ("record 99999", "err no-such-match"), ("record 7 8", "err usage"),
                           ("new halusa:quiet=0", "err bad-option"),
                           ("new hus:quiet=0", "err bad-option")):
            self.assertTrue(c.ask(line).startswith(word + " "), line)
        for path in ("/matches/0.tgr", "/matches/99999.tgr", "/matches/x.tgr",
                     "/matches/7.tgrx", "/matches/007.tgr"):
            with self.assertRaises(urllib.error.HTTPError) as e:
                urllib.request.urlopen("http://127.0.0.1:%d%s" % (self.server.web_port, path),
                                       timeout=30)
            self.assertEqual(e.exception.code, 404, path)
        c.close()
