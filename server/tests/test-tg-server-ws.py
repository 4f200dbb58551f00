#!/usr/bin/env python3
"""Tests of tg-server's WebSocket side, its pushed events and its clocks, with a raw-socket
WebSocket client (RFC 6455 frames written and read by hand, so that malformed ones can be sent).

    test-tg-server-ws.py PATH-TO-TG-SERVER

Also run as part of test-tg-server.py (and so against the sanitizer build in scripts/test.sh).

- the line protocol over WebSocket: one text message is one command, one reply one message;
- malformed frames (unmasked, reserved bits, unknown opcode, bad UTF-8, an oversized control
  frame, a binary message) and oversized messages (one frame, fragments, a 1 GB length) each
  get an error and close that connection only, while another connection goes on;
- `watch`: every change (moves and throws, undo requests and answers, resignation, clocks,
  results) pushed as one line to every watcher, and the catch-up from a given ply;
- clocks: `new SPEC clock=M+S`, the increment, a flag fall ending the match (`by=time`), kept
  across a restart; bad time controls refused;
- the web app's files over HTTP on the same port, and nothing outside the directory.
"""
import base64
import os
import socket
import struct
import sys
import tempfile
import time
import unittest

import sibling

SERVER = None  # set from argv, or by test-tg-server.py

base = sibling.load("tg_server_test", "test-tg-server.py")


class WebServer(base.Server):
    """tg-server with its WebSocket and HTTP port."""

    def __init__(self, db, *extra, web=None):
        args = ["--web-port", "0", "--web-port-file", db + ".web-port"] + list(extra)
        if web:
            args += ["--web", web]
        super().__init__(db, *args)

    def start(self):
        base.SERVER = SERVER
        if os.path.exists(self.db + ".web-port"):
            os.unlink(self.db + ".web-port")
        super().start()
        while not os.path.exists(self.db + ".web-port"):
            time.sleep(0.005)
        with open(self.db + ".web-port") as f:
            self.web_port = int(f.read())
        return self


