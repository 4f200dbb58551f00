#!/usr/bin/env python3
"""A trusted proxy in front of tg-server's web port (issue 28 item 2, --trusted-proxy), run by
test-tg-server.py in the same run: browsers behind one proxy are told apart for the address
budgets by the address the proxy names (X-Forwarded-For, or Forwarded), and only when the
proxy is one the server was told to trust; a header from anyone else, or one that names no
well-formed address, changes nothing.
"""
import os
import tempfile
import unittest

import sibling

SERVER = None  # set by test-tg-server.py

ws = sibling.load("tg_server_proxy_ws", "test-tg-server-ws.py")
base = ws.base


class ProxyCase(unittest.TestCase):
    trust = ()

    def setUp(self):
        base.SERVER = ws.SERVER = SERVER
        self.tmp = tempfile.TemporaryDirectory(prefix="tg-server-test-")
        db = os.path.join(self.tmp.name, "matches.db")
        args = ["--rate", "1000", "--address-rate", "1"]
        for a in self.trust:
            args += ["--trusted-proxy", a]
        self.server = ws.WebServer(db, *args).start()

    def tearDown(self):
        self.server.stop()
        self.tmp.cleanup()

    def ten_lists(self, header):
        """Of ten `list`s from a browser whose proxy sends header: how many were answered."""
        b = ws.WS(self.server.web_port, headers=header)
        for _ in range(10):
            b.send("list")
        replies = [b.recv() for _ in range(10)]
        b.close()
        return sum(r.startswith("ok") for r in replies)

    def spend_loopbacks_budget(self):
        self.assertLess(self.ten_lists(""), 10)  # 1 a second, 5 at once: mostly refused


class TrustedProxyTest(ProxyCase):
    trust = ("10.9.9.9", "127.0.0.1")

    def test_the_named_client_has_its_own_budget(self):
        self.spend_loopbacks_budget()
        # Each browser behind the proxy has its own budget: five at once each.
        self.assertGreaterEqual(self.ten_lists("X-Forwarded-For: 203.0.113.5\r\n"), 5)
        self.assertGreaterEqual(
            self.ten_lists("X-Forwarded-For: 198.51.100.1, 203.0.113.6\r\n"), 5)
        self.assertGreaterEqual(self.ten_lists('Forwarded: for="[2001:db8::7]:4711"\r\n'), 5)
        self.assertGreaterEqual(
            self.ten_lists("Forwarded: for=192.0.2.1, for=192.0.2.8;proto=https\r\n"), 5)
        # The same client again: its budget is spent.
        self.assertLess(self.ten_lists("X-Forwarded-For: 203.0.113.5\r\n"), 5)

    def test_a_header_that_names_no_address_is_the_proxys(self):
        self.spend_loopbacks_budget()
        for header in ("X-Forwarded-For: not-an-address\r\n", "X-Forwarded-For: 203.0.113.9, \r\n",
                       "Forwarded: by=203.0.113.9\r\n", "X-Forwarded-For: 999.1.1.1\r\n"):
            self.assertLess(self.ten_lists(header), 5, header)


class UntrustedProxyTest(ProxyCase):
    trust = ("10.9.9.9",)  # not the peer these browsers come from

    def test_headers_from_an_untrusted_peer_are_ignored(self):
        self.spend_loopbacks_budget()
        self.assertLess(self.ten_lists("X-Forwarded-For: 203.0.113.5\r\n"), 5)
        self.assertLess(self.ten_lists("Forwarded: for=203.0.113.6\r\n"), 5)
