#!/usr/bin/env python3
"""Limits and fairness of tg-server (issue 28), run by test-tg-server.py in the same run:

- pinning: a clocked match whose first decision does not come is aborted (stored, pushed,
  kept across a restart), an unanswered undo request lapses, pinned matches are let go so that
  `new` works again, and --max-matches counts the matches being played, not every one stored;
- budgets: `new` from one connection beyond its budget is answered `err rate-limited`, another
  connection keeps its own budget, an address's budget is shared by its connections, and a
  browser's address is the one the WebSocket relay reports (a browser on 127.0.0.2 is not
  charged for 127.0.0.1's commands); only the relay may say `via`;
- descriptors: under a 64-descriptor limit with the web port on, --max-clients is sized for
  three descriptors a WebSocket, the WebSockets and TCP clients beyond it are told
  `err too-many-clients`, and the server neither spins nor floods stderr;
- watchers that never read: the output waiting for all clients together is bounded
  (--max-buffered), the watchers that are behind are let go, one that reads gets every event;
- the web port: nosniff, a CSP with frame-ancestors 'none' on every page, no symbolic link
  followed out of --web, and a WebSocket opened only from the server's own pages or the
  --origin ones (a client with no Origin is not a browser and may).
"""
import os
import socket
import tempfile
import threading
import time
import unittest
from typing import Callable

import sibling

SERVER = None  # set by test-tg-server.py

ws = sibling.load("tg_server_limits_ws", "test-tg-server-ws.py")
base = ws.base
Conn, Match, show = base.Conn, base.Match, base.show


class LimitsCase(base.ServerTestCase):
    def setUp(self):
        base.SERVER = ws.SERVER = SERVER
        super().setUp()

    def assert_full_after_restart(self, live: int, matches: int) -> "base.Conn":
        """After a restart the server counts `live` of its `matches` as being played, and at
        its --max-matches refuses a new one. Returns a connection to it."""
        self.restart()
        c = Conn(self.server.port)
        self.assertEqual(status(c)["live"], str(live))
        self.assertEqual(status(c)["matches"], str(matches))
        self.assertReply(c.ask("new halusa"), "err match-limit")
        return c


