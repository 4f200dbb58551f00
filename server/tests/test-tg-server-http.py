#!/usr/bin/env python3
"""Hostile HTTP on tg-server's web port (issue 41), run by test-tg-server.py in the same run:

- no request takes the server down, with or without --web: headers past the buffer (an 8 KB
  cookie is served, a 64 KB one closes that connection), absolute-URI request lines, garbage
  request lines, `..` paths, a request cut in the middle of its headers; after each the server
  still answers a WebSocket and a line-port client, and nothing outside the site is served;
- `GET /matches/ID.tgr` for ids of one to four digits, a large one that does not exist (404)
  and malformed ones (404);
- without --origin, a WebSocket from a page whose name resolves to 127.0.0.1 (DNS rebinding:
  Host and Origin evil.example) is refused, loopback's own names are let in;
- 300 idle connections to the web port leave room for WebSockets;
- every answer the server makes itself (a record, an error, /metrics) is one answer, whole,
  after which the connection closes: other methods than GET on /matches/ are 405 (a HEAD's
  without a body), a request followed by more bytes before its answer (pipelined) gets at most
  one answer and its connection closes at once, the metrics port answers HEAD without a body
  and other methods 405, a WebSocket naming the relay's own subprotocol is refused, and a
  CONNECT is closed at once.
"""
import http.client
import os
import re
import socket
import tempfile
import time
import unittest

import sibling

SERVER = None  # set by test-tg-server.py

ws = sibling.load("tg_server_http_ws", "test-tg-server-ws.py")
base = ws.base


def exchange(port, request: bytes, timeout=10, then_end=False) -> bytes:
    """Sends request as it is (then_end: and says it sends no more), then reads what comes
    until the server closes the connection, resets it, or says nothing more for a while."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    data = b""
    try:
        s.sendall(request)
        if then_end:
            s.shutdown(socket.SHUT_WR)
        s.settimeout(2)
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    s.close()
    return data


def status_line(answer: bytes) -> str:
    return answer.split(b"\r\n")[0].decode(errors="replace")


class Exchange:
    """A request sent as it is, and what came back: all of it (data), the status of every
    answer in it (statuses), whether the server closed the connection (closed) and after how
    many seconds (seconds), or fell silent for `silence` seconds with it open."""

    def __init__(self, port, request: bytes, silence=10.0):
        s = socket.create_connection(("127.0.0.1", port), timeout=silence)
        self.data, self.closed = b"", False
        t0 = time.monotonic()
        try:
            s.sendall(request)
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    self.closed = True
                    break
                self.data += chunk
        except ConnectionResetError:
            self.closed = True
        except socket.timeout:
            pass
        self.seconds = time.monotonic() - t0
        s.close()
        self.statuses = [int(m) for m in re.findall(rb"(?:^|\r\n)HTTP/1\.[01] (\d{3}) ",
                                                      self.data)]

    def headers(self) -> "dict[str, str]":
        """The first answer's headers, by lower-case name."""
        head = self.data.split(b"\r\n\r\n", 1)[0].decode(errors="replace").split("\r\n")[1:]
        return {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in head)}

    def body(self) -> bytes:
        return self.data.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in self.data else b""


