#!/usr/bin/env python3
"""Tests of the example match server, tg-server, run against the real binary on loopback.

    test-tg-server.py PATH-TO-TG-SERVER

- 200 complete matches of all five games over 20 concurrent client connections; the server
  is killed with SIGKILL three times at random moments, restarted on the same database, and
  every acknowledged change must still be there when the matches are played to their end;
- damaged rows and damaged database pages: those matches are set aside and reported, the
  others are served exactly as acknowledged;
- seats: a wrong or missing token never moves, reading needs none; the server throws the
  sticks; stale plies are rejected; undo is a request the other seat accepts;
- bot searches and a move that never ends run on workers while other clients are answered
  within 50 ms; idle connections time out; connection and match limits answer an error;
- every hostile input of issue 20 (garbage, overlong lines, forged throws, damaged logs for
  the migration) gets a clear error.

Prints (as TAP comments) the throughput in acknowledged moves per second and the time the
server took to come back after SIGKILL.
"""
import os
import random
import resource
import select
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import unittest

SERVER = None  # set from argv
GAMES = ["halusa", "hus", "hawalis", "walak-pussa", "tab"]


class Server:
    """One tg-server process on a fresh port over a database file."""

    def __init__(self, db, *extra, limit_files=None, port_file=None):
        self.db = db
        self.port_file = port_file or db + ".port"  # a PostgreSQL conninfo names no file
        self.extra = list(extra)
        # The other tests make matches and undo requests as fast as they can from one address:
        # budgets out of their way, unless a test sets its own (test-tg-server-limits.py).
        if "--rate" not in self.extra:
            self.extra += ["--rate", "1000000"]
        if "--address-rate" not in self.extra:
            self.extra += ["--address-rate", "1000000"]
        self.limit_files = limit_files
        self.proc = None
        self.port = None

    def start(self):
        port_file = self.port_file
        if os.path.exists(port_file):
            os.unlink(port_file)
        t0 = time.monotonic()
        preexec = None
        if self.limit_files:
            n = self.limit_files
            preexec = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))  # noqa: E731
        self.proc = subprocess.Popen(
            [SERVER, "--port", "0", "--db", self.db, "--port-file", port_file] + self.extra,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=preexec)
        while not os.path.exists(port_file):
            if self.proc.poll() is not None:
                raise RuntimeError("tg-server exited: " + self.proc.stderr.read())
            if time.monotonic() - t0 > 20:
                raise RuntimeError("tg-server did not start")
            time.sleep(0.002)
        self.started_in = time.monotonic() - t0
        with open(port_file) as f:
            self.port = int(f.read())
        self.banner = self.proc.stdout.readline().strip()
        return self

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()

    def stop(self, timeout=20):
        self.proc.send_signal(signal.SIGTERM)
        out, err = self.proc.communicate(timeout=timeout)
        if self.proc.returncode != 0:
            raise RuntimeError("tg-server stopped with %d: %s" % (self.proc.returncode, err))
        return err


class Conn:
    """A line-based client connection."""

    def __init__(self, port, timeout=120):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.file = self.sock.makefile("rb")

    def send(self, line):
        self.sock.sendall(line.encode() + b"\n")

    def read(self):
        reply = self.file.readline()
        if not reply.endswith(b"\n"):
            raise ConnectionError("connection closed")
        return reply.decode().rstrip("\n")

    def ask(self, line):
        self.send(line)
        return self.read()

    def ok(self, line):
        reply = self.ask(line)
        if not reply.startswith("ok"):
            raise AssertionError("%r -> %r" % (line, reply))
        return reply[3:]

    def close(self):
        try:
            self.file.close()
            self.sock.close()
        except OSError:
            pass


def show(conn, mid):
    fields = {}
    reply = conn.ok("show %d" % mid)
    head, _, position = reply.partition(" position=")
    for item in head.split():
        k, _, v = item.partition("=")
        fields[k] = v
    fields["position"] = position
    return fields


def new_match(conn, spec):
    """Creates a match and joins its other seat from a second connection (the creator's own may
    not): (id, [token of seat 0, token of seat 1])."""
    mid, token, invite = conn.ok("new " + spec).split()
    guest = type(conn)(conn.sock.getpeername()[1])  # a line connection, or a WebSocket
    seat, other = guest.ok("join %s %s" % (mid, invite)).split()
    guest.close()
    tokens = [token, other] if seat == "1" else [other, token]
    return int(mid), tokens


class Match:
    """A match as its two seats see it: its id and the two tokens."""

    def __init__(self, conn, spec):
        self.id, self.tokens = new_match(conn, spec)

    def state(self, conn):
        info = show(conn, self.id)
        return int(info["ply"]), info["turn"], info

    def play(self, conn, move):
        """Plays a move for the seat to move; returns the words of the reply."""
        ply, turn, _ = self.state(conn)
        return conn.ok("play %d %d %s %s" % (self.id, ply, move, self.tokens[int(turn)])).split()


def last_decision(history):
    for i in range(len(history) - 1, -1, -1):
        if not history[i].startswith("throw:"):
            return i
    return None


