#!/usr/bin/env python3
"""Tests of the example match server, tg-server, run against the real binary on loopback.

    test-tg-server.py PATH-TO-TG-SERVER

- 200 complete matches of all five games over 20 concurrent client connections; the server
  is killed with SIGKILL in the middle, restarted on the same data directory, and every
  acknowledged move must still be there before the matches are played to their end;
- garbage, overlong lines, unknown match ids, illegal moves and bad specs get error replies
  and the server keeps serving;
- a slow client that never reads its replies does not hold up the others.

Prints (as TAP comments) the throughput in acknowledged moves per second and the time the
server took to come back after SIGKILL.
"""
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

SERVER = None  # set from argv
GAMES = ["halusa", "hus", "hawalis", "walak-pussa", "tab"]


class Server:
    """One tg-server process on a fresh port over a data directory."""

    def __init__(self, data_dir):
        self.data_dir = data_dir
        self.proc = None
        self.port = None
        self.started_in = None

    def start(self):
        port_file = os.path.join(self.data_dir, "..", os.path.basename(self.data_dir) + ".port")
        if os.path.exists(port_file):
            os.unlink(port_file)
        t0 = time.monotonic()
        self.proc = subprocess.Popen(
            [SERVER, "--port", "0", "--dir", self.data_dir, "--port-file", port_file],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        out, err = self.proc.communicate(timeout=20)
        if self.proc.returncode != 0:
            raise RuntimeError("tg-server stopped with %d: %s" % (self.proc.returncode, err))


class Conn:
    """A line-based client connection."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.file = self.sock.makefile("rb")

    def ask(self, line):
        self.sock.sendall(line.encode() + b"\n")
        reply = self.file.readline()
        if not reply.endswith(b"\n"):
            raise ConnectionError("connection closed")
        return reply.decode().rstrip("\n")

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


class Player(threading.Thread):
    """Plays its share of matches to the end, surviving a server restart.

    It keeps, per match, the moves the server acknowledged (after acknowledged undos). After
    a lost connection it waits for the server to come back and checks that the server's
    history is exactly that, or that plus the one move in flight (which may have become
    durable without its acknowledgement reaching us), or that minus one for an undo in
    flight."""

    def __init__(self, harness, index, matches):
        super().__init__(daemon=True)
        self.h = harness
        self.index = index
        self.todo = matches  # game ids to play, in order
        self.rng = random.Random(1000 + index)
        self.acked = {}  # match id -> list of acknowledged moves
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

    def play_all(self):
        conn = self.connect()
        mid = None
        in_flight = None
        while self.todo or mid is not None:
            try:
                if mid is None:
                    game = self.todo[0]
                    in_flight = ("new", game)
                    mid = int(conn.ok("new " + game))
                    self.todo.pop(0)
                    self.acked[mid] = []
                    in_flight = None
                    continue
                moves = conn.ok("moves %d" % mid).split()
                if not moves:
                    info = show(conn, mid)
                    assert info["result"] != "running", info
                    self.finished.append((mid, info["result"]))
                    mid = None
                    continue
                roll = self.rng.random()
                if roll < 0.01 and self.acked[mid]:
                    in_flight = ("undo",)
                    conn.ok("undo %d" % mid)
                    self.acked[mid].pop()
                elif roll < 0.012 and len(self.acked[mid]) > 10:
                    loser = show(conn, mid)["turn"]
                    if loser in ("0", "1"):
                        in_flight = ("resign",)
                        conn.ok("resign %d %s" % (mid, loser))
                elif roll < 0.06:
                    in_flight = ("play",)
                    self.acked[mid].append(conn.ok("bot %d greedy" % mid))
                else:
                    move = self.rng.choice(moves)
                    in_flight = ("play",)
                    self.acked[mid].append(conn.ok("play %d %s" % (mid, move)))
                self.acks += 1
                in_flight = None
            except (ConnectionError, OSError):
                conn.close()
                self.h.lost.set()
                conn = self.connect()
                self.recoveries += 1
                if mid is not None:
                    self.check_after_restart(conn, mid, in_flight)
                in_flight = None
        conn.close()

    def check_after_restart(self, conn, mid, in_flight):
        history = conn.ok("history %d" % mid).split()
        acked = self.acked[mid]
        kind = in_flight[0] if in_flight else None
        if history == acked:
            return
        if kind == "play" and history[:-1] == acked and len(history) == len(acked) + 1:
            acked.append(history[-1])  # durable, though its acknowledgement was lost
            return
        if kind == "undo" and history == acked[:-1]:
            acked.pop()
            return
        raise AssertionError("match %d after restart: history %r, acknowledged %r (in flight %r)"
                             % (mid, history, acked, in_flight))


class Harness:
    def __init__(self, server):
        self.server = server
        self.up = threading.Event()
        self.lost = threading.Event()


class ServerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="tg-server-test-")
        self.data = os.path.join(self.tmp.name, "data")
        self.server = Server(self.data).start()

    def tearDown(self):
        if self.server.proc.poll() is None:
            self.server.stop()
        self.tmp.cleanup()

    def test_200_matches_20_clients_sigkill_and_restart(self):
        h = Harness(self.server)
        h.up.set()
        n_clients, n_matches = 20, 200
        plan = [GAMES[i % len(GAMES)] for i in range(n_matches)]
        players = [Player(h, i, plan[i::n_clients]) for i in range(n_clients)]
        t0 = time.monotonic()
        for p in players:
            p.start()
        # Kill the server once the clients are well into their matches.
        while sum(p.acks for p in players) < 6000 and any(p.is_alive() for p in players):
            time.sleep(0.005)
        self.assertTrue(any(p.is_alive() for p in players), "the matches ended before the kill")
        acks_before = sum(p.acks for p in players)
        elapsed_before = time.monotonic() - t0
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
            for mid, moves in p.acked.items():
                self.assertEqual(conn.ok("history %d" % mid).split(), moves, "match %d" % mid)
                self.assertNotEqual(show(conn, mid)["result"], "running")
        conn.close()
        print("# %d matches, %d acknowledged changes by 20 clients; %.0f acknowledged per second "
              "before the kill" % (n_matches, total, acks_before / elapsed_before))
        print("# restart after SIGKILL: %.1f ms until the server accepted clients (%s)"
              % (recovery * 1000, self.server.banner))

    def test_bad_input_gets_errors_and_the_server_keeps_serving(self):
        c = Conn(self.server.port)
        mid = int(c.ok("new halusa"))
        before = show(c, mid)
        cases = [
            ("frobnicate", "err unknown-command"),
            ("\x01\x02\xff garbage", "err unknown-command"),
            ("new", "err usage"),  # a known command with the wrong number of arguments
            ("new no-such-game", "err unknown-game"),
            ("new halusa:quiet=99999", "err bad-option"),
            ("play %d" % mid, "err usage"),
            ("play 999999 a1", "err no-such-match"),
            ("play 0 a1", "err no-such-match"),
            ("play -1 a1", "err no-such-match"),
            ("play 1x a1", "err no-such-match"),
            ("play 18446744073709551616 a1", "err no-such-match"),
            ("show 424242", "err no-such-match"),
            ("play %d z9" % mid, "err parse"),
            ("play %d a2" % mid, "err illegal-move"),
            ("undo %d" % mid, "err no-history"),
            ("bot %d nosuchbot" % mid, "err bad-option"),
            ("bot %d mcts:iterations=9999999" % mid, "err bot-too-slow"),
            ("resign %d 7" % mid, "err usage"),
            ("moves %d extra" % mid, "err usage"),
        ]
        for line, want in cases:
            reply = c.ask(line)
            self.assertTrue(reply.startswith(want), "%r -> %r, want %r" % (line, reply, want))
        self.assertEqual(show(c, mid), before)
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
        self.assertEqual(c.ok("play %d c1\r" % mid), "c1")
        # A finished match refuses moves but still answers questions.
        c.ok("resign %d 1" % mid)
        self.assertTrue(c.ask("play %d a2" % mid).startswith("err game-over"))
        self.assertTrue(c.ask("undo %d" % mid).startswith("err game-over"))
        self.assertEqual(show(c, mid)["result"], "0")
        self.assertEqual(c.ok("quit"), "bye")
        c.close()
        c2 = Conn(self.server.port)
        self.assertEqual(c2.ok("history %d" % mid), "c1")
        c2.close()

    def test_throughput_then_recovery_under_load(self):
        """20 clients ask the server's random bot for moves, one command per acknowledged
        move, for 3 seconds; then SIGKILL while they run, and a timed restart."""
        stop = threading.Event()
        acked = {}  # (client, match) -> moves acknowledged
        counts = [0] * 20
        errors = []

        def client(i):
            try:
                c = Conn(self.server.port)
                mid = None
                while not stop.is_set():
                    if mid is None:
                        mid = int(c.ok("new " + GAMES[i % len(GAMES)]))
                        acked[(i, mid)] = 0
                    reply = c.ask("bot %d random" % mid)
                    if reply.startswith("err game-over"):
                        mid = None
                        continue
                    if not reply.startswith("ok "):
                        raise AssertionError(reply)
                    acked[(i, mid)] += 1
                    counts[i] += 1
            except (ConnectionError, OSError):
                pass  # the kill
            except BaseException as e:
                errors.append(repr(e))

        threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(20)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        time.sleep(3.0)
        rate = sum(counts) / (time.monotonic() - t0)
        self.server.kill()
        stop.set()
        for t in threads:
            t.join(timeout=30)
        self.assertEqual(errors, [])
        killed = time.monotonic()
        self.server.start()
        recovery = time.monotonic() - killed
        c = Conn(self.server.port)
        for (i, mid), n in acked.items():
            history = c.ok("history %d" % mid).split()
            self.assertIn(len(history), (n, n + 1), "match %d" % mid)
        c.close()
        print("# throughput: %.0f moves acknowledged per second (each fsync'd first) by 20 "
              "clients over loopback, one command per move" % rate)
        print("# recovery after SIGKILL: %.1f ms from the restart to accepting clients, "
              "%d moves in %d matches (%s)"
              % (recovery * 1000, sum(acked.values()), len(acked), self.server.banner))

    def test_a_slow_client_does_not_block_the_others(self):
        slow = socket.create_connection(("127.0.0.1", self.server.port))
        maker = Conn(self.server.port)
        mid = int(maker.ok("new tab:width=29"))
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


if __name__ == "__main__":
    SERVER = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
