#!/usr/bin/env python3
"""Accounts in a browser (issue 42 item 1): the web port's POST /account/... endpoints and the
session cookie, on SQLite; run by test-tg-server.py in the same run, and on PostgreSQL by
test-tg-server-pg.py (the WebAccountTests mixed into its cases):

- register, whoami, logout, login, logout-all and delete over HTTP with a form body: the
  session cookie is HttpOnly, SameSite=Lax, Path=/, lasts as long as the session, is Secure
  with --secure-cookies only, and is cleared on signing out; the token is in the cookie alone;
- a WebSocket opened with the cookie is signed in (its `whoami`, the seats it makes), one
  without is a guest, one with a revoked or expired cookie is a guest again;
- hostile requests: a forged, malformed, expired or oversized cookie is a 401 with nothing
  changed; a request from a foreign Origin (or Referer), or naming neither, is a 403 with
  nothing changed; a body over 1 KB (413), not a form (415), or a value that would smuggle a
  second command line (400) changes nothing; wrong passwords over HTTP spend the account's and
  the address's sign-in budgets (429, even with the right password);
- no token and no password ever reaches the server's stderr or stdout;
- framing and forms (issue 41): a Content-Length that is not one number of bytes (letters, a
  sign, an exponent, hex, a list, two headers) is a 400 and one too large a 413, a chunked
  body a 411, each answered once and the connection closed at once; a Content-Type that only
  begins like a form's, or is another, is a 415 (the form's in any case and with parameters
  is let in); a NUL (%00) or a bad escape (%zz, a cut %4) in a name or a value, a field given
  twice, a missing field, a name or password that is not UTF-8 and an empty body are each a
  400 with nothing created; bytes after a request's body get no second answer; other
  methods than POST are 405 (HEAD's without a body).
"""
from __future__ import annotations

import http.client
import os
import re
import signal
import time
import unittest
import urllib.parse
from typing import Any

import sibling
from store_tests import SqliteStore, StoreTests

SERVER: "str | None" = None  # set by test-tg-server.py

ws: Any = sibling.load("tg_server_web_accounts_ws", "test-tg-server-ws.py")
base: Any = ws.base
http_tests: Any = sibling.load("tg_server_web_accounts_http", "test-tg-server-http.py")

PASSWORD = "horse-battery-9"
TOKEN = re.compile(r"^[0-9a-f]{64}$")
OPEN_BUDGETS = ("--sign-in-rate", "1000", "--address-sign-in-rate", "1000")


class Reply:
    """An HTTP response: its status, its headers (lower-case names) and its JSON body."""

    def __init__(self, response: http.client.HTTPResponse) -> None:
        import json
        self.status = response.status
        self.headers = {k.lower(): v for k, v in response.getheaders()}
        self.cookies = response.headers.get_all("set-cookie") or []
        raw = response.read()
        json_type = self.headers.get("content-type") == "application/json"
        self.body = json.loads(raw) if raw and json_type else None

    def cookie(self) -> "dict[str, str]":
        """The session cookie set: its value under "", its attributes by lower-case name."""
        self_cookies = [c for c in self.cookies if c.startswith("tg_session=")]
        assert len(self_cookies) == 1, self.cookies
        parts = [p.strip() for p in self_cookies[0].split(";")]
        out = {"": parts[0].split("=", 1)[1]}
        for p in parts[1:]:
            k, _, v = p.partition("=")
            out[k.lower()] = v
        return out