class HostileRequestsCase(unittest.TestCase):
    with_site = True

    def setUp(self):
        ws.SERVER = base.SERVER = SERVER
        self.tmp = tempfile.TemporaryDirectory(prefix="tg-server-test-")
        site = ws.make_site(self.tmp.name) if self.with_site else None
        self.server = ws.WebServer(os.path.join(self.tmp.name, "m.db"), web=site).start()
        self.port = self.server.web_port

    def tearDown(self):
        self.server.stop()
        self.tmp.cleanup()

    def assert_still_serving(self, what):
        self.assertIsNone(self.server.proc.poll(), "the server died after %s" % what)
        b = ws.WS(self.port)
        self.assertTrue(b.ask("list").startswith("ok"), what)
        b.close()
        c = base.Conn(self.server.port)
        self.assertTrue(c.ask("list").startswith("ok"), what)
        c.close()

    def get(self, path, headers=""):
        return exchange(self.port, ("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s"
                                    "Connection: close\r\n\r\n"
                                    % (path, self.port, headers)).encode())

    def test_oversized_headers(self):
        cookie = "Cookie: session=" + "a" * 8 * 1024 + "\r\n"
        answer = self.get("/", cookie)
        if self.with_site:  # a browser with a large cookie still gets the page
            self.assertIn(" 200 ", status_line(answer))
        self.assert_still_serving("an 8 KB cookie")
        for size in (64 * 1024, 1024 * 1024):
            answer = self.get("/", "Cookie: session=" + "a" * size + "\r\n")
            self.assertNotIn(" 200 ", status_line(answer))
            self.assert_still_serving("a %d-byte cookie" % size)
        many = "".join("X-Header-%d: %s\r\n" % (i, "v" * 100) for i in range(600))
        self.get("/", many)
        self.assert_still_serving("600 headers")
        # The same on a WebSocket upgrade, and on the record and metrics paths.
        for path in ("/matches/1.tgr", "/metrics"):
            self.get(path, "Cookie: s=" + "a" * 64 * 1024 + "\r\n")
            self.assert_still_serving("a 64 KB cookie on %s" % path)
        exchange(self.port, ("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                             "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                             "Sec-WebSocket-Version: 13\r\nCookie: %s\r\n\r\n"
                             % (self.port, "a" * 64 * 1024)).encode())
        self.assert_still_serving("a 64 KB cookie on a WebSocket upgrade")

    def test_absolute_uris_garbage_and_dot_dot(self):
        port = self.port
        requests = [
            b"GET http://127.0.0.1/../x HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET http://127.0.0.1/../x HTTP/1.1\r\n\r\n",
            b"GET http://127.0.0.1/ HTTP/1.1\r\nHost: x\r\n\r\n",
            ("GET http://127.0.0.1:%d/index.html HTTP/1.1\r\n\r\n" % port).encode(),
            b"GET https://a/b/../../../secret.txt HTTP/1.1\r\nHost: a\r\n\r\n",
            b"GET http://x HTTP/1.1\r\n\r\n",
            b"GET http:// HTTP/1.1\r\n\r\n",
            b"GET http://127.0.0.1/matches/1.tgr HTTP/1.1\r\n\r\n",
            b"GET http://127.0.0.1/metrics HTTP/1.1\r\n\r\n",
            b"GET * HTTP/1.1\r\n\r\n",
            b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET ../secret.txt HTTP/1.1\r\n\r\n",
            b"GET .. HTTP/1.1\r\n\r\n",
            b"GET /../secret.txt HTTP/1.1\r\n\r\n",
            b"GET /a/../../secret.txt HTTP/1.1\r\n\r\n",
            b"GET /%2e%2e/secret.txt HTTP/1.1\r\n\r\n",
            b"GET /..%2fsecret.txt HTTP/1.1\r\n\r\n",
            b"GET /matches/../secret.txt HTTP/1.1\r\n\r\n",
            b"GET /matches/../../secret.txt HTTP/1.1\r\n\r\n",
            b"GET /metrics/../../secret.txt HTTP/1.1\r\n\r\n",
            b"GET /matches/ HTTP/1.1\r\n\r\n",
            b"GET /matches HTTP/1.1\r\n\r\n",
            b"GET //// HTTP/1.1\r\n\r\n",
            b"GET /" + b"a/" * 3000 + b" HTTP/1.1\r\n\r\n",
            b"GET /" + b"../" * 3000 + b"secret.txt HTTP/1.1\r\n\r\n",
            b"GET /\x00/x HTTP/1.1\r\n\r\n",
            b"GET /%00 HTTP/1.1\r\n\r\n",
            b"\x00\x01\x02\x03\r\n\r\n",
            b"GARBAGE\r\n\r\n",
            b"GET\r\n\r\n",
            b"GET / HTTP/9.9\r\n\r\n",
            b"GET / FTP/1.0\r\n\r\n",
            b"POST /matches/1.tgr HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
            b"POST /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            b"PUT / HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: x\r\n" + b"\xff" * 200 + b"\r\n\r\n",
            b"GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
            bytes(range(256)) * 8,
        ]
        for request in requests:
            what = repr(request[:60])
            answer = exchange(port, request, then_end=True)
            self.assertNotIn(b"not for the web", answer, what)
            self.assert_still_serving(what)

    def test_requests_cut_short(self):
        for request in (b"GET / HTTP/1.1\r\nHost: x\r\nCookie: abc",
                        b"GET /matches/1.tgr HTTP/1.1\r\nHost: x\r\n",
                        b"GET /metrics HTTP/1.1\r\nHo",
                        b"GET http://127.0.0.1/../x HT",
                        b"GET / HTTP/1.1\r\nCookie: " + b"a" * 6000):
            s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
            s.sendall(request)
            s.close()
            # And cut with a reset rather than a close.
            s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            s.sendall(request)
            s.close()
            self.assert_still_serving(repr(request[:40]))