class WS:
    """A WebSocket client over a plain socket."""

    def __init__(self, port, timeout=20, headers=""):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n%s"
                           "Sec-WebSocket-Version: 13\r\n\r\n" % (port, key, headers)).encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("no handshake: %r" % data)
            data += chunk
        head, self.pending = data.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise ConnectionError("handshake refused: %r" % head)

    @staticmethod
    def frame(payload, opcode=1, fin=True, masked=True, rsv=0, length=None):
        n = len(payload) if length is None else length
        head = bytes([(0x80 if fin else 0) | rsv << 4 | opcode])
        mask_bit = 0x80 if masked else 0
        if n < 126:
            head += bytes([mask_bit | n])
        elif n < 65536:
            head += bytes([mask_bit | 126]) + struct.pack(">H", n)
        else:
            head += bytes([mask_bit | 127]) + struct.pack(">Q", n)
        if not masked:
            return head + payload
        mask = os.urandom(4)
        return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

    def send_raw(self, data):
        self.sock.sendall(data)

    def send(self, text):
        self.sock.sendall(self.frame(text.encode()))

    def _read(self, n):
        while len(self.pending) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.pending += chunk
        out, self.pending = self.pending[:n], self.pending[n:]
        return out

    def recv_frame(self, with_fin=False):
        b0, b1 = self._read(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack(">H", self._read(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", self._read(8))[0]
        if with_fin:
            return b0 & 0x0F, bool(b0 & 0x80), self._read(n)
        return b0 & 0x0F, self._read(n)

    def recv(self):
        """The next text message, its fragments joined; a close frame raises EOFError with its
        status."""
        parts = []
        while True:
            opcode, fin, data = self.recv_frame(with_fin=True)
            if opcode == 8:
                raise EOFError(struct.unpack(">H", data[:2])[0] if len(data) >= 2 else None)
            assert opcode == (0 if parts else 1), (opcode, data[:80])
            parts.append(data)
            self.fragments = len(parts)
            if fin:
                return b"".join(parts).decode()

    def ask(self, line):
        self.send(line)
        return self.recv()

    def ok(self, line):
        reply = self.ask(line)
        if not reply.startswith("ok"):
            raise AssertionError("%r -> %r" % (line, reply))
        return reply[3:]

    def closed_with(self):
        """Reads until the server closes: (the text messages before, the close status)."""
        texts, status = [], None
        try:
            while True:
                opcode, data = self.recv_frame()
                if opcode == 8:
                    status = struct.unpack(">H", data[:2])[0] if len(data) >= 2 else 1005
                    break
                if opcode == 1:
                    texts.append(data.decode())
        except (EOFError, ConnectionResetError):
            pass
        # After the close frame the server ends the TCP connection too.
        try:
            while self.sock.recv(65536):
                pass
        except (ConnectionResetError, socket.timeout):
            pass
        return texts, status

    def close(self):
        self.sock.close()


def events_until(ws, predicate, limit=50):
    seen = []
    for _ in range(limit):
        line = ws.recv()
        seen.append(line)
        if predicate(line):
            return seen
    raise AssertionError("no such line among %r" % seen)


def make_site(root: str) -> str:
    """A --web folder `root`/site with one page, and beside it (outside the site) a file the
    web port must never serve. Returns the site's path."""
    site = os.path.join(root, "site")
    os.mkdir(site)
    with open(os.path.join(site, "index.html"), "w") as f:
        f.write("<!doctype html><title>board</title>\n")
    with open(os.path.join(root, "secret.txt"), "w") as f:
        f.write("not for the web\n")
    return site


class WebSocketTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.site = make_site(cls.tmp.name)
        cls.db = os.path.join(cls.tmp.name, "m.db")
        cls.server = WebServer(cls.db, web=cls.site).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.tmp.cleanup()

    def ws(self):
        return WS(self.server.web_port)

    def test_protocol_over_websocket(self):
        a = self.ws()
        mid, (t0, t1) = base.new_match(a, "halusa")
        self.assertTrue(a.ok("show %s" % mid).startswith("ply=0 turn=0"))
        self.assertEqual(a.ask("play %s 0 c1 %s" % (mid, t1)).split()[:2], ["err", "not-your-turn"])
        self.assertEqual(a.ok("play %s 0 c1 %s" % (mid, t0)), "c1")
        # The same match from the line protocol: one server, two doors.
        tcp = base.Conn(self.server.port)
        self.assertEqual(tcp.ok("history %s" % mid), "c1")
        tcp.close()
        # Pipelined messages are answered in order; a message with a line ending is one line.
        for line in ("show %s" % mid, "moves %s" % mid, "history %s" % mid):
            a.send(line)
        self.assertTrue(a.recv().startswith("ok ply=1"))
        self.assertTrue(a.recv().startswith("ok "))
        self.assertEqual(a.recv(), "ok c1")
        self.assertEqual(a.ok("quit"), "bye")
        texts, status = a.closed_with()
        self.assertEqual((texts, status), ([], 1000))

    def test_malformed_frames_close_only_that_connection(self):
        other = self.ws()
        mid = other.ok("new hus").split()[0]
        # (An unmasked frame is not among them: libwebsockets 4.1 does not check the mask bit
        # and reads the frame as if masked, so it waits for bytes that never come.)
        cases = {
            "reserved bits": WS.frame(b"show 1", rsv=4),
            "unknown opcode": WS.frame(b"show 1", opcode=3),
            "bad UTF-8": WS.frame(b"show \xff\xfe 1"),
            "oversized ping": WS.frame(b"x" * 200, opcode=9),
            "continuation first": WS.frame(b"show 1", opcode=0),
            "binary": WS.frame(b"show 1", opcode=2),
        }
        for name, data in cases.items():
            with self.subTest(name):
                bad = self.ws()
                bad.send_raw(data)
                texts, status = bad.closed_with()
                # The error is either a line (the binary message, which is well-formed) or the
                # close status: 1002 protocol error, 1003 unacceptable type, 1007 bad data.
                # libwebsockets ends the TCP connection without a close frame on an oversized
                # control frame.
                if name == "binary":
                    self.assertEqual(len(texts), 1)
                    self.assertTrue(texts[0].startswith("err usage"), texts)
                else:
                    self.assertEqual(texts, [])
                self.assertIn(status, (1002, 1003, 1007) if name != "oversized ping" else (None,),
                              name)
                bad.close()
                self.assertTrue(other.ok("show %s" % mid).startswith("ply="))
        other.close()

    def test_empty_messages(self):
        # An empty line is no command over TCP, and an empty message none over WebSocket: the
        # next command's reply is the next message. Found by UBSan (a copy from no buffer), on
        # a connection's first message.
        mid = self.ws().ok("new hus").split()[0]
        empty_final = WS.frame(b"show ", fin=False) + WS.frame(mid.encode(), opcode=0, fin=False)
        for name, data, commands in (
                ("empty", WS.frame(b""), 0),
                ("empty fragments", WS.frame(b"", fin=False) + WS.frame(b"", opcode=0), 0),
                ("empty first fragment",
                 WS.frame(b"", fin=False) + WS.frame(("show " + mid).encode(), opcode=0), 1),
                ("empty final fragment", empty_final + WS.frame(b"", opcode=0), 1)):
            with self.subTest(name):
                a = self.ws()
                a.send_raw(data)
                a.send("show %s" % mid)
                for _ in range(commands + 1):
                    self.assertTrue(a.recv().startswith("ok ply=0"), name)
                self.assertEqual(a.ask("frobnicate").split()[:2], ["err", "unknown-command"])
                a.close()

    def test_oversized_messages(self):
        other = self.ws()
        # 1024 bytes is a line the protocol takes: answered, not refused.
        self.assertEqual(other.ask("show " + "9" * 1019).split()[:2], ["err", "no-such-match"])
        for name, frames in {
            "one frame": [WS.frame(b"show " + b"1" * 2000)],
            "fragments": [WS.frame(b"show " + b"1" * 600, fin=False),
                          WS.frame(b"1" * 600, opcode=0)],
            "a 1 GB length": [WS.frame(b"x" * 16, length=1 << 30)],
        }.items():
            with self.subTest(name):
                bad = self.ws()
                for data in frames:
                    bad.send_raw(data)
                texts, status = bad.closed_with()
                self.assertEqual(texts, ["err line-too-long a command line is at most 1024 bytes"])
                self.assertEqual(status, 1009)
                bad.close()
                self.assertEqual(other.ok("help").split()[0], "commands:")
        other.close()

    def test_pushed_events(self):
        south, north, watcher = self.ws(), self.ws(), self.ws()
        mid, (t0, t1) = base.new_match(south, "halusa")
        for ws in (south, north, watcher):
            self.assertTrue(ws.ok("watch %s" % mid).startswith("watching ply=0 spec=halusa:"))
        south.send("play %s 0 c1 %s" % (mid, t0))
        self.assertEqual(events_until(south, lambda l: l.startswith("ok")),
                         ["event %s moves 0 c1" % mid, "ok c1"])
        for ws in (north, watcher):
            self.assertEqual(ws.recv(), "event %s moves 0 c1" % mid)
        north.send("play %s 1 d2 %s" % (mid, t1))
        self.assertEqual(events_until(north, lambda l: l.startswith("ok")),
                         ["event %s moves 1 d2" % mid, "ok d2"])
        for ws in (south, watcher):
            self.assertEqual(ws.recv(), "event %s moves 1 d2" % mid)
        # undo: the request, a decline, a request again and its acceptance.
        north.send("undo %s 2 %s" % (mid, t1))
        self.assertEqual(events_until(north, lambda l: l.startswith("ok")),
                         ["event %s undo-requested 1" % mid, "ok requested"])
        for ws in (south, watcher):
            self.assertEqual(ws.recv(), "event %s undo-requested 1" % mid)
        south.send("decline %s 2 %s" % (mid, t0))
        self.assertEqual(events_until(south, lambda l: l.startswith("ok")),
                         ["event %s undo-declined 0" % mid, "ok declined"])
        self.assertEqual(watcher.recv(), "event %s undo-declined 0" % mid)
        north.send("undo %s 2 %s" % (mid, t1))
        events_until(north, lambda l: l.startswith("ok"))
        south.send("accept %s 2 %s" % (mid, t0))
        self.assertIn("event %s undone 1" % mid, events_until(south, lambda l: l == "ok 1"))
        self.assertEqual(events_until(watcher, lambda l: "undone" in l)[-1],
                         "event %s undone 1" % mid)
        # A resignation ends it for everyone.
        south.send("resign %s %s" % (mid, t0))
        self.assertIn("event %s result 1 by=resignation" % mid,
                      events_until(south, lambda l: l == "ok"))
        self.assertEqual(events_until(watcher, lambda l: "result" in l)[-1],
                         "event %s result 1 by=resignation" % mid)
        # Unwatching stops the events; a reader that does not watch gets none.
        self.assertEqual(watcher.ok("unwatch %s" % mid), "")
        reader = self.ws()
        m2, (u0, _) = base.new_match(reader, "halusa")
        watcher.ok("watch %s" % m2)
        watcher.ok("unwatch %s" % m2)
        self.assertEqual(reader.ok("play %s 0 a1 %s" % (m2, u0)), "a1")
        self.assertTrue(watcher.ok("show %s" % m2).startswith("ply=1"))
        for ws in (south, north, watcher, reader):
            ws.close()

    def test_throws_and_catch_up(self):
        south = self.ws()
        mid, (t0, t1) = base.new_match(south, "tab")
        history = south.ok("history %s" % mid).split()
        self.assertTrue(history and all(h.startswith("throw:") for h in history))
        reply = south.ok("watch %s" % mid)
        self.assertIn("ply=%d" % len(history), reply)
        self.assertEqual(south.recv(), "event %s moves 0 %s" % (mid, " ".join(history)))
        tcp = base.Conn(self.server.port)
        for _ in range(6):
            ply, turn, info = base.Match.state(type("M", (), {"id": int(mid)})(), tcp)
            if turn == "-":
                break
            move = tcp.ok("moves %s" % mid).split()[0]
            words = tcp.ok("play %s %d %s %s" % (mid, ply, move, (t0, t1)[int(turn)])).split()
            line = south.recv()
            self.assertEqual(line, "event %s moves %d %s" % (mid, ply, " ".join(words)))
        full = tcp.ok("history %s" % mid).split()
        # A client that saw 3 plies gets the rest; one that saw more than there are, the ply
        # to go back to.
        late = self.ws()
        late.ok("watch %s 3" % mid)
        self.assertEqual(late.recv(), "event %s moves 3 %s" % (mid, " ".join(full[3:])))
        ahead = self.ws()
        ahead.ok("watch %s %d" % (mid, len(full) + 5))
        self.assertEqual(ahead.recv(), "event %s undone %d" % (mid, len(full)))
        self.assertEqual(ahead.ask("watch %s x" % mid).split()[:2], ["err", "usage"])
        tcp.close()
        for ws in (south, late, ahead):
            ws.close()

    def test_clocks_and_flag_fall(self):
        a = self.ws()
        for bad in ("clock=5", "clock=0+3", "clock=-1+0", "clock=5+x", "clock=2000+0",
                    "clock=5+4000", "time=5+3"):
            self.assertEqual(a.ask("new halusa " + bad).split()[:2], ["err", "bad-option"], bad)
        mid, (t0, t1) = base.new_match(a, "halusa clock=0.05+1")
        self.assertEqual(a.ok("watch %s" % mid),
                         "watching ply=0 spec=halusa:remainder=last-mover,quiet=100 "
                         "clock=3000+1000ms")
        self.assertEqual(a.recv(), "event %s clock 3000 3000 -" % mid)  # not running yet
        self.assertIn(" clock=3000,3000 ", base.show(base.Conn(self.server.port), int(mid))["position"] and
                      a.ok("show %s" % mid))
        a.send("play %s 0 c1 %s" % (mid, t0))
        lines = events_until(a, lambda l: l.startswith("ok"))
        self.assertEqual(lines[1], "event %s clock 3000 3000 1" % mid)  # first move: no increment
        time.sleep(0.5)
        a.send("play %s 1 a2 %s" % (mid, t1))
        lines = events_until(a, lambda l: l.startswith("ok"))
        left1 = int(lines[1].split()[4])
        self.assertTrue(3000 - 1500 + 1000 <= left1 <= 3000 - 400 + 1000, lines)  # increment added
        self.assertEqual(lines[1].split()[5], "0")
        # South now lets its time run out.
        t = time.monotonic()
        lines = events_until(a, lambda l: "result" in l)
        self.assertLess(time.monotonic() - t, 4.5)
        self.assertEqual(lines[-1], "event %s result 1 by=time" % mid)
        self.assertEqual(lines[-2].split()[3:], ["0", str(left1), "-"])
        self.assertEqual(a.ask("play %s 2 a1 %s" % (mid, t0)).split()[:2], ["err", "game-over"])
        shown = a.ok("show %s" % mid)
        self.assertTrue(shown.startswith("ply=2 turn=- result=1 by=time clock=0,%d " % left1), shown)
        self.assertEqual(a.ok("moves %s" % mid), "")
        a.close()

    def test_http(self):
        def get(path):
            s = socket.create_connection(("127.0.0.1", self.server.web_port), timeout=10)
            s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            s.close()
            return data
        page = get("/")
        self.assertIn(b" 200 ", page.split(b"\r\n")[0])
        self.assertIn(b"<title>board</title>", page)
        self.assertIn(b"text/html", page)
        for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/no-such-file.js"):
            answer = get(path)
            self.assertNotIn(b"not for the web", answer, path)
            self.assertNotIn(b" 200 ", answer.split(b"\r\n")[0], path)


class ClockRestartTest(unittest.TestCase):
    def test_clocks_kept_across_restart(self):
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "m.db")
            server = WebServer(db).start()
            try:
                a = WS(server.web_port)
                mid, (t0, t1) = base.new_match(a, "hus clock=10+5")
                flagged, (f0, _) = base.new_match(a, "halusa clock=0.02+0")
                a.ok("play %s 0 c1 %s" % (flagged, f0))
                moves = a.ok("moves %s" % mid).split()
                a.ok("play %s 0 %s %s" % (mid, moves[0], t0))
                time.sleep(1.6)  # the halusa clock (1.2 s) runs out
                shown = a.ok("show %s" % flagged)
                self.assertIn("result=0 by=time", shown)
                before = a.ok("show %s" % mid)
                a.close()
            finally:
                server.kill()
            server = WebServer(db).start()
            try:
                b = WS(server.web_port)
                self.assertIn("result=0 by=time clock=1200,0 ", b.ok("show %s" % flagged))
                after = b.ok("show %s" % mid)
                # North's turn: its time left is what it had when its turn began (the restart
                # gives the turn back, it never charges the downtime).
                self.assertEqual(after.split(" position=")[1], before.split(" position=")[1])
                left = [int(x) for x in after.split("clock=")[1].split()[0].split(",")]
                self.assertEqual(left[0], 600000)
                self.assertTrue(590000 <= left[1] <= 600000, after)
                b.close()
            finally:
                server.stop()


class WebLimitsTest(unittest.TestCase):
    def test_beyond_max_clients_and_idle(self):
        with tempfile.TemporaryDirectory() as tmp:
            server = WebServer(os.path.join(tmp, "m.db"), "--max-clients", "1",
                               "--idle-timeout", "1").start()
            try:
                first = base.Conn(server.port)
                first.send("help")
                first.read()
                extra = WS(server.web_port)
                texts, status = extra.closed_with()
                self.assertEqual(texts[0].split()[:2], ["err", "too-many-clients"])
                self.assertEqual(status, 1000)
                first.close()
                time.sleep(0.3)
                idle = WS(server.web_port)
                texts, _ = idle.closed_with()
                self.assertEqual(texts[0].split()[:2], ["err", "idle-timeout"])
            finally:
                server.stop()


if __name__ == "__main__":
    SERVER = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