class Player(threading.Thread):
    """Plays its share of matches to the end, surviving a server restart.

    It keeps, per match, the plies the server acknowledged (its throws included). After a lost
    connection it waits for the server to come back and checks that the server's history is
    exactly that, or that plus the one change in flight (which may have become durable
    without its acknowledgement reaching us)."""

    def __init__(self, harness, index, matches):
        super().__init__(daemon=True)
        self.h = harness
        self.index = index
        self.todo = matches  # game specs to play, in order
        self.rng = random.Random(1000 + index)
        self.acked = {}  # match id -> list of acknowledged plies, or None before it was read
        self.tokens = {}
        self.finished = []
        self.error = None
        self.acks = 0
        self.recoveries = 0

    def run(self):
        try:
            self.play_all()
        except BaseException as e:  # reported by the main thread
            self.error = "player %d: %r" % (self.index, e)

    def connect(self):
        while True:
            self.h.up.wait()
            try:
                return Conn(self.h.server.port)
            except OSError:
                time.sleep(0.01)

    def step(self, conn, mid):
        """One change to the match, or None once it is over."""
        if self.acked[mid] is None:
            self.acked[mid] = conn.ok("history %d" % mid).split()
        info = show(conn, mid)
        if info["result"] != "running":
            return "over", info
        acked = self.acked[mid]
        ply, turn = int(info["ply"]), int(info["turn"])
        assert ply == len(acked), (mid, info, acked)
        me, other = self.tokens[mid][turn], self.tokens[mid][1 - turn]
        roll = self.rng.random()
        keep = last_decision(acked)
        if roll < 0.01 and keep is not None:
            # Asked by the seat to move, accepted by the other: not durable until accepted.
            conn.ok("undo %d %d %s" % (mid, ply, me))
            self.in_flight = ("undo", keep)
            new_ply = int(conn.ok("accept %d %d %s" % (mid, ply, other)))
            assert new_ply == keep, (new_ply, keep)
            del acked[keep:]
        elif roll < 0.012 and len(acked) > 10:
            self.in_flight = ("resign",)
            conn.ok("resign %d %s" % (mid, me))
        else:
            if roll < 0.06:
                line = "bot %d %d greedy %s" % (mid, ply, me)
            else:
                moves = conn.ok("moves %d" % mid).split()
                line = "play %d %d %s %s" % (mid, ply, self.rng.choice(moves), me)
            self.in_flight = ("play",)
            acked.extend(conn.ok(line).split())
        self.in_flight = None
        return "changed", None

    def play_all(self):
        conn = self.connect()
        mid = None
        self.in_flight = None
        while self.todo or mid is not None:
            try:
                if mid is None:
                    mid, self.tokens_of_new = new_match(conn, self.todo[0])
                    self.todo.pop(0)
                    self.tokens[mid] = self.tokens_of_new
                    self.acked[mid] = None
                    continue
                what, info = self.step(conn, mid)
                if what == "over":
                    self.finished.append((mid, info["result"]))
                    mid = None
                    continue
                self.acks += 1
            except (ConnectionError, OSError):
                conn.close()
                self.h.lost.set()
                conn = self.connect()
                self.recoveries += 1
                if mid is not None:
                    self.check_after_restart(conn, mid, self.in_flight)
                self.in_flight = None
        conn.close()

    def check_after_restart(self, conn, mid, in_flight):
        history = conn.ok("history %d" % mid).split()
        acked = self.acked[mid]
        if acked is None or history == acked:
            self.acked[mid] = history
            return
        kind = in_flight[0] if in_flight else None
        if kind == "play" and history[:len(acked)] == acked and len(history) > len(acked):
            self.acked[mid] = history  # durable, though its acknowledgement was lost
            return
        if kind == "undo" and history == acked[:in_flight[1]]:
            self.acked[mid] = history
            return
        raise AssertionError("match %d after restart: history %r, acknowledged %r (in flight %r)"
                             % (mid, history, acked, in_flight))


class Harness:
    def __init__(self, server):
        self.server = server
        self.up = threading.Event()
        self.lost = threading.Event()


class ServerTestCase(unittest.TestCase):
    server_args = ()

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="tg-server-test-")
        self.db = os.path.join(self.tmp.name, "matches.db")
        self.server = Server(self.db, *self.server_args).start()

    def tearDown(self):
        if self.server.proc.poll() is None:
            self.server.stop()
        self.tmp.cleanup()

    def restart(self):
        self.server.stop()
        self.server = Server(self.db, *self.server_args).start()

    def assertReply(self, reply, want, context=""):
        self.assertTrue(reply.startswith(want), "%s%r, want %r" % (context, reply, want))