class HostileRequestsTest(HostileRequestsCase):
    with_site = True


class HostileRequestsWithoutSiteTest(HostileRequestsCase):
    with_site = False


class RecordOverHttpTest(unittest.TestCase):
    def test_record_ids_of_any_length(self):
        ws.SERVER = base.SERVER = SERVER
        with tempfile.TemporaryDirectory(prefix="tg-server-test-") as tmp:
            server = ws.WebServer(os.path.join(tmp, "m.db")).start()
            try:
                c = base.Conn(server.port)
                # Ids 1 to 1000, pipelined: one round trip for all of them.
                for _ in range(1000):
                    c.send("new halusa")
                ids = [int(c.read().split()[1]) for _ in range(1000)]
                self.assertEqual(ids, list(range(1, 1001)))

                def get(path):
                    return exchange(server.web_port, ("GET %s HTTP/1.1\r\nHost: x\r\n"
                                                      "Connection: close\r\n\r\n"
                                                      % path).encode())
                for mid in (1, 99, 100, 1000):
                    conn = http.client.HTTPConnection("127.0.0.1", server.web_port, timeout=10)
                    conn.request("GET", "/matches/%d.tgr" % mid)
                    answer = conn.getresponse()
                    self.assertEqual(answer.status, 200, mid)
                    body = answer.read().decode()  # chunked: the record streams
                    conn.close()
                    lines = [c.read() for _ in range(int(c.ok("record %d" % mid)))]
                    self.assertEqual(body, "".join(line + "\n" for line in lines), mid)
                    self.assertIn('[Match "%d"]' % mid, body)
                for path in ("/matches/1001.tgr", "/matches/9223372036854775807.tgr",
                             "/matches/1234567890123.tgr"):
                    self.assertIn(" 404 ", status_line(get(path)), path)
                for path in ("/matches/0.tgr", "/matches/01.tgr", "/matches/1.tgrx",
                             "/matches/1.txt", "/matches/-1.tgr", "/matches/1a.tgr",
                             "/matches/.tgr", "/matches/1", "/matches/1.tgr/x",
                             "/matches/+1.tgr", "/matches/ 1.tgr",
                             "/matches/99999999999999999999.tgr",
                             "/matches/" + "9" * 200 + ".tgr"):
                    self.assertIn(" 404 ", status_line(get(path)), path)
                self.assertIsNone(server.proc.poll())
                c.close()
            finally:
                server.stop()


def handshake_status(port, host, origin=None):
    """The status line of a WebSocket handshake naming that Host (and Origin, if given)."""
    head = ("GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" % host)
    if origin:
        head += "Origin: %s\r\n" % origin
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    data = b""
    try:
        s.sendall((head + "\r\n").encode())
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    s.close()
    return status_line(data)