def wait_for(predicate, timeout=10.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    return predicate()


def status(conn):
    return dict(item.partition("=")[::2] for item in conn.ok("status").split())


class PinningTest(LimitsCase):
    server_args = ("--first-move-timeout", "1", "--undo-timeout", "1", "--max-loaded", "20",
                   "--max-matches", "30")

    def test_first_move_timeout_aborts_a_clocked_match(self):
        c, watcher = Conn(self.server.port), Conn(self.server.port)
        m = Match(c, "halusa clock=1+0")
        self.assertEqual(watcher.ok("watch %d" % m.id).split()[0], "watching")
        lines = [watcher.read() for _ in range(3)]  # the catch-up's clock, then the abort's
        self.assertEqual(lines[1:], ["event %d clock 60000 60000 -" % m.id,
                                     "event %d result aborted by=no-first-move" % m.id])
        info = show(c, m.id)
        self.assertEqual((info["result"], info["by"], info["turn"]),
                         ("aborted", "no-first-move", "-"))
        self.assertReply(c.ask("play %d 0 c1 %s" % (m.id, m.tokens[0])), "err game-over")
        self.assertEqual(status(c)["live"], "0")
        # A match whose first decision came in time is not aborted.
        played = Match(c, "halusa clock=1+0")
        played.play(c, "c1")
        time.sleep(1.6)
        self.assertEqual(show(c, played.id)["result"], "running")
        self.restart()
        c = Conn(self.server.port)
        info = show(c, m.id)
        self.assertEqual((info["result"], info["by"]), ("aborted", "no-first-move"))
        self.assertEqual(status(c)["live"], "1")

    def test_undo_request_lapses(self):
        c, watcher = Conn(self.server.port), Conn(self.server.port)
        m = Match(c, "halusa")
        m.play(c, "c1")
        watcher.ok("watch %d 1" % m.id)
        self.assertEqual(c.ok("undo %d 1 %s" % (m.id, m.tokens[0])), "requested")
        self.assertEqual(watcher.read(), "event %d undo-requested 0" % m.id)
        self.assertEqual(show(c, m.id)["undo-requested-by"], "0")
        self.assertEqual(watcher.read(), "event %d undo-declined 1 by=timeout" % m.id)
        self.assertNotIn("undo-requested-by", show(c, m.id))
        self.assertReply(c.ask("accept %d 1 %s" % (m.id, m.tokens[1])), "err no-undo-request")

    def test_pinned_matches_are_let_go_and_max_matches_counts_live_ones(self):
        c = Conn(self.server.port)
        # Twenty clocked matches nobody starts fill --max-loaded: a load or a new one is
        # refused while they are pinned...
        pinned = [Match(c, "hus clock=1+0") for _ in range(20)]
        self.assertReply(c.ask("new halusa"), "err overloaded")
        # ...and let go once they are aborted (1 s), so the server takes matches again.
        self.assertTrue(wait_for(lambda: show(c, pinned[-1].id)["result"] == "aborted"))
        time.sleep(1.2)  # the pinned sweep runs once a second
        self.assertTrue(c.ok("new halusa"))
        # --max-matches 30 counts the matches being played: the aborted ones do not count.
        for _ in range(29):
            Match(c, "halusa")
        self.assertReply(c.ask("new halusa"), "err match-limit")
        self.assert_full_after_restart(live=30, matches=50)


class MatchLimitTest(LimitsCase):
    server_args = ("--max-matches", "3")

    def test_an_ended_match_frees_its_place(self):
        c = Conn(self.server.port)
        matches = [Match(c, "halusa") for _ in range(3)]
        self.assertReply(c.ask("new halusa"), "err match-limit")
        self.assertEqual(c.ok("resign %d %s" % (matches[0].id, matches[0].tokens[0])), "")
        fourth = Match(c, "halusa")
        self.assertReply(c.ask("new halusa"), "err match-limit")
        c = self.assert_full_after_restart(live=3, matches=4)
        self.assertEqual(c.ok("resign %d %s" % (fourth.id, fourth.tokens[1])), "")
        Match(c, "halusa")


class RateLimitTest(LimitsCase):
    server_args = ("--rate", "2", "--address-rate", "1000000")

    def test_a_connection_beyond_its_budget_is_told(self):
        c, other = Conn(self.server.port), Conn(self.server.port)
        for _ in range(40):
            c.send("new halusa")
        replies = [c.read() for _ in range(40)]
        ok = sum(r.startswith("ok ") for r in replies)
        limited = [r for r in replies if not r.startswith("ok ")]
        # 2 a second, 5 s of them at once: 10, and 2 more for each second the 40 took.
        self.assertGreaterEqual(ok, 10)
        self.assertLess(ok, 25)
        self.assertTrue(all(r.startswith("err rate-limited") for r in limited), limited[:3])
        # Reads are not costly, and another connection has its own budget.
        self.assertTrue(show(c, 1))
        self.assertTrue(other.ok("new halusa"))
        self.assertGreaterEqual(int(status(other)["rate-limited"]), 10)
        # It refills: a second later the connection may make 20 more.
        time.sleep(1.1)
        self.assertTrue(c.ok("new halusa"))

    def test_only_the_relay_says_via(self):
        c = Conn(self.server.port)
        self.assertReply(c.ask("via 00000000000000000000000000000000 10.0.0.1"), "err bad-token")
        self.assertReply(c.ask("via 00000000000000000000000000000000 10.0.0.1"),
                         "err unknown-command")
        self.assertTrue(c.ok("status"))


class AddressBudgetTest(LimitsCase):
    def setUp(self):
        base.SERVER = ws.SERVER = SERVER
        self.tmp = tempfile.TemporaryDirectory(prefix="tg-server-test-")
        self.db = os.path.join(self.tmp.name, "matches.db")
        self.server = ws.WebServer(self.db, "--rate", "1000", "--address-rate", "1").start()

    def ws_from(self, source):
        """A WebSocket client whose connection comes from the loopback address source."""
        real = socket.create_connection

        def bound(address, timeout=None):
            return real(address, timeout=timeout, source_address=(source, 0))
        socket.create_connection = bound
        try:
            return ws.WS(self.server.web_port)
        finally:
            socket.create_connection = real

    def test_browsers_are_told_apart_by_the_relay(self):
        tcp_a, tcp_b = Conn(self.server.port), Conn(self.server.port)
        # 127.0.0.1's budget (1 a second, 5 at once) is shared by its two connections.
        replies = [tcp_a.ask("new halusa") if i % 2 else tcp_b.ask("new halusa")
                   for i in range(20)]
        ok = sum(r.startswith("ok ") for r in replies)
        self.assertGreaterEqual(ok, 5)
        self.assertLess(ok, 10)
        self.assertTrue(any(r.startswith("err rate-limited") for r in replies))

        def ten_news(browser):
            for _ in range(10):
                browser.send("list")
            return [browser.recv() for _ in range(10)]
        # A browser on 127.0.0.1 shares that budget (the relay names its address)...
        same = ten_news(self.ws_from("127.0.0.1"))
        self.assertGreaterEqual(sum(r.startswith("err rate-limited") for r in same), 6, same)
        # ...and one on 127.0.0.2 has its own, although the relay connects from 127.0.0.1.
        other = ten_news(self.ws_from("127.0.0.2"))
        self.assertGreaterEqual(sum(r.startswith("ok") for r in other), 5, other)


class DescriptorsTest(LimitsCase):
    def setUp(self):
        base.SERVER = ws.SERVER = SERVER
        self.tmp = tempfile.TemporaryDirectory(prefix="tg-server-test-")
        self.db = os.path.join(self.tmp.name, "matches.db")
        # Its ten browsers share 127.0.0.1: the per-address cap is not what it tests.
        self.server = ws.WebServer(self.db, "--max-clients-per-address", "100")
        self.server.limit_files = 64
        self.server.start()

    def cpu_seconds(self):
        with open("/proc/%d/stat" % self.server.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def test_websockets_beyond_the_descriptors_are_told(self):
        # 64 descriptors, 32 spare, 3 a WebSocket: 10 clients.
        sockets, replies = [], []
        for _ in range(16):
            s = ws.WS(self.server.web_port)
            sockets.append(s)
            replies.append(s.ask("status"))
        served = [r for r in replies if r.startswith("ok ")]
        told = [r for r in replies if r.startswith("err too-many-clients")]
        self.assertEqual(len(served), 10, replies)
        self.assertEqual(len(told), 6, replies)
        extra = [Conn(self.server.port) for _ in range(3)]
        self.assertTrue(all(e.read().startswith("err too-many-clients") for e in extra))
        # Idle with every descriptor it may use taken: no spinning.
        before = self.cpu_seconds()
        time.sleep(1.5)
        self.assertLess(self.cpu_seconds() - before, 0.5)
        for s in sockets:
            s.sock.close()
        for e in extra:
            e.close()
        # Once they are gone, a browser is served again.
        self.assertTrue(wait_for(lambda: self._try_ws()))
        err = self.server.stop()
        self.assertIn("--max-clients lowered from 1000 to 10", err)
        self.assertLess(len(err), 4000, err[-2000:])

    def _try_ws(self):
        try:
            s = ws.WS(self.server.web_port)
            reply = s.ask("status")
            s.sock.close()
            return reply.startswith("ok ")
        except (OSError, EOFError, ConnectionError):
            return False


def conn_from(port, source):
    """A line connection whose peer address is the loopback address source."""
    c = Conn.__new__(Conn)
    c.sock = socket.create_connection(("127.0.0.1", port), timeout=20,
                                      source_address=(source, 0))
    c.file = c.sock.makefile("rb")
    return c


def answered(conn, line):
    """The reply to line, or "closed" if the connection ended without one."""
    try:
        return conn.ask(line)
    except (OSError, ConnectionError):
        return "closed"


class ConnectionCapTest(LimitsCase):
    """Connections are budgeted per address (issue 41 item 7): direct peers by their own
    address, browsers by the one the relay names, IPv6 by its /64."""

    def setUp(self):
        base.SERVER = ws.SERVER = SERVER
        self.tmp = tempfile.TemporaryDirectory(prefix="tg-server-test-")
        self.db = os.path.join(self.tmp.name, "matches.db")
        self.server = ws.WebServer(self.db, "--max-clients", "24", "--max-clients-per-address",
                                   "8", "--trusted-proxy", "127.0.0.1", "--rate", "1000",
                                   "--address-rate", "1").start()

    def ws_as(self, address):
        return ws.WS(self.server.web_port, headers="X-Forwarded-For: %s\r\n" % address)

    def test_one_address_idle_connections_do_not_lock_out_another(self):
        # Thirty idle connections from 127.0.0.2 would fill --max-clients (24).
        hogs = [conn_from(self.server.port, "127.0.0.2") for _ in range(30)]
        time.sleep(2.5)  # past the greeting: each is counted as its peer's
        replies = [answered(h, "help") for h in hogs]
        self.assertEqual(sum(r.startswith("ok commands") for r in replies), 8, replies)
        self.assertEqual(sum(r.startswith("err too-many-connections") for r in replies), 22,
                         replies)
        # Another address is served, over TCP and through the relay...
        self.assertTrue(conn_from(self.server.port, "127.0.0.3").ok("help"))
        local = [Conn(self.server.port) for _ in range(8)]
        self.assertTrue(all(c.ok("help") for c in local))
        # ...and the local clients holding 127.0.0.1's share do not shut the relay out: its
        # connections count for the browser's address.
        self.assertTrue(self.ws_as("203.0.113.7").ask("help").startswith("ok commands"))
        self.assertReply(answered(Conn(self.server.port), "help"), "err too-many-connections")

    def test_an_ipv6_64_is_one_address(self):
        # Twenty browsers of one /64 share one connection cap and one budget (1 a second,
        # 5 at once).
        browsers = [self.ws_as("2001:db8:1:2::%x" % (i + 1)) for i in range(20)]
        replies = [b.ask("list") for b in browsers]
        self.assertEqual(sum(r.startswith("err too-many-connections") for r in replies), 12,
                         replies)
        ok = sum(r.startswith("ok") for r in replies)
        self.assertTrue(5 <= ok <= 7, replies)
        self.assertTrue(any(r.startswith("err rate-limited") for r in replies), replies)
        # The next /64 is another address; an IPv4-mapped address is the IPv4 one.
        self.assertTrue(self.ws_as("2001:db8:1:3::1").ask("list").startswith("ok"))
        self.assertTrue(self.ws_as("::ffff:198.51.100.4").ask("list").startswith("ok"))
        self.assertTrue(self.ws_as("198.51.100.4").ask("list").startswith("ok"))
        self.assertTrue(self.ws_as("198.51.100.4").ask("list").startswith("ok"))
        self.assertTrue(self.ws_as("198.51.100.4").ask("list").startswith("ok"))
        self.assertTrue(self.ws_as("::ffff:198.51.100.4").ask("list").startswith("ok"))
        self.assertTrue(any(not self.ws_as("198.51.100.4").ask("list").startswith("ok")
                            for _ in range(4)))


class SilentWatcherIdleTest(LimitsCase):
    server_args = ("--idle-timeout", "2")

    def test_a_silent_watcher_is_closed_while_the_match_changes(self):
        c, watcher, keeper = (Conn(self.server.port) for _ in range(3))
        m = Match(c, "halusa")
        watcher.ok("watch %d" % m.id)
        keeper.ok("watch %d" % m.id)
        stop, plies = threading.Event(), []

        def mover():  # a move every 0.2 s until told to stop
            while not stop.is_set():
                moves = c.ok("moves %d" % m.id).split()
                if not moves:
                    return
                m.play(c, moves[0])
                plies.append(time.monotonic())
                keeper.send("show %d" % m.id)  # a watcher that wants to stay sends a command
                time.sleep(0.2)
        thread = threading.Thread(target=mover, daemon=True)
        thread.start()
        watcher.sock.settimeout(8)
        lines = []
        try:
            while True:
                lines.append(watcher.read())
        except ConnectionError:
            closed_at = time.monotonic()
        except socket.timeout:
            closed_at = None
        stop.set()
        thread.join()
        self.assertIsNotNone(closed_at, "a silent watcher was kept open: %r" % lines[-3:])
        # Closed while the match was changing, by the idle timer.
        self.assertGreater(plies[-1], closed_at, "the match stopped changing first")
        self.assertEqual(lines[-1], "err idle-timeout no command for 2 s; closing")
        self.assertTrue(any(x.startswith("event %d moves" % m.id) for x in lines), lines)
        # The watcher that sent commands is still served.
        keeper.send("show %d" % m.id)
        keeper.sock.settimeout(3)
        while not keeper.read().startswith("ok ply="):
            pass

class UnplayedMatchesTest(LimitsCase):
    """Matches nobody plays end (issue 41 item 8), so that --max-matches counts play."""
    server_args = ("--join-timeout", "2", "--max-matches", "3", "--unload-after", "1")

    def test_never_joined_matches_end_and_free_their_place(self):
        c, watcher = Conn(self.server.port), Conn(self.server.port)
        played = Match(c, "halusa")  # joined: not touched by the join timeout
        watched = c.ok("new halusa").split()
        unwatched = c.ok("new tab").split()
        self.assertReply(c.ask("new halusa"), "err match-limit")
        watcher.ok("watch %s" % watched[0])  # kept loaded: ended through the round
        watcher.sock.settimeout(10)
        self.assertEqual(watcher.read(), "event %s result aborted by=no-join" % watched[0])
        # The unwatched one was unloaded: ended in the database, with the same reason.
        self.assertTrue(wait_for(lambda: show(c, int(unwatched[0]))["result"] == "aborted"))
        self.assertEqual(show(c, int(unwatched[0]))["by"], "no-join")
        self.assertNotIn("waiting-for", show(c, int(unwatched[0])))
        self.assertReply(c.ask("join %s %s" % (unwatched[0], unwatched[2])), "err game-over")
        self.assertEqual(show(c, played.id)["result"], "running")
        self.assertEqual(status(c)["live"], "1")
        record = c.ok("record %s" % watched[0])
        lines = [c.read() for _ in range(int(record))]
        self.assertIn('[ServerEnd "no-join"]', lines)
        c.ok("new halusa")
        c.ok("new halusa")
        self.assertReply(c.ask("new halusa"), "err match-limit")
        # Kept across a restart, with its reason.
        self.restart()
        c = Conn(self.server.port)
        self.assertEqual((show(c, int(watched[0]))["result"], show(c, int(watched[0]))["by"]),
                         ("aborted", "no-join"))


class AbandonedMatchesTest(LimitsCase):
    server_args = ("--abandon-after", "5")

    def test_an_unclocked_match_nobody_moves_in_ends_also_across_a_restart(self):
        c = Conn(self.server.port)
        left = Match(c, "halusa")
        left.play(c, c.ok("moves %d" % left.id).split()[0])
        clocked = Match(c, "halusa clock=60+0")
        self.server.stop()
        time.sleep(5.5)  # the server is down: its downtime counts, from the stored times
        self.server = base.Server(self.db, *self.server_args).start()
        c = Conn(self.server.port)
        live = Match(c, "halusa")  # made just now
        # Ended by the first pass after the start, long before 5 s from the restart.
        self.assertTrue(wait_for(lambda: show(c, left.id)["result"] == "aborted", timeout=3))
        self.assertEqual(show(c, left.id)["by"], "abandoned")
        self.assertEqual(show(c, live.id)["result"], "running")
        self.assertEqual(show(c, clocked.id)["result"], "running")  # a clock ends it, not this
        self.assertReply(c.ask("play %d 1 a1 %s" % (left.id, left.tokens[1])), "err game-over")
        record = c.ok("record %d" % left.id)
        lines = [c.read() for _ in range(int(record))]
        self.assertIn('[ServerEnd "abandoned"]', lines)


class SilentWatchersTest(LimitsCase):
    server_args = ("--max-buffered", "256")

    def test_the_total_waiting_for_watchers_is_bounded(self):
        c = Conn(self.server.port)
        m = Match(c, "halusa")
        m.play(c, "c1")
        silent = []
        for _ in range(12):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
            s.connect(("127.0.0.1", self.server.port))
            s.sendall(b"watch %d 1\n" % m.id)
            silent.append(s)
        reader = Conn(self.server.port)
        reader.ok("watch %d 1" % m.id)
        got = []
        def read_all():
            try:
                got.extend(iter(reader.read, "stop"))
            except (OSError, ConnectionError):
                pass  # the server stops at the end of the test
        t = threading.Thread(target=read_all, daemon=True)
        # Undo requests and declines: two events each, nothing stored, as fast as they come.
        rounds = 6000
        t.start()
        player = Conn(self.server.port)
        batch = ("undo %d 1 %s\ndecline %d 1 %s\n" % (m.id, m.tokens[0], m.id, m.tokens[1]))
        for k in range(0, rounds, 50):
            player.sock.sendall(batch.encode() * 50)
            for _ in range(100):
                player.read()
        st = status(player)
        self.assertGreaterEqual(int(st["dropped-watchers"]), 1, st)
        # What waits now is bounded: the watchers that did not read are gone.
        self.assertLess(int(st["buffered"]), 256 * 1024 + 64 * 1024, st)
        # The watcher that reads got every event, in order.
        self.assertTrue(wait_for(lambda: len(got) >= 2 * rounds, timeout=30), len(got))
        self.assertEqual(got[0], "event %d undo-requested 0" % m.id)
        self.assertEqual(got[2 * rounds - 1], "event %d undo-declined 1" % m.id)
        for s in silent:
            s.close()


def read_closing(s: socket.socket, size: int, enough: Callable[[bytes], bool]) -> bytes:
    """What the server sends on s until `enough` of it came, or it closed the connection or
    reset it (a refusal may do either); then s is closed."""
    data = b""
    try:
        while not enough(data):
            chunk = s.recv(size)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    s.close()
    return data


def handshake(port, origin=None, host=None):
    """The status line of a WebSocket handshake with that Origin (none: no header)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    head = ("GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            % (host or "127.0.0.1:%d" % port))
    if origin:
        head += "Origin: %s\r\n" % origin
    s.sendall((head + "\r\n").encode())
    data = read_closing(s, 4096, lambda data: b"\r\n" in data)
    return data.split(b"\r\n")[0].decode(errors="replace")


def http_get(port, path):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
    return read_closing(s, 65536, lambda data: False)


class WebSafetyTest(LimitsCase):
    def setUp(self):
        base.SERVER = ws.SERVER = SERVER
        self.tmp = tempfile.TemporaryDirectory(prefix="tg-server-test-")
        self.db = os.path.join(self.tmp.name, "matches.db")
        self.site = ws.make_site(self.tmp.name)
        os.symlink(os.path.join(self.tmp.name, "secret.txt"), os.path.join(self.site, "leak.txt"))
        os.symlink(self.tmp.name, os.path.join(self.site, "up"))
        os.symlink("index.html", os.path.join(self.site, "same.html"))
        self.server = ws.WebServer(self.db, web=self.site).start()

    def test_headers_and_no_symlink_out_of_the_site(self):
        page = http_get(self.server.web_port, "/")
        head = page.split(b"\r\n\r\n")[0].lower()
        self.assertIn(b" 200 ", page.split(b"\r\n")[0])
        self.assertIn(b"x-content-type-options: nosniff", head)
        self.assertIn(b"frame-ancestors 'none'", head)
        self.assertIn(b"content-security-policy: default-src 'self'", head)
        # A link inside the site is served; one that leads out of it is not.
        self.assertIn(b"<title>board</title>", http_get(self.server.web_port, "/same.html"))
        for path in ("/leak.txt", "/up/secret.txt"):
            answer = http_get(self.server.web_port, path)
            self.assertNotIn(b"not for the web", answer, path)
            self.assertNotIn(b" 200 ", answer.split(b"\r\n")[0], path)

    def test_origin_of_the_websocket(self):
        port = self.server.web_port
        self.assertIn(" 101 ", handshake(port))  # not a browser: no Origin
        self.assertIn(" 101 ", handshake(port, "http://127.0.0.1:%d" % port))
        self.assertNotIn(" 101 ", handshake(port, "https://evil.example"))
        self.assertNotIn(" 101 ", handshake(port, "http://127.0.0.1:%d.evil.example" % port))
        self.server.stop()
        self.server = ws.WebServer(self.db, "--origin", "https://games.example",
                                   web=self.site).start()
        port = self.server.web_port
        self.assertIn(" 101 ", handshake(port, "https://games.example"))
        self.assertNotIn(" 101 ", handshake(port, "https://evil.example"))
        self.assertNotIn(" 101 ", handshake(port, "http://127.0.0.1:%d" % port))


def any_new_match(conn, spec):
    """new_match, or (for a server before the join step) the two tokens `new` answered."""
    mid, first, second = conn.ok("new " + spec).split()
    reply = Conn(conn.sock.getpeername()[1]).ask("join %s %s" % (mid, second))
    if reply.startswith("err unknown-command"):
        return int(mid), [first, second]
    seat, other = reply.split()[1:]
    return int(mid), [first, other] if seat == "1" else [other, first]


class SeatsTest(LimitsCase):
    def test_the_creator_holds_one_seat_and_the_invite_works_once(self):
        c, guest, watcher = (Conn(self.server.port) for _ in range(3))
        mid, token, invite = c.ok("new halusa").split()
        self.assertEqual(show(c, int(mid))["waiting-for"], "1")
        # The invite is not a seat token, and nothing moves before the other seat joins.
        self.assertReply(c.ask("play %s 0 c1 %s" % (mid, invite)), "err bad-token")
        self.assertReply(c.ask("play %s 0 c1 %s" % (mid, token)), "err not-joined")
        self.assertReply(c.ask("resign %s %s" % (mid, token)), "err not-joined")
        self.assertReply(guest.ask("join %s %s" % (mid, token)), "err bad-token")
        watcher.ok("watch %s" % mid)
        seat, other = guest.ok("join %s %s" % (mid, invite)).split()
        self.assertEqual(seat, "1")
        self.assertNotEqual(other, token)
        self.assertEqual(watcher.read(), "event %s joined 1" % mid)
        self.assertReply(guest.ask("join %s %s" % (mid, invite)), "err already-joined")
        self.assertNotIn("waiting-for", show(c, int(mid)))
        self.assertReply(c.ask("play %s 0 c1 %s" % (mid, other)), "err not-your-turn")
        self.assertEqual(c.ok("play %s 0 c1 %s" % (mid, token)), "c1")
        # seat=1: the creator takes seat 1, the guest gets seat 0.
        mid, token, invite = c.ok("new halusa seat=1").split()
        self.assertEqual(guest.ok("join %s %s" % (mid, invite)).split()[0], "0")
        self.assertReply(c.ask("play %s 0 c1 %s" % (mid, token)), "err not-your-turn")
        self.assertReply(c.ask("new halusa seat=2"), "err bad-option")
        self.assertReply(c.ask("new halusa clock=1+0 clock=1+0"), "err bad-option")

    def test_no_throw_before_both_seats_and_the_invite_kept_across_a_restart(self):
        c = Conn(self.server.port)
        mid, token, invite = c.ok("new tab").split()
        self.assertEqual(c.ok("history %s" % mid), "")
        # The creator's own connection may not take the other seat: it would see the opening
        # throws before handing that seat out (issue 41 item 9).
        self.assertReply(c.ask("join %s %s" % (mid, invite)), "err own-match")
        self.assertEqual(c.ok("history %s" % mid), "")
        self.assertEqual(show(c, int(mid))["waiting-for"], "1")
        self.assertEqual(show(c, mid and int(mid))["ply"], "0")
        self.restart()
        c = Conn(self.server.port)
        self.assertEqual(c.ok("history %s" % mid), "")
        seat, other = c.ok("join %s %s" % (mid, invite)).split()
        history = c.ok("history %s" % mid).split()
        self.assertTrue(history and all(h.startswith("throw:") for h in history), history)
        self.restart()
        c = Conn(self.server.port)
        self.assertEqual(c.ok("history %s" % mid).split(), history)
        self.assertReply(c.ask("join %s %s" % (mid, invite)), "err already-joined")


class KeptThrowsTest(LimitsCase):
    def test_undo_and_accept_never_throw_again(self):
        c = Conn(self.server.port)
        checked = 0
        for spec in ("tab", "tab"):
            mid, tokens = any_new_match(c, spec)
            for _ in range(40):
                info = show(c, mid)
                if info["turn"] not in ("0", "1"):
                    break
                ply, mover = int(info["ply"]), int(info["turn"])
                move = c.ok("moves %d" % mid).split()[-1]
                first = c.ok("play %d %d %s %s" % (mid, ply, move, tokens[mover])).split()
                if len(first) < 2 or show(c, mid)["turn"] not in ("0", "1"):
                    continue
                now = int(show(c, mid)["ply"])
                self.assertEqual(c.ok("undo %d %d %s" % (mid, now, tokens[mover])), "requested")
                self.assertEqual(c.ok("accept %d %d %s" % (mid, now, tokens[1 - mover])),
                                 str(ply))
                if checked == 2:  # the kept throws are stored, not only in memory
                    self.restart()
                    c = Conn(self.server.port)
                again = c.ok("play %d %d %s %s" % (mid, ply, move, tokens[mover])).split()
                self.assertEqual(again, first, "the same decision after an undo")
                checked += 1
        self.assertGreaterEqual(checked, 6)


class ClockFairnessTest(LimitsCase):
    server_args = ("--no-bots-on-clock",)

    def test_a_move_after_the_flag_is_refused_and_bots_can_be_forbidden(self):
        c = Conn(self.server.port)
        for _ in range(4):
            m = Match(c, "halusa clock=0.01+0")  # 600 ms each
            m.play(c, "c1")  # the first decision is not timed: seat 1's clock now runs
            info = show(c, m.id)
            deadline = time.monotonic() + int(info["clock"].split(",")[1]) / 1000.0
            move = c.ok("moves %d" % m.id).split()[0]
            self.assertReply(c.ask("bot %d 1 greedy %s" % (m.id, m.tokens[1])),
                             "err bots-forbidden")
            # Just after the flag, before the loop's next look at the clocks (every 50 ms):
            # the move's own time decides.
            time.sleep(max(0.0, deadline - time.monotonic()) + 0.005)
            reply = c.ask("play %d 1 %s %s" % (m.id, move, m.tokens[1]))
            self.assertReply(reply, "err game-over")
            info = show(c, m.id)
            self.assertEqual((info["result"], info["by"]), ("0", "time"))
            self.assertEqual(info["clock"].split(",")[1], "0")
        # Without a clock, bots play.
        m = Match(c, "halusa")
        self.assertEqual(len(c.ok("bot %d 0 greedy %s" % (m.id, m.tokens[0])).split()), 1)


class BackupTest(LimitsCase):
    def test_online_backup_while_the_server_runs(self):
        c = Conn(self.server.port)
        matches = [Match(c, spec) for spec in ("halusa", "tab", "hus")]
        for m in matches:
            for _ in range(3):
                ply, turn, _ = m.state(c)
                if turn not in ("0", "1"):
                    break
                move = c.ok("moves %d" % m.id).split()[0]
                c.ok("play %d %d %s %s" % (m.id, ply, move, m.tokens[int(turn)]))
        histories = {m.id: c.ok("history %d" % m.id) for m in matches}
        copy = os.path.join(self.tmp.name, "copy.db")
        done = base.subprocess.run([SERVER, "--db", self.db, "--backup", copy],
                                   capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("backed up to", done.stdout)
        # The server carries on, and the copy is the database as it was, and a whole one.
        played = matches[0].play(c, c.ok("moves %d" % matches[0].id).split()[0])
        self.assertEqual(c.ok("history %d" % matches[0].id).split()[-len(played):], played)
        restored = base.Server(copy, "--check").start()
        try:
            r = Conn(restored.port)
            self.assertIn(", 0 set aside", restored.banner)
            for mid, history in histories.items():
                self.assertEqual(r.ok("history %d" % mid), history)
            r.close()
        finally:
            restored.stop()
        failed = base.subprocess.run([SERVER, "--db", self.db, "--backup",
                                      os.path.join(self.tmp.name, "no-such-dir", "x.db")],
                                     capture_output=True, text=True, timeout=60)
        self.assertEqual(failed.returncode, 1)
        self.assertIn("cannot back", failed.stderr)


class MetricsTest(LimitsCase):
    def setUp(self):
        base.SERVER = ws.SERVER = SERVER
        self.tmp = tempfile.TemporaryDirectory(prefix="tg-server-test-")
        self.db = os.path.join(self.tmp.name, "matches.db")
        self.server = ws.WebServer(self.db, "--metrics-port", "0", "--metrics-port-file",
                                   self.db + ".metrics-port").start()
        with open(self.db + ".metrics-port") as f:
            self.metrics_port = int(f.read())

    def metrics(self):
        answer = http_get(self.metrics_port, "/metrics")
        head, _, body = answer.partition(b"\r\n\r\n")
        self.assertIn(b" 200 ", head.split(b"\r\n")[0])
        self.assertIn(b"text/plain; version=0.0.4", head)
        values = {}
        for line in body.decode().splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                values[name] = float(value)
        return values

    def test_prometheus_text_on_the_metrics_port(self):
        c = Conn(self.server.port)
        m = Match(c, "halusa")
        m.play(c, "c1")
        Match(c, "hus clock=1+0")
        c.ask("frobnicate")

        def published():
            v = self.metrics()
            return v if v.get("tg_server_live_matches") == 2 else None
        values = wait_for(published, timeout=5)
        self.assertTrue(values, self.metrics())
        self.assertEqual(values["tg_server_matches"], 2)
        self.assertEqual(values["tg_server_loaded_matches"], 2)
        self.assertEqual(values["tg_server_pinned_matches"], 1)  # the clocked one
        self.assertGreaterEqual(values["tg_server_commits_total"], 3)
        self.assertGreater(values["tg_server_commit_seconds_total"], 0)
        self.assertGreater(values["tg_server_wal_bytes"], 0)
        self.assertIn('tg_server_refusals_total{reason="rate-limited"}', values)
        self.assertIn('tg_server_queued_jobs{pool="bot"}', values)
        self.assertEqual(values['tg_server_queued_jobs{pool="account"}'], 0)  # password hashes
        self.assertNotIn(b" 200 ", http_get(self.metrics_port, "/other").split(b"\r\n")[0])
        # Not on the web port, which a proxy puts before the public.
        self.assertNotIn(b" 200 ", http_get(self.server.web_port, "/metrics").split(b"\r\n")[0])