class CrashTest(ServerTestCase):
    def test_200_matches_20_clients_sigkill_and_restart(self):
        h = Harness(self.server)
        h.up.set()
        n_clients, n_matches = 20, 200
        plan = [GAMES[i % len(GAMES)] for i in range(n_matches)]
        players = [Player(h, i, plan[i::n_clients]) for i in range(n_clients)]
        t0 = time.monotonic()
        for p in players:
            p.start()
        # Kill the server three times at random moments while the clients play.
        rng = random.Random(20)
        acks_before = elapsed_before = None
        for threshold in sorted(rng.randrange(1500, 9000) for _ in range(3)):
            while sum(p.acks for p in players) < threshold and any(p.is_alive() for p in players):
                time.sleep(0.001)
            self.assertTrue(any(p.is_alive() for p in players), "the matches ended before a kill")
            if acks_before is None:
                acks_before = sum(p.acks for p in players)
                elapsed_before = time.monotonic() - t0
            time.sleep(rng.random() * 0.01)
            h.up.clear()
            self.server.kill()
            killed = time.monotonic()
            self.server.start()
            recovery = time.monotonic() - killed
            h.up.set()
        for p in players:
            p.join(timeout=600)
        errors = [p.error for p in players if p.error] + \
                 ["player %d still running" % p.index for p in players if p.is_alive()]
        self.assertEqual(errors, [])
        total = sum(p.acks for p in players)
        finished = [f for p in players for f in p.finished]
        self.assertEqual(len(finished), n_matches)
        self.assertGreater(sum(p.recoveries for p in players), 0)
        # Every match's final history, as the restarted server has it, is what was acknowledged.
        conn = Conn(self.server.port)
        for p in players:
            for mid, plies in p.acked.items():
                self.assertEqual(conn.ok("history %d" % mid).split(), plies, "match %d" % mid)
                self.assertNotEqual(show(conn, mid)["result"], "running")
        self.assertIn("set-aside=0", conn.ok("status"))
        conn.close()
        print("# %d matches, %d acknowledged changes by 20 clients; %.0f acknowledged per second "
              "before the kill (each answered after its commit)"
              % (n_matches, total, acks_before / elapsed_before))
        print("# restart after SIGKILL: %.1f ms until the server accepted clients (%s)"
              % (recovery * 1000, self.server.banner))