class WebAccountTests(StoreTests):
    """The tests, for any store: start() starts a server with a web port on the test's
    database (stopping the one before), rows() reads the database."""

    def open_server(self, *extra: str) -> Any:
        if "--sign-in-rate" not in extra:
            extra = OPEN_BUDGETS + extra
        self.srv = self.start(*extra)
        return self.srv

    def origin(self) -> str:
        return "http://127.0.0.1:%d" % self.srv.web_port

    def post(self, path: str, form: "dict[str, str] | None" = None, cookie: "str | None" = None,
             origin: "str | None" = "", headers: "dict[str, str] | None" = None,
             body: "bytes | None" = None) -> Reply:
        """POST path with a form; origin "" is the site's own, None sends none."""
        h = {"Host": "127.0.0.1:%d" % self.srv.web_port}
        if origin is not None:
            h["Origin"] = origin or self.origin()
        if cookie is not None:
            h["Cookie"] = "tg_session=" + cookie
        if body is None and form is not None:
            body = urllib.parse.urlencode(form).encode()
        if form is not None or body is not None:
            h["Content-Type"] = "application/x-www-form-urlencoded"
        h.update(headers or {})
        conn = http.client.HTTPConnection("127.0.0.1", self.srv.web_port, timeout=30)
        try:
            conn.request("POST", path, body=body, headers=h)
            return Reply(conn.getresponse())
        finally:
            conn.close()

    def raw(self, path: str, headers: str = "", body: bytes = b"", method: str = "POST",
            follow: bytes = b"") -> Any:
        """A request written by hand, from the site's own page (and `follow` after it)."""
        head = ("%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: %s\r\n%s\r\n"
                % (method, path, self.srv.web_port, self.origin(), headers))
        return http_tests.Exchange(self.srv.web_port, head.encode() + body + follow)

    def assert_answered_once(self, ex: Any, status: int, error: "str | None",
                             what: object) -> None:
        """One answer, with that status and error word, and the connection closed at once."""
        import json
        self.assertEqual(ex.statuses, [status], (what, ex.data[-300:]))
        if error:
            self.assertEqual(json.loads(ex.body())["error"], error, what)
        self.assertTrue(ex.closed, what)
        self.assertLess(ex.seconds, 4.0, what)  # closed at once, not by a timeout

    def register(self, name: str, password: str = PASSWORD) -> str:
        r = self.post("/account/register", {"name": name, "password": password})
        self.assertEqual((r.status, r.body), (200, {"name": name}))
        token = r.cookie()[""]
        self.assertRegex(token, TOKEN)
        return token

    def socket_with(self, token: "str | None") -> Any:
        return ws.WS(self.srv.web_port,
                     headers="Cookie: tg_session=%s\r\n" % token if token else "")

    def counts(self) -> "tuple[int, int]":
        return (int(self.rows("SELECT count(*) FROM accounts WHERE NOT deleted")[0][0]),
                int(self.rows("SELECT count(*) FROM sessions")[0][0]))

    # ---- the tests ------------------------------------------------------------------------

    def test_register_sign_out_sign_in_and_the_cookie_s_flags(self) -> None:
        self.open_server("--session-lifetime", "86400")
        self.assertEqual(self.post("/account/whoami").body, {"name": None})
        r = self.post("/account/register", {"name": "Alice", "password": PASSWORD})
        self.assertEqual(r.status, 200)
        self.assertEqual(r.body, {"name": "Alice"})  # the token in the cookie, not the body
        cookie = r.cookie()
        token = cookie[""]
        self.assertRegex(token, TOKEN)
        self.assertEqual((cookie["path"], cookie["max-age"], cookie["samesite"]),
                         ("/", "86400", "Lax"))
        self.assertIn("httponly", cookie)
        self.assertNotIn("secure", cookie)  # plain HTTP: --secure-cookies says when it is TLS
        self.assertEqual(r.headers["cache-control"], "no-store")
        self.assertEqual(self.post("/account/whoami", cookie=token).body, {"name": "Alice"})
        # A WebSocket with the cookie plays as the account; one without is a guest.
        signed, guest = self.socket_with(token), self.socket_with(None)
        self.assertEqual(signed.ask("whoami"), "ok Alice")
        self.assertEqual(guest.ask("whoami"), "ok -")
        mid = signed.ok("new halusa").split()[0]
        self.assertEqual(self.rows("SELECT a.name FROM seat_accounts s JOIN accounts a ON "
                                   "a.id = s.account_id WHERE s.match_id = %s" % mid),
                         [("Alice",)])
        # Sign out: the cookie is cleared, the session revoked.
        r = self.post("/account/logout", cookie=token)
        self.assertEqual((r.status, r.body), (200, {"name": None}))
        self.assertEqual((r.cookie()[""], r.cookie()["max-age"]), ("", "0"))
        self.assertEqual(self.post("/account/whoami", cookie=token).status, 401)
        self.assertEqual(signed.ask("whoami"), "ok -")
        # Sign in (any case), twice; sign out everywhere ends both and the WebSockets'.
        r = self.post("/account/login", {"name": "alice", "password": PASSWORD})
        self.assertEqual((r.status, r.body), (200, {"name": "Alice"}))
        t1 = r.cookie()[""]
        t2 = self.post("/account/login", {"name": "ALICE", "password": PASSWORD}).cookie()[""]
        self.assertNotEqual(t1, t2)
        on_t2 = self.socket_with(t2)
        self.assertEqual(on_t2.ask("whoami"), "ok Alice")
        r = self.post("/account/logout-all", cookie=t1)
        self.assertEqual((r.status, r.cookie()["max-age"]), (200, "0"))
        for t in (t1, t2):
            self.assertEqual(self.post("/account/whoami", cookie=t).status, 401)
        self.assertEqual(on_t2.ask("whoami"), "ok -")
        self.assertEqual(self.counts(), (1, 0))
        for s in (signed, guest, on_t2):
            s.close()

    def test_secure_cookies(self) -> None:
        self.open_server("--secure-cookies")
        r = self.post("/account/register", {"name": "bob", "password": PASSWORD})
        self.assertIn("secure", r.cookie())
        self.assertIn("httponly", r.cookie())
        token = r.cookie()[""]
        r = self.post("/account/logout", cookie=token)
        self.assertIn("secure", r.cookie())

    def test_delete_account_asks_for_the_password(self) -> None:
        self.open_server()
        token = self.register("carol")
        r = self.post("/account/delete", {"password": "wrong-password"}, cookie=token)
        self.assertEqual((r.status, r.body["error"]), (401, "bad-login"))
        self.assertEqual(self.counts(), (1, 1))
        self.assertEqual(self.post("/account/delete", {"password": PASSWORD}).status, 401)
        r = self.post("/account/delete", {"password": PASSWORD}, cookie=token)
        self.assertEqual((r.status, r.cookie()["max-age"]), (200, "0"))
        self.assertEqual(self.counts(), (0, 0))
        self.assertEqual(self.post("/account/whoami", cookie=token).status, 401)

    def test_forged_malformed_and_oversized_cookies_are_401(self) -> None:
        # The default session lifetime: these requests may take their time on a busy machine.
        self.open_server()
        token = self.register("dave")
        forged = token[:-1] + ("0" if token[-1] != "0" else "1")
        for bad in (forged, "0" * 64, token.upper(), "xyz", "", token + "0", "a" * 8000):
            for path in ("/account/whoami", "/account/logout", "/account/logout-all"):
                r = self.post(path, cookie=bad)
                self.assertEqual(r.status, 401, (path, bad[:70]))
                self.assertIn(r.body["error"], ("bad-session", "not-signed-in"))
                self.assertEqual(r.cookies, [])  # nothing set, nothing else
            r = self.post("/account/delete", {"password": PASSWORD}, cookie=bad)
            self.assertEqual(r.status, 401, bad[:70])
            sock = self.socket_with(bad)
            self.assertEqual(sock.ask("whoami"), "ok -")
            sock.close()
        self.assertEqual(self.counts(), (1, 1))  # nothing changed
        self.assertEqual(self.post("/account/whoami", cookie=token).body, {"name": "dave"})
        signed = self.socket_with(token)
        self.assertEqual(signed.ask("whoami"), "ok dave")
        # A cookie header past the headers' buffer closes that connection; the server goes on.
        answer = http_tests.exchange(self.srv.web_port, (
            "POST /account/whoami HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: %s\r\n"
            "Cookie: tg_session=%s\r\nContent-Length: 0\r\n\r\n"
            % (self.srv.web_port, self.origin(), "a" * 70000)).encode())
        self.assertNotIn(b" 200 ", answer.split(b"\r\n")[0])
        self.assertEqual(signed.ask("whoami"), "ok dave")
        signed.close()

    def test_an_expired_cookie_is_401(self) -> None:
        # Only what must come before the expiry sits between the sign-in and it.
        self.open_server("--session-lifetime", "2")
        token = self.register("dave")
        signed = self.socket_with(token)
        self.assertEqual(signed.ask("whoami"), "ok dave")
        time.sleep(2.5)  # the session expires
        r = self.post("/account/whoami", cookie=token)
        self.assertEqual((r.status, r.body["error"]), (401, "bad-session"))
        self.assertEqual(self.post("/account/logout", cookie=token).status, 401)
        self.assertEqual(signed.ask("whoami"), "ok -")
        late = self.socket_with(token)
        self.assertEqual(late.ask("whoami"), "ok -")
        for sock in (signed, late):
            sock.close()

    def test_requests_from_another_site_are_refused(self) -> None:
        self.open_server()
        token = self.register("erin")
        login = {"name": "erin", "password": PASSWORD}
        reg = {"name": "mallory", "password": PASSWORD}
        own = self.origin()
        for origin, headers in (("https://evil.example", {}), ("null", {}),
                                ("http://127.0.0.1:1", {}),
                                ("http://evil.example:%d" % self.srv.web_port, {}),
                                (None, {}),  # neither Origin nor Referer
                                (None, {"Referer": "https://evil.example/page"}),
                                (None, {"Referer": "not a url"})):
            for path, form, cookie in (("/account/register", reg, None),
                                       ("/account/login", login, None),
                                       ("/account/logout", None, token),
                                       ("/account/logout-all", None, token),
                                       ("/account/delete", {"password": PASSWORD}, token),
                                       ("/account/whoami", None, token)):
                r = self.post(path, form, cookie=cookie, origin=origin, headers=headers)
                self.assertEqual((r.status, r.body["error"]), (403, "bad-origin"),
                                 (origin, headers, path))
                self.assertEqual(r.cookies, [])
        self.assertEqual(self.counts(), (1, 1))
        # The site's own page, named by its Referer alone, may.
        r = self.post("/account/whoami", cookie=token, origin=None,
                      headers={"Referer": own + "/index.html?x"})
        self.assertEqual(r.body, {"name": "erin"})
        # With --origin, that origin and no other (the loopback one included).
        self.open_server("--origin", "https://games.example")
        self.assertEqual(self.post("/account/whoami", cookie=token,
                                   origin="https://games.example").body, {"name": "erin"})
        self.assertEqual(self.post("/account/whoami", cookie=token, origin=own).status, 403)

    def test_bad_bodies_change_nothing(self) -> None:
        self.open_server()
        token = self.register("frank")
        cases = (
            # (form or body, headers, status, error)
            ({"name": "x" * 600, "password": "y" * 600}, {}, 413, "too-large"),
            (b"a" * 1025, {}, 413, "too-large"),
            (b"name=frank&password=" + PASSWORD.encode(), {"Content-Type": "application/json"},
             415, "usage"),
            ({"name": "mallory", "password": PASSWORD + "\nlogout-all"}, {}, 400, "bad-password"),
            ({"name": "mallory\nlogout-all", "password": PASSWORD}, {}, 400, "bad-name"),
            ({"name": "mallory", "password": "has space"}, {}, 400, "bad-password"),
            ({"name": "mallory"}, {}, 400, "bad-password"),
            ({}, {}, 400, "bad-name"),
            ({"name": "ab", "password": PASSWORD}, {}, 400, "bad-name"),
            ({"name": "mallory", "password": "short"}, {}, 400, "bad-password"),
        )
        for form, headers, status, error in cases:
            for path in ("/account/register", "/account/login"):
                if isinstance(form, bytes):
                    r = self.post(path, body=form, cookie=token, headers=headers)
                else:
                    r = self.post(path, form, cookie=token, headers=headers)
                self.assertEqual((r.status, r.body["error"]), (status, error), (path, form))
        self.assertEqual(self.counts(), (1, 1))
        self.assertEqual(self.post("/account/whoami", cookie=token).body, {"name": "frank"})
        # A Content-Length larger than what comes: the connection waits, then closes.
        answer = http_tests.exchange(self.srv.web_port, (
            "POST /account/login HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: %s\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n\r\n"
            "name=frank&pass" % (self.srv.web_port, self.origin())).encode(), then_end=True)
        self.assertNotIn(b" 200 ", answer)
        # A GET is not an endpoint's method (405), and paths that are no endpoint are 404.
        for path in ("/account/login", "/account/", "/account/nothing"):
            answer = http_tests.exchange(self.srv.web_port, (
                "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n"
                % (path, self.srv.web_port)).encode())
            self.assertIn(b" 405 ", answer.split(b"\r\n")[0], path)
        self.assertEqual(self.post("/account/nothing", {"a": "b"}).status, 404)
        self.assertEqual(self.counts(), (1, 1))

    def test_bad_content_lengths_are_answered_once(self) -> None:
        # Before, `abc` or `0x10` (read as 0 by libwebsockets) got two 413 heads and no body,
        # and the connection stayed open.
        self.open_server()
        token = self.register("frank")
        body = ("name=mallory&password=%s" % PASSWORD).encode()
        n = len(body)
        for length, status, error in (
                ("abc", 400, "usage"), ("0x10", 400, "usage"), ("-5", 400, "usage"),
                ("+%d" % n, 400, "usage"), ("1e3", 400, "usage"), ("%d.0" % n, 400, "usage"),
                ("%d, %d" % (n, n), 400, "usage"), ("%d,%d" % (n, n + 1), 400, "usage"),
                ("%d\r\nContent-Length: %d" % (n, n + 1), 400, "usage"),
                ("%d\r\nContent-Length: %d" % (n, n), 400, "usage"),
                ("9" * 70, 400, "usage"), ("99999999999999999999", 413, "too-large"),
                ("1025", 413, "too-large"), ("4294967296", 413, "too-large")):
            for path in ("/account/register", "/account/login", "/account/whoami",
                         "/account/logout"):
                ex = self.raw(path, "Content-Type: application/x-www-form-urlencoded\r\n"
                              "Cookie: tg_session=%s\r\nContent-Length: %s\r\n" % (token, length),
                              body)
                self.assert_answered_once(ex, status, error, (path, length))
        for path in ("/account/register", "/account/whoami"):
            ex = self.raw(path, "Content-Type: application/x-www-form-urlencoded\r\n"
                          "Transfer-Encoding: chunked\r\n", b"%x\r\n%s\r\n0\r\n\r\n" % (n, body))
            self.assert_answered_once(ex, 411, "usage", path)
        self.assertEqual(self.counts(), (1, 1))
        self.assertEqual(self.post("/account/whoami", cookie=token).body, {"name": "frank"})
        # Spaces around the number are the header's, not the number's.
        ex = self.raw("/account/login", "Content-Type: application/x-www-form-urlencoded\r\n"
                      "Content-Length: %d  \r\n" % n, body)
        self.assert_answered_once(ex, 401, "bad-login", "spaces")

    def test_only_a_form_is_a_form(self) -> None:
        self.open_server()
        form = {"name": "mallory", "password": PASSWORD}
        for content_type in ("application/x-www-form-urlencodedXYZ",
                             "application/x-www-form-urlencoded-evil",
                             "application/x-www-form-urlencoded2; charset=utf-8",
                             "application/x-www-form-urlencoded, text/plain",
                             "xapplication/x-www-form-urlencoded", "x-www-form-urlencoded",
                             "text/plain", "application/json", "multipart/form-data; boundary=x",
                             "application/x-www-form-urlencoded\tx", ""):
            for path in ("/account/register", "/account/login"):
                r = self.post(path, form, headers={"Content-Type": content_type})
                self.assertEqual((r.status, r.body["error"]), (415, "usage"),
                                 (path, content_type))
        body = urllib.parse.urlencode(form).encode()
        for headers in ("", "Content-Type: application/x-www-form-urlencoded\r\n"
                            "Content-Type: text/plain\r\n"):
            ex = self.raw("/account/register", headers + "Content-Length: %d\r\n" % len(body),
                          body)
            self.assert_answered_once(ex, 415, "usage", headers)
        self.assertEqual(self.counts(), (0, 0))
        for i, content_type in enumerate(("APPLICATION/X-WWW-Form-Urlencoded",
                                          "application/x-www-form-urlencoded; charset=UTF-8",
                                          "application/x-www-form-urlencoded ;charset=utf-8",
                                          # what fetch() sends with URLSearchParams
                                          "application/x-www-form-urlencoded;charset=UTF-8")):
            r = self.post("/account/register", {"name": "typed%d" % i, "password": PASSWORD},
                          headers={"Content-Type": content_type})
            self.assertEqual((r.status, r.body), (200, {"name": "typed%d" % i}), content_type)
        self.assertEqual(self.counts(), (4, 4))

    def test_malformed_forms_change_nothing(self) -> None:
        # Before, `mal%00lory` was taken for `mal` (lws_spa cuts at the NUL): an account
        # nobody asked for, and its session.
        self.open_server()
        token = self.register("frank")
        pw = PASSWORD.encode()
        for body, error in (
                (b"name=mal%00lory&password=" + pw, "usage"),
                (b"name=mallory&password=horse-battery%009", "usage"),
                (b"name=mallory%00&password=" + pw, "usage"),
                (b"na%00me=mallory&password=" + pw, "usage"),
                (b"name=mal%zzlory&password=" + pw, "usage"),
                (b"name=mal%4glory&password=" + pw, "usage"),
                (b"name=mallory&password=" + pw + b"%4", "usage"),
                (b"name=mallory&password=" + pw + b"%", "usage"),
                (b"name=mallory&name=trudy&password=" + pw, "usage"),
                (b"name=mallory&name=mallory&password=" + pw, "usage"),
                (b"name=mallory&password=" + pw + b"&password=" + pw, "usage"),
                (b"password=" + pw, "bad-name"),
                (b"name=mallory", "bad-password"),
                (b"name=&password=" + pw, "bad-name"),
                (b"name&password=" + pw, "bad-name"),
                (b"name=%ff%fe%fd&password=" + pw, "bad-name"),
                (b"name=mal\xfflory&password=" + pw, "bad-name"),
                (b"name=%c0%80abc&password=" + pw, "bad-name"),
                (b"name=mallory&password=horse%ff%febattery", "bad-password"),
                (b"name=mallory&password=horse%ed%a0%80battery", "bad-password"),
                (b"name=mallory+x&password=" + pw, "bad-name"),
                (b"&&&", "bad-name"),
                (b"", "bad-name")):
            for path in ("/account/register", "/account/login"):
                ex = self.raw(path, "Content-Type: application/x-www-form-urlencoded\r\n"
                              "Content-Length: %d\r\n" % len(body), body)
                self.assert_answered_once(ex, 400, error, (path, body))
        for body in (b"password=%00", b"password=abc%zz", b"password=" + pw + b"&password=x"):
            ex = self.raw("/account/delete", "Cookie: tg_session=%s\r\nContent-Type: "
                          "application/x-www-form-urlencoded\r\nContent-Length: %d\r\n"
                          % (token, len(body)), body)
            self.assert_answered_once(ex, 400, "usage", body)
        self.assertEqual(self.counts(), (1, 1))
        self.assertEqual(self.rows("SELECT name FROM accounts"), [("frank",)])
        self.assertEqual(self.post("/account/whoami", cookie=token).body, {"name": "frank"})
        # Fields the endpoint does not take are let be, as a browser's form may hold more.
        r = self.post("/account/register", {"name": "mallory", "password": PASSWORD,
                                            "submit": "Register"})
        self.assertEqual((r.status, r.body), (200, {"name": "mallory"}))

    def test_bytes_after_a_request_get_no_second_answer(self) -> None:
        self.open_server()
        token = self.register("frank")
        form = "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n"
        login = ("name=frank&password=%s" % PASSWORD).encode()
        whoami = ("POST /account/whoami HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: %s\r\n"
                  "Cookie: tg_session=%s\r\nContent-Length: 0\r\n\r\n"
                  % (self.srv.web_port, self.origin(), token)).encode()
        sessions = self.counts()[1]
        for follow in (b"X", b"\r\n", whoami, whoami + whoami):
            # After a body: answered once (the sign-in made and its cookie set), then closed.
            ex = self.raw("/account/login", form % len(login), login, follow=follow)
            self.assert_answered_once(ex, 200, None, follow[:30])
            self.assertIn("tg_session=", ex.headers().get("set-cookie", ""), follow[:30])
            sessions += 1
            self.assertEqual(self.counts(), (1, sessions))
            # A body-less request: at most one answer, then closed.
            ex = self.raw("/account/whoami", "Cookie: tg_session=%s\r\nContent-Length: 0\r\n"
                          % token, follow=follow)
            self.assertLessEqual(len(ex.statuses), 1, follow[:30])
            self.assertTrue(ex.closed and ex.seconds < 4.0, follow[:30])
        self.assertEqual(self.post("/account/whoami", cookie=token).body, {"name": "frank"})

    def test_other_methods_are_405(self) -> None:
        self.open_server()
        token = self.register("frank")
        for method in ("GET", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH"):
            for path in ("/account/register", "/account/logout-all", "/account/delete"):
                body = ("name=mallory&password=%s" % PASSWORD).encode()
                ex = self.raw(path, "Cookie: tg_session=%s\r\nContent-Type: application/"
                              "x-www-form-urlencoded\r\nContent-Length: %d\r\n"
                              % (token, len(body)), body, method=method)
                self.assert_answered_once(ex, 405, None, (method, path))
                self.assertEqual(ex.headers().get("allow"), "POST", (method, path))
                if method == "HEAD":
                    self.assertEqual(ex.body(), b"", path)
        self.assertEqual(self.counts(), (1, 1))

    def test_wrong_passwords_spend_the_sign_in_budgets(self) -> None:
        self.open_server("--sign-in-rate", "3", "--address-sign-in-rate", "7")
        self.register("grace")  # the address's attempt 1
        self.register("heidi")  # 2
        for _ in range(3):      # 3, 4, 5: grace's whole budget
            r = self.post("/account/login", {"name": "grace", "password": "wrong-password"})
            self.assertEqual((r.status, r.body["error"]), (401, "bad-login"))
        r = self.post("/account/login", {"name": "GRACE", "password": PASSWORD})
        self.assertEqual((r.status, r.body["error"]), (429, "rate-limited"))
        self.assertIn("account", r.body["message"])
        self.assertEqual(r.cookies, [])
        # Over the line protocol too: one budget for both.
        line = base.Conn(self.srv.port)
        self.assertTrue(line.ask("login grace %s" % PASSWORD).startswith("err rate-limited "))
        self.assertEqual(self.post("/account/login",
                                   {"name": "heidi", "password": PASSWORD}).status, 200)  # 6
        self.assertTrue(line.ask("login heidi wrong-password").startswith("err bad-login"))  # 7
        r = self.post("/account/login", {"name": "heidi", "password": PASSWORD})
        self.assertEqual((r.status, r.body["error"]), (429, "rate-limited"))
        self.assertIn("address", r.body["message"])
        line.close()

    def test_no_token_or_password_in_the_server_s_output(self) -> None:
        srv = self.open_server()
        token = self.register("ivan")
        tokens = [token, self.post("/account/login",
                                   {"name": "ivan", "password": PASSWORD}).cookie()[""]]
        self.post("/account/login", {"name": "ivan", "password": "wrong-password"})
        self.post("/account/whoami", cookie=tokens[1])
        sock = self.socket_with(tokens[0])
        sock.ask("whoami")
        sock.close()
        self.post("/account/logout", cookie=tokens[0], origin="https://evil.example")
        self.post("/account/logout", cookie=tokens[0])
        srv.proc.send_signal(signal.SIGTERM)
        out, err = srv.proc.communicate(timeout=20)
        self.assertEqual(srv.proc.returncode, 0, err)
        for secret in tokens + [PASSWORD, "wrong-password"]:
            self.assertNotIn(secret, err)
            self.assertNotIn(secret, srv.banner + out)


class WebAccountsTest(SqliteStore, WebAccountTests, unittest.TestCase):
    """The tests on SQLite."""

    tmp_prefix = "tg-server-web-accounts-"

    def setUp(self) -> None:
        ws.SERVER = base.SERVER = SERVER
        super().setUp()

    def new_server(self, *extra: str) -> Any:
        return ws.WebServer(self.db, *extra)


if __name__ == "__main__":
    import sys
    SERVER = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