class OneAnswerTest(unittest.TestCase):
    """What the server answers itself is answered once, whole, and closes its connection."""

    def setUp(self):
        ws.SERVER = base.SERVER = SERVER
        self.tmp = tempfile.TemporaryDirectory(prefix="tg-server-test-")
        db = os.path.join(self.tmp.name, "m.db")
        self.server = ws.WebServer(db, "--metrics-port", "0", "--metrics-port-file",
                                   db + ".metrics-port").start()
        with open(db + ".metrics-port") as f:
            self.metrics_port = int(f.read())
        self.port = self.server.web_port
        c = base.Conn(self.server.port)
        for _ in range(2):
            c.ok("new halusa")
        c.close()

    def tearDown(self):
        self.server.stop()
        self.tmp.cleanup()

    def assert_one_answer_and_closed(self, ex, status, what):
        self.assertEqual(ex.statuses, [status], (what, ex.data[:300]))
        self.assertTrue(ex.closed, what)
        self.assertEqual(ex.headers().get("connection"), "close", what)

    def assert_still_serving(self, what):
        self.assertIsNone(self.server.proc.poll(), "the server died after %s" % what)
        ex = Exchange(self.port, b"GET /matches/1.tgr HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertEqual(ex.statuses, [200], what)
        self.assertIn(b'[Match "1"]', ex.body(), what)

    def test_other_methods_on_records_are_405(self):
        for method in ("HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"):
            for path in ("/matches/1.tgr", "/matches/9.tgr", "/matches/x"):
                ex = Exchange(self.port, ("%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: 0"
                                          "\r\n\r\n" % (method, path)).encode())
                what = "%s %s" % (method, path)
                self.assert_one_answer_and_closed(ex, 405, what)
                self.assertEqual(ex.headers().get("allow"), "GET", what)
                if method == "HEAD":  # a body would be read as the next answer
                    self.assertEqual(ex.body(), b"", what)
        self.assert_still_serving("other methods")

    def test_errors_and_records_close_their_connection(self):
        for path, status in (("/matches/1.tgr", 200), ("/matches/9.tgr", 404),
                             ("/matches/01.tgr", 404), ("/nothing", 404)):
            ex = Exchange(self.port, ("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path).encode())
            self.assert_one_answer_and_closed(ex, status, path)

    def test_pipelined_requests_get_at_most_one_answer(self):
        # libwebsockets 4.1 hands a request followed by more bytes to the callback a second
        # time, with its old headers: before, such a record was never answered and its
        # connection hung until a timeout (5 s), and a POST's refusal was answered twice.
        get = b"GET /matches/%d.tgr HTTP/1.1\r\nHost: x\r\n\r\n"
        for follow in (get % 2, b"X", b"\r\n", get % 1 + get % 2, b"GET /index.html HTTP/1.1"):
            ex = Exchange(self.port, get % 1 + follow)
            what = repr(follow[:40])
            self.assertLessEqual(len(ex.statuses), 1, what)
            if ex.statuses:  # then a whole record
                self.assertEqual(ex.statuses, [200], what)
                self.assertTrue(ex.data.endswith(b"\r\n0\r\n\r\n"), what)
            self.assertTrue(ex.closed, what)
            self.assertLess(ex.seconds, 4.0, what)  # closed at once, not by a timeout
            self.assert_still_serving(what)

    def test_a_connect_is_closed_at_once(self):
        # Before, libwebsockets made such a connection a raw socket of the browser's
        # protocol, with no timeout: it stayed open, unanswered, for as long as its client.
        for request in (b"CONNECT /matches/1.tgr HTTP/1.1\r\nHost: x\r\n\r\n",
                        b"CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n",
                        b"CONNECT /account/login HTTP/1.1\r\n\r\nname=a"):
            ex = Exchange(self.port, request)
            self.assertTrue(ex.closed and ex.seconds < 4.0, (request, ex.seconds))
            self.assertNotIn(200, ex.statuses, request)
            self.assert_still_serving(repr(request[:30]))

    def test_metrics_port_answers_once(self):
        ex = Exchange(self.metrics_port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assert_one_answer_and_closed(ex, 200, "GET /metrics")
        self.assertIn(b"\ntg_server_matches ", ex.body())
        ex = Exchange(self.metrics_port, b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assert_one_answer_and_closed(ex, 200, "HEAD /metrics")
        self.assertEqual(ex.body(), b"")
        for method in ("POST", "PUT", "DELETE", "OPTIONS"):
            ex = Exchange(self.metrics_port, ("%s /metrics HTTP/1.1\r\nHost: x\r\n"
                                              "Content-Length: 3\r\n\r\nabc" % method).encode())
            self.assert_one_answer_and_closed(ex, 405, method)
        for path in ("/metrics/x", "/metricsx", "/", "/matches/1.tgr", "/account/login"):
            ex = Exchange(self.metrics_port, ("GET %s HTTP/1.1\r\nHost: x\r\n\r\n"
                                              % path).encode())
            self.assert_one_answer_and_closed(ex, 404, path)
        ex = Exchange(self.metrics_port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
                                         b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertEqual(ex.statuses, [200])
        self.assertTrue(ex.closed)
        # Never on the web port, however asked.
        for request in (b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
                        b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
                        b"GET http://127.0.0.1/metrics HTTP/1.1\r\nHost: x\r\n\r\n",
                        b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n"
                        % self.metrics_port):
            ex = Exchange(self.port, request)
            self.assertNotIn(b"tg_server_", ex.data, request)
            self.assertNotIn(200, ex.statuses, request)

    def test_the_relay_s_subprotocol_is_no_browser_s(self):
        # Before, a WebSocket naming `tg-line` was bound to the relay's own callback: let in
        # from any Origin, and never relayed.
        for origin in ("https://evil.example", "http://127.0.0.1:%d" % self.port, None):
            head = ("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                    "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: tg-line\r\n"
                    % self.port)
            if origin:
                head += "Origin: %s\r\n" % origin
            ex = Exchange(self.port, (head + "\r\n").encode(), silence=5)
            self.assertNotIn(101, ex.statuses, origin)
        self.assert_still_serving("a WebSocket naming tg-line")


class WebPortGuardsTest(unittest.TestCase):
    def setUp(self):
        ws.SERVER = base.SERVER = SERVER
        self.tmp = tempfile.TemporaryDirectory(prefix="tg-server-test-")

    def tearDown(self):
        self.tmp.cleanup()

    def test_dns_rebinding_is_refused(self):
        server = ws.WebServer(os.path.join(self.tmp.name, "m.db")).start()
        try:
            port = server.web_port
            for name in ("127.0.0.1", "localhost", "[::1]"):
                own = "%s:%d" % (name, port)
                self.assertIn(" 101 ", handshake_status(port, own, "http://" + own), name)
            self.assertIn(" 101 ", handshake_status(port, "127.0.0.1:%d" % port))  # no Origin
            evil = "evil.example:%d" % port
            self.assertNotIn(" 101 ", handshake_status(port, evil, "http://" + evil))
            self.assertNotIn(" 101 ", handshake_status(port, evil))
            self.assertNotIn(" 101 ", handshake_status(port, "127.0.0.1:%d" % port,
                                                       "http://" + evil))
            self.assertNotIn(" 101 ", handshake_status(port, evil,
                                                       "http://127.0.0.1:%d" % port))
            self.assertNotIn(" 101 ", handshake_status(port, "127.0.0.1:%d" % (port + 1),
                                                       "http://127.0.0.1:%d" % (port + 1)))
        finally:
            server.stop()

    def test_idle_http_connections_leave_room_for_websockets(self):
        # --max-clients 120: 136 browser sockets at once. 300 idle connections would take
        # every place if HTTP had no share of its own.
        server = ws.WebServer(os.path.join(self.tmp.name, "m.db"), "--max-clients", "120")
        server.limit_files = 400
        server.start()
        idle = []
        try:
            for _ in range(300):
                try:
                    idle.append(socket.create_connection(("127.0.0.1", server.web_port),
                                                         timeout=10))
                except OSError:
                    break
            self.assertEqual(len(idle), 300)
            b = ws.WS(server.web_port)
            self.assertTrue(b.ask("list").startswith("ok"))
            # And again, with the idle ones still there: a second WebSocket beside the first.
            b2 = ws.WS(server.web_port)
            self.assertTrue(b2.ask("list").startswith("ok"))
            b.close()
            b2.close()
        finally:
            for s in idle:
                s.close()
            server.stop()


if __name__ == "__main__":
    import sys
    SERVER = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