class ProtocolTest(ServerTestCase):
    def test_bad_input_gets_errors_and_the_server_keeps_serving(self):
        c = Conn(self.server.port)
        m = Match(c, "halusa")
        mid, t0, t1 = m.id, m.tokens[0], m.tokens[1]
        before = show(c, mid)
        cases = [
            ("frobnicate", "err unknown-command"),
            ("\x01\x02\xff garbage", "err unknown-command"),
            ("new", "err usage"),  # a known command with the wrong number of arguments
            ("new no-such-game", "err unknown-game"),
            ("new halusa:quiet=99999", "err bad-option"),
            # Relay games without a lap limit (or with a huge one) could make a move endless.
            ("new hus:laps=0", "err bad-option"),
            ("new hawalis:laps=1000000000", "err bad-option"),
            ("play %d 0 c1" % mid, "err token-required"),
            ("play %d c1" % mid, "err usage"),
            ("play 999999 0 a1 %s" % t0, "err no-such-match"),
            ("play 0 0 a1 %s" % t0, "err no-such-match"),
            ("play -1 0 a1 %s" % t0, "err no-such-match"),
            ("play 1x 0 a1 %s" % t0, "err no-such-match"),
            ("play 18446744073709551616 0 a1 %s" % t0, "err no-such-match"),
            ("show 18446744073709551615", "err no-such-match"),
            ("show 424242", "err no-such-match"),
            ("play %d 0 z9 %s" % (mid, t0), "err parse"),
            ("play %d 0 a2 %s" % (mid, t0), "err illegal-move"),
            ("play %d 0 c1 %s" % (mid, t1), "err not-your-turn"),
            ("play %d 0 c1 %s" % (mid, "0" * 32), "err bad-token"),
            ("play %d 0 c1 %s" % (mid, t0[:-1]), "err bad-token"),
            ("play %d 0 c1 %s" % (mid, t0 + "0"), "err bad-token"),
            ("play %d x c1 %s" % (mid, t0), "err usage"),
            ("play %d 1 c1 %s" % (mid, t0), "err stale-ply"),
            ("undo %d 0 %s" % (mid, t0), "err no-history"),
            ("accept %d 0 %s" % (mid, t1), "err no-undo-request"),
            ("bot %d 0 nosuchbot %s" % (mid, t0), "err bad-option"),
            ("bot %d 0 mcts:iterations=9999999 %s" % (mid, t0), "err bot-too-slow"),
            ("resign %d" % mid, "err token-required"),
            ("resign %d 0" % mid, "err bad-token"),
            ("moves %d extra" % mid, "err usage"),
            ("list x", "err usage"),
        ]
        for line, want in cases:
            self.assertReply(c.ask(line), want, "%r -> " % line)
        self.assertEqual(show(c, mid), before)
        self.assertEqual(c.ok("history %d" % mid), "")
        # An overlong line: one error, and the next line is served normally.
        c.sock.sendall(b"play " + b"x" * 5000 + b"\nshow %d\n" % mid)
        self.assertTrue(c.file.readline().startswith(b"err line-too-long"))
        self.assertTrue(c.file.readline().startswith(b"ok ply=0"))
        # A huge line with no newline at all, from a second client, then it disconnects.
        g = socket.create_connection(("127.0.0.1", self.server.port))
        g.sendall(os.urandom(200000).replace(b"\n", b"."))
        g.close()
        # Blank and CRLF lines.
        c.sock.sendall(b"\n\r\n")
        self.assertEqual(c.ok("list").split(), [str(mid)])
        self.assertEqual(c.ok("play %d 0 c1 %s\r" % (mid, t0)), "c1")
        # A finished match refuses changes but still answers questions.
        c.ok("resign %d %s" % (mid, t1))
        self.assertReply(c.ask("play %d 1 a2 %s" % (mid, t1)), "err game-over")
        self.assertReply(c.ask("undo %d 1 %s" % (mid, t0)), "err game-over")
        self.assertReply(c.ask("resign %d %s" % (mid, t0)), "err game-over")
        self.assertEqual(show(c, mid)["result"], "0")
        self.assertEqual(c.ok("quit"), "bye")
        c.close()
        c2 = Conn(self.server.port)
        self.assertEqual(c2.ok("history %d" % mid), "c1")
        self.assertIn("commands:", c2.ok("help"))
        c2.close()

    def test_a_slow_client_does_not_block_the_others(self):
        slow = socket.create_connection(("127.0.0.1", self.server.port))
        maker = Conn(self.server.port)
        mid = Match(maker, "tab:width=29").id
        maker.close()
        # Tens of thousands of commands whose replies the slow client never reads.
        slow.setblocking(False)
        flood = ("show %d\n" % mid).encode() * 20000
        sent = 0
        deadline = time.monotonic() + 5
        while sent < len(flood) and time.monotonic() < deadline:
            try:
                sent += slow.send(flood[sent:])
            except BlockingIOError:
                time.sleep(0.01)
        quick = Conn(self.server.port)
        t0 = time.monotonic()
        for _ in range(50):
            quick.ok("show %d" % mid)
        self.assertLess(time.monotonic() - t0, 5.0)
        quick.close()
        slow.close()

    def test_pipelined_commands_are_answered_in_order(self):
        c = Conn(self.server.port)
        c.sock.sendall(b"new halusa\nstatus\nnew walak-pussa\nlist\nhistory 1\nshow 2\n")
        replies = [c.read() for _ in range(6)]
        self.assertEqual([r.split()[:2] for r in replies[:4:2]], [["ok", "1"], ["ok", "2"]])
        self.assertTrue(replies[1].startswith("ok matches=1 "), replies)
        self.assertEqual(replies[3], "ok 1 2")
        self.assertEqual(replies[4], "ok")
        self.assertTrue(replies[5].startswith("ok ply=0 turn=0"), replies)
        c.close()

    def test_seats_tokens_and_readers(self):
        owner, reader = Conn(self.server.port), Conn(self.server.port)
        m = Match(owner, "walak-pussa")
        history = []
        rng = random.Random(5)
        for _ in range(12):
            ply, turn, info = m.state(reader)
            if info["result"] != "running":
                break
            move = rng.choice(reader.ok("moves %d" % m.id).split())
            me, other = m.tokens[int(turn)], m.tokens[1 - int(turn)]
            # Everything but the right token at the right ply leaves the match as it was.
            for line, want in [
                ("play %d %d %s" % (m.id, ply, move), "err token-required"),
                ("play %d %d %s %s" % (m.id, ply, move, other), "err not-your-turn"),
                ("play %d %d %s %s" % (m.id, ply, move, "f" * 32), "err bad-token"),
                ("play %d %d %s %s" % (m.id, ply, move, me.upper()), "err bad-token"),
                ("bot %d %d random %s" % (m.id, ply, other), "err not-your-turn"),
                ("resign %d %s" % (m.id, "a" * 32), "err bad-token"),
                ("play %d %d %s %s" % (m.id, ply + 1, move, me), "err stale-ply"),
            ]:
                self.assertReply(reader.ask(line), want, "%r -> " % line)
            self.assertEqual(reader.ok("history %d" % m.id).split(), history)
            history += reader.ok("play %d %d %s %s" % (m.id, ply, move, me)).split()
        self.assertEqual(owner.ok("history %d" % m.id).split(), history)
        # Undo is a request: the requester cannot accept it, a decline ends it, a change to
        # the match cancels it, and only an acceptance by the other seat takes a move back.
        ply, turn, _ = m.state(reader)
        me, other = m.tokens[int(turn)], m.tokens[1 - int(turn)]
        self.assertEqual(reader.ok("undo %d %d %s" % (m.id, ply, me)), "requested")
        self.assertReply(reader.ask("undo %d %d %s" % (m.id, ply, other)), "err undo-pending")
        self.assertIn("undo-requested-by=%s" % turn, reader.ok("show %d" % m.id))
        self.assertReply(reader.ask("accept %d %d %s" % (m.id, ply, me)), "err not-your-turn")
        self.assertEqual(reader.ok("decline %d %d %s" % (m.id, ply, other)), "declined")
        self.assertReply(reader.ask("accept %d %d %s" % (m.id, ply, other)),
                         "err no-undo-request")
        self.assertEqual(reader.ok("history %d" % m.id).split(), history)
        self.assertEqual(reader.ok("undo %d %d %s" % (m.id, ply, other)), "requested")
        self.assertReply(reader.ask("accept %d %d %s" % (m.id, ply - 1, me)), "err stale-ply")
        self.assertEqual(int(reader.ok("accept %d %d %s" % (m.id, ply, me))), ply - 1)
        self.assertEqual(reader.ok("history %d" % m.id).split(), history[:-1])
        owner.close()
        reader.close()

    def test_two_clients_race_for_one_ply(self):
        a, b = Conn(self.server.port), Conn(self.server.port)
        m = Match(a, "halusa")
        for _ in range(20):
            ply, turn, info = m.state(a)
            if info["result"] != "running":
                break
            moves = a.ok("moves %d" % m.id).split()
            token = m.tokens[int(turn)]
            a.send("play %d %d %s %s" % (m.id, ply, moves[0], token))
            b.send("play %d %d %s %s" % (m.id, ply, moves[-1], token))
            replies = [a.read(), b.read()]
            oks = [r for r in replies if r.startswith("ok")]
            self.assertEqual(len(oks), 1, replies)
            other = [r for r in replies if not r.startswith("ok")][0]
            self.assertTrue(other.startswith("err busy") or other.startswith("err stale-ply"),
                            other)
        a.close()
        b.close()

    def test_the_server_throws_the_sticks(self):
        c = Conn(self.server.port)
        firsts = []
        for _ in range(40):
            m = Match(c, "tab")
            history = c.ok("history %d" % m.id).split()
            self.assertTrue(history and all(h.startswith("throw:") for h in history), history)
            firsts.append(history[0])
            ply, turn, info = m.state(c)
            self.assertIn(turn, ("0", "1"))  # a decision: the throws are already made
            for forged in ("throw:6", "throw:1", "throw:4", "throw"):
                self.assertReply(c.ask("play %d %d %s %s" % (m.id, ply, forged, m.tokens[int(turn)])),
                                 "err server-throws")
            self.assertEqual(c.ok("history %d" % m.id).split(), history)
        self.assertGreater(len(set(firsts)), 1, "40 first throws all alike")
        # Playing on: every throw is the server's, recorded as a row with no seat.
        m = Match(c, "tab")
        for _ in range(30):
            ply, turn, info = m.state(c)
            if info["result"] != "running":
                break
            move = c.ok("moves %d" % m.id).split()[0]
            c.ok("play %d %d %s %s" % (m.id, ply, move, m.tokens[int(turn)]))
        history = c.ok("history %d" % m.id).split()
        c.close()
        self.server.stop()
        db = sqlite3.connect(self.db)
        rows = db.execute("SELECT notation, seat FROM moves WHERE match_id = ? ORDER BY ply",
                          (m.id,)).fetchall()
        db.close()
        self.assertEqual([r[0] for r in rows], history)
        for notation, seat in rows:
            self.assertEqual(seat is None, notation.startswith("throw:"), (notation, seat))
        self.server = Server(self.db).start()


class LimitsTest(ServerTestCase):
    server_args = ("--idle-timeout", "1", "--max-clients", "6", "--max-matches", "4",
                   "--max-loaded", "2")

    def test_idle_timeouts_and_limits(self):
        idle = [Conn(self.server.port) for _ in range(6)]
        time.sleep(0.2)
        extra = Conn(self.server.port)
        self.assertReply(extra.read(), "err too-many-clients")
        extra.close()
        # A client trickling a line that never ends is idle too.
        idle[0].sock.sendall(b"sho")
        time.sleep(0.5)
        idle[0].sock.sendall(b"w")
        t0 = time.monotonic()
        for c in idle:
            self.assertReply(c.read(), "err idle-timeout")
            self.assertRaises(ConnectionError, c.read)
            c.close()
        self.assertLess(time.monotonic() - t0, 5)
        c = Conn(self.server.port)
        ids = [Match(c, "halusa").id for _ in range(4)]
        self.assertReply(c.ask("new halusa"), "err match-limit")
        self.assertEqual(c.ok("list").split(), [str(i) for i in ids])
        # At most two in memory: the others are unloaded and come back when asked for.
        for mid in ids + ids:
            self.assertEqual(show(c, mid)["ply"], "0")
            self.assertIn("loaded=", c.ok("status"))
            self.assertLessEqual(int(c.ok("status").split("loaded=")[1].split()[0]), 2)
        c.close()


class FewDescriptorsTest(ServerTestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="tg-server-test-")
        self.db = os.path.join(self.tmp.name, "matches.db")
        self.server = Server(self.db, "--max-clients-per-address", "100",
                             limit_files=48).start()

    def test_matches_cost_no_descriptors(self):
        """The file-log server held one descriptor per running match; now 300 running matches
        under a 48-descriptor limit are all served."""
        c = Conn(self.server.port)
        matches = [Match(c, "halusa") for _ in range(300)]
        for m in matches:
            self.assertEqual(m.play(c, "c1"), ["c1"])
        self.assertIn("matches=300", c.ok("status"))
        # Clients beyond what the descriptors allow are told so, not left hanging.
        extra = [Conn(self.server.port) for _ in range(30)]
        replies = [e.read() for e in extra[15:]]  # 48 descriptors: 16 clients
        self.assertTrue(all(r.startswith("err too-many-clients") for r in replies), replies)
        for e in extra:
            e.close()
        c.close()
        self.assertIn("--max-clients lowered", self.server.stop())
        self.server = Server(self.db, "--max-clients-per-address", "100",
                             limit_files=48).start()


class WorkersTest(ServerTestCase):
    server_args = ("--max-bot-iterations", "10000000", "--bot-threads", "2", "--move-threads", "3")

    def latencies(self, conn, mid, samples=40):
        out = []
        for _ in range(samples):
            t0 = time.monotonic()
            conn.ok("show %d" % mid)
            out.append(time.monotonic() - t0)
            time.sleep(0.01)
        return out

    def test_searches_and_endless_moves_do_not_block_other_clients(self):
        c, reader = Conn(self.server.port), Conn(self.server.port)
        quiet = Match(c, "halusa")
        # A long search on each bot worker: seconds, whatever the library's speed. (Positions
        # with a choice: a bot with one legal move answers without searching.)
        searches = []
        for spec in ("walak-pussa", "hus:width=12"):
            m = Match(c, spec)
            ply, turn, _ = m.state(c)
            s = Conn(self.server.port)
            s.send("bot %d %d mcts:iterations=3000000 %s" % (m.id, ply, m.tokens[int(turn)]))
            searches.append(s)
        # Issue 20's move that never ended (Hus 12 wide), sent whole: its last play runs on
        # a move worker for as long as it takes (under a lap limit the library ends it
        # quickly, without one it runs for good), and is never waited for here.
        hus = Match(c, "hus:width=12")
        stuck = Conn(self.server.port)
        line = "h1 l4 k1 a3 a1 e3 l1 g3 l2 h3 e1 c4 k2 f4 f1 h3 d1 d4 j1 g4 k1 l4 b1 i3 f1 e4"
        for move in line.split()[:-1]:
            hus.play(c, move)
        ply, turn, _ = hus.state(c)
        stuck.send("play %d %d %s %s" % (hus.id, ply, line.split()[-1], hus.tokens[int(turn)]))
        time.sleep(0.2)
        # The match being changed still answers reads, from its last committed position.
        self.assertIn(int(show(reader, hus.id)["ply"]), (ply, ply + 1))
        lat = self.latencies(reader, quiet.id)
        # And other matches still take moves.
        self.assertEqual(quiet.play(reader, "c1"), ["c1"])
        status = reader.ok("status")
        self.assertIn("bot-jobs=2", status)
        lat.sort()
        print("# show while two searches and an endless move run: p50 %.1f ms, max %.1f ms"
              % (lat[len(lat) // 2] * 1000, lat[-1] * 1000))
        self.assertLess(lat[len(lat) // 2], 0.050)
        self.assertLess(lat[int(len(lat) * 0.9)], 0.050)
        # A stop does not wait for them: the moves are abandoned, never acknowledged.
        t0 = time.monotonic()
        self.server.stop(timeout=30)
        self.assertLess(time.monotonic() - t0, 15)
        for s in searches + [stuck, c, reader]:
            s.close()
        self.server = Server(self.db, *self.server_args).start()
        c = Conn(self.server.port)
        self.assertIn(int(show(c, hus.id)["ply"]), (ply, ply + 1))
        c.close()

    def test_zanzibar_hawalis_slow_position(self):
        """Issue 20: after these moves each play and greedy bot cost seconds; reads of this
        and other matches stay prompt meanwhile."""
        c, reader = Conn(self.server.port), Conn(self.server.port)
        quiet = Match(c, "walak-pussa")
        m = Match(c, "hawalis:variant=zanzibar")
        for move in "a2 e4 c2 g4 f2 c4 b1 b3 h1".split():
            ply, turn, _ = m.state(reader)
            c.send("play %d %d %s %s" % (m.id, ply, move, m.tokens[int(turn)]))
            while not select.select([c.sock], [], [], 0.02)[0]:
                t0 = time.monotonic()  # reads answered while the move is being made
                show(reader, quiet.id)
                self.assertLess(time.monotonic() - t0, 0.5)
            self.assertReply(c.read(), "ok")
        ply, turn, _ = m.state(reader)
        if turn in ("0", "1"):  # (a lap limit may have ended the game by now)
            c.send("bot %d %d greedy %s" % (m.id, ply, m.tokens[int(turn)]))
        lat = self.latencies(reader, quiet.id, 20)
        self.assertEqual(reader.ok("history %d" % m.id).split()[:9],
                         "a2 e4 c2 g4 f2 c4 b1 b3 h1".split())
        lat.sort()
        self.assertLess(lat[len(lat) // 2], 0.050)
        c.close()
        reader.close()


class DamageTest(ServerTestCase):
    server_args = ("--unload-after", "0")  # idle matches leave memory within a second

    def make_matches(self, n, plies=6):
        c = Conn(self.server.port)
        made = {}
        rng = random.Random(11)
        for i in range(n):
            m = Match(c, GAMES[i % 4])  # the mancala games: no throws to tell apart
            for _ in range(plies):
                ply, turn, info = m.state(c)
                if info["result"] != "running":
                    break
                m.play(c, rng.choice(c.ok("moves %d" % m.id).split()))
            made[m.id] = (m, c.ok("history %d" % m.id).split(), show(c, m.id))
        c.close()
        return made

    def wait_unloaded(self):
        c = Conn(self.server.port)
        deadline = time.monotonic() + 10
        while "loaded=0 " not in c.ok("status"):
            self.assertLess(time.monotonic(), deadline, "matches stay loaded")
            time.sleep(0.1)
        c.close()

    def test_damaged_rows_are_set_aside(self):
        """Rows damaged behind the running server's back (SQLite lets another connection
        write to the database between the server's rounds)."""
        made = self.make_matches(12)
        ids = sorted(made)
        self.wait_unloaded()
        db = sqlite3.connect(self.db, timeout=30)
        damage = {
            ids[0]: "UPDATE moves SET hash_after = hash_after + 1 WHERE match_id = ? AND ply = 2",
            ids[1]: "UPDATE moves SET notation = 'z' || char(10) || 'z' WHERE match_id = ? "
                    "AND ply = 1",
            ids[2]: "UPDATE moves SET move = 999 WHERE match_id = ? AND ply = 0",
            ids[3]: "DELETE FROM moves WHERE match_id = ? AND ply = 3",
            ids[4]: "UPDATE matches SET spec = 'no-such-game' WHERE id = ?",
            ids[5]: "DELETE FROM seats WHERE match_id = ? AND seat = 1",
            ids[6]: "INSERT INTO results VALUES (?, 1, 'rules', 6, 0, 0, 0)",
            ids[7]: "UPDATE moves SET seat = 1 - seat WHERE match_id = ? AND ply = 4",
            # Every remaining row is valid: only the match's count of plies tells.
            ids[8]: "DELETE FROM moves WHERE match_id = ?1 AND "
                    "ply = (SELECT max(ply) FROM moves WHERE match_id = ?1)",
        }
        for mid, sql in damage.items():
            db.execute(sql, (mid,))
        db.commit()
        db.close()
        c = Conn(self.server.port)
        for mid, (m, history, info) in made.items():
            if mid in damage:
                self.assertReply(c.ask("show %d" % mid), "err set-aside", "match %d: " % mid)
                self.assertReply(c.ask("play %d 6 a1 %s" % (mid, m.tokens[0])), "err set-aside")
            else:
                self.assertEqual(c.ok("history %d" % mid).split(), history)
                self.assertEqual(show(c, mid), info)
        status = c.ok("status")
        self.assertIn("set-aside=%d:" % len(damage), status)
        self.assertEqual(sorted(int(i) for i in status.split(":")[1].split(",")), sorted(damage))
        Match(c, "halusa")  # and the server keeps taking new matches
        c.close()
        # The marks are in the database: the next start reports them at once.
        self.restart()
        self.assertIn("%d set aside" % len(damage), self.server.banner)

    def test_check_finds_damage_before_serving(self):
        made = self.make_matches(4)
        self.server.stop()
        db = sqlite3.connect(self.db)
        db.execute("UPDATE moves SET hash_after = 5 WHERE match_id = ? AND ply = 1", (min(made),))
        db.commit()
        db.close()
        self.server = Server(self.db, "--check").start()
        self.assertIn("1 set aside (%d)" % min(made), self.server.banner)
        err = self.server.stop()
        self.assertIn("integrity_check: ok", err)
        self.assertIn("match %d set aside: ply 1" % min(made), err)
        self.server = Server(self.db).start()

    def test_damaged_pages_are_set_aside(self):
        made = self.make_matches(150, plies=12)
        self.server.stop()
        page_size = 4096
        db = sqlite3.connect(self.db)
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        try:
            pages = [r[0] for r in db.execute(
                "SELECT pageno FROM dbstat WHERE name = 'moves' AND pagetype = 'leaf'")]
        except sqlite3.OperationalError:  # no dbstat: any page but the first few
            count = db.execute("PRAGMA page_count").fetchone()[0]
            pages = list(range(count // 3, count + 1))
        db.close()
        self.assertGreater(len(pages), 4)
        rng = random.Random(3)
        with open(self.db, "r+b") as f:
            for page in rng.sample(pages, 3):
                f.seek((page - 1) * page_size + 100)
                f.write(os.urandom(page_size - 200))
        self.server = Server(self.db, *self.server_args).start()
        c = Conn(self.server.port)
        served = aside = 0
        for mid, (m, history, info) in sorted(made.items()):
            reply = c.ask("history %d" % mid)
            if reply.startswith("err set-aside"):
                aside += 1
                continue
            self.assertEqual(reply[3:].split(), history, "match %d" % mid)
            served += 1
        self.assertGreater(aside, 0)
        self.assertGreater(served, 0)
        self.assertIn("set-aside=%d" % aside, c.ok("status"))
        fresh = Match(c, "halusa")  # the server keeps taking new matches and moves
        self.assertEqual(fresh.play(c, "c1"), ["c1"])
        print("# 3 damaged pages of moves: %d matches set aside, %d served intact" % (aside, served))
        c.close()


class MigrationTest(unittest.TestCase):
    def test_old_logs_migrate_and_hostile_logs_are_reported(self):
        with tempfile.TemporaryDirectory(prefix="tg-server-migrate-") as tmp:
            logs = os.path.join(tmp, "logs")
            os.mkdir(logs)
            header = "tg-match 1 halusa:remainder=last-mover,quiet=100\n"

            def log(name, body, raw=None):
                with open(os.path.join(logs, name), "wb") as f:
                    f.write(raw if raw is not None else (header + body).encode())

            log("match-1.log", "m 2 c1\nm 6 a2\nm 0 a1\n")
            log("match-2.log", "m 2 c1\nm 6 a2\nu\nr 1\n")
            log("match-3.log", "m 2 c1\nm 6 a")  # a torn last record: never acknowledged
            log("match-4.log", None, (header + "m 2 c1\n").encode() + b"\0" * 16 + b"\nm 6 a2\n")
            log("match-5.log", "m 2 c1\nm 99 zz\n")  # a record that does not replay
            log("match-01.log", "m 0 a1\n")  # would silently have replaced match-1
            log("match-18446744073709551615.log", "")
            log("match-1000000000.log", "m 5 f1\n")
            log("match-6.log", None, b"tg-match 1 halusa")  # a creation never acknowledged
            db = os.path.join(tmp, "matches.db")
            run = subprocess.run([SERVER, "--db", db, "--migrate-logs", logs],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 timeout=60)
            out = run.stdout
            self.assertEqual(run.returncode, 1, out + run.stderr)  # some logs were skipped
            for name in ("match-4.log", "match-5.log", "match-01.log",
                         "match-18446744073709551615.log", "match-6.log"):
                self.assertIn("skipped %s:" % name, out)
            self.assertIn("NUL", out)
            self.assertIn("match-3.log as match 3 (1 plies; a torn last record", out)
            tokens = {}
            for line in out.splitlines():
                if line.startswith("migrated "):
                    words = line.split()
                    tokens[int(words[4])] = words[-2:]
            self.assertEqual(sorted(tokens), [1, 2, 3, 1000000000])
            # Running it again imports nothing twice.
            again = subprocess.run([SERVER, "--db", db, "--migrate-logs", logs],
                                   stdout=subprocess.PIPE, text=True, timeout=60)
            self.assertIn("already in the database", again.stdout)
            server = Server(db).start()
            try:
                c = Conn(server.port)
                self.assertEqual(c.ok("history 1").split(), ["c1", "a2", "a1"])
                self.assertEqual(c.ok("history 2").split(), ["c1"])
                self.assertEqual(show(c, 2)["result"], "0")
                self.assertEqual(c.ok("history 3").split(), ["c1"])
                self.assertEqual(c.ok("history 1000000000").split(), ["f1"])
                ply, turn, _ = int(show(c, 1)["ply"]), show(c, 1)["turn"], None
                move = c.ok("moves 1").split()[0]
                c.ok("play 1 %d %s %s" % (ply, move, tokens[1][int(turn)]))
                self.assertEqual(int(c.ok("new halusa").split()[0]), 1000000001)
                c.close()
            finally:
                server.stop()


def load_websocket_tests():
    """The WebSocket, push and clock tests (test-tg-server-ws.py) and the limits and fairness
    tests (test-tg-server-limits.py) run in this same run, so that every way of running this
    file (meson, the sanitizer build) runs them too."""
    import sibling
    for file, prefix in (("test-tg-server-ws.py", "WebSocket_"),
                         ("test-tg-server-limits.py", "Limits_"),
                         ("test-tg-server-damage.py", "Damage_"),
                         ("test-tg-server-bots.py", "Bots_"),
                         ("test-tg-server-long.py", "Long_"),
                         ("test-tg-server-proxy.py", "Proxy_"),
                         ("test-tg-server-rematch.py", "Rematch_"),
                         ("test-tg-server-undo.py", "Undo_"),
                         ("test-tg-server-accounts.py", "Accounts_"),
                         ("test-tg-server-web-accounts.py", "WebAccounts_"),
                         ("test-tg-server-lobby.py", "Lobby_"),
                         ("test-tg-server-draws.py", "Draws_"),
                         ("test-tg-server-history.py", "History_"),
                         ("test-tg-server-correspondence.py", "Correspondence_"),
                         ("test-tg-server-http.py", "Http_"),
                         ("test-tg-server-tgr.py", "Tgr_"),
                         ("test-tg-server-fair.py", "Fair_")):
        module = sibling.load("tg_server_" + prefix.lower(), file)
        module.SERVER = SERVER
        for name in dir(module):
            item = getattr(module, name)
            if (isinstance(item, type) and issubclass(item, unittest.TestCase)
                    and name.endswith("Test") and item.__module__ == module.__name__):
                globals()[prefix + name] = item


if __name__ == "__main__":
    SERVER = os.path.abspath(sys.argv.pop(1))
    load_websocket_tests()
    unittest.main(verbosity=2)
