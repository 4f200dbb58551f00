#!/usr/bin/env python3
"""History (issue 42 item 4): `player-page NAME [PAGE]` and `match-page ID` on the line
protocol, and GET /players/NAME.json and /matches/ID.json on the web port, on SQLite; run by
test-tg-server.py in the same run, and on PostgreSQL by test-tg-server-pg.py (HistoryTests
mixed into its cases):

- after two rated games between two accounts (one ended by the rules, one by resignation) and a
  rated flag fall, a player's page lists the rating per game and category as the ratings table
  holds it, one point of rating history per rated result (oldest first, each naming its match)
  and the finished games, newest first, each with its opponent, result, outcome, end reason and
  rated flag; pages of 20, `more` when there are more;
- a match's page names both players, the result and how it ended, the rule spec, the plies, the
  rating each player had before and after (1500 before a first game), and the record's path; a
  casual game between guests and a running one are shown as such;
- over HTTP the same JSON, with Content-Type application/json and Cache-Control (no-cache but
  for an ended match's page); the record is still GET /matches/ID.tgr;
- hostile input: an unknown or malformed name, huge or negative page numbers, bad, zero,
  overflowing and unknown ids, extra words; over HTTP encoded names, traversal, NUL bytes, long
  names, bad query strings and wrong suffixes: each a clear error (404 over HTTP), nothing
  changed, and the server still answers.
"""
from __future__ import annotations

import http.client
import json
import os
import time
import unittest
from typing import Any

import sibling
from store_tests import SqliteStore, StoreTests

SERVER: "str | None" = None  # set by test-tg-server.py

ws: Any = sibling.load("tg_server_history_ws", "test-tg-server-ws.py")
base: Any = ws.base
lobby: Any = sibling.load("tg_server_history_lobby", "test-tg-server-lobby.py")
Conn = base.Conn

OPEN = lobby.OPEN_BUDGETS + ("--rate", "1000", "--address-rate", "1000")


def get(port: int, path: str) -> "tuple[int, dict[str, str], bytes]":
    """GET path on the web port: (status, headers with lower-case names, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.putrequest("GET", path, skip_accept_encoding=True)
        conn.endheaders()
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def page_of(conn: Any, command: str) -> Any:
    """The JSON of a `player-page` or `match-page` reply."""
    reply = conn.ask(command)
    assert reply.startswith("ok {"), reply
    return json.loads(reply[3:])


class HistoryTests(StoreTests):
    """The tests, for any store: start() starts a server with a web port (self.web_port)."""

    matched = lobby.LobbyTests.matched
    feed_line = lobby.LobbyTests.feed_line

    def open_server(self) -> Any:
        self.srv = self.start(*OPEN)
        return self.srv

    def signed_in(self, port: int, name: str) -> Any:
        c = Conn(port)
        c.ok("register %s %s" % (name, lobby.PASSWORD))
        return c

    def seat_of(self, mid: int, name: str) -> int:
        return int(self.rows("SELECT s.seat FROM seat_accounts s JOIN accounts a ON a.id = "
                             "s.account_id WHERE s.match_id = %d AND a.name = '%s'"
                             % (mid, name))[0][0])

    def rating_row(self, name: str, game: str, category: str) -> "tuple[float, float, int]":
        r = self.rows("SELECT r.rating, r.rd, r.games FROM ratings r JOIN accounts a ON a.id = "
                      "r.account_id WHERE a.name = '%s' AND r.game = '%s' AND r.category = "
                      "'%s'" % (name, game, category))[0]
        return float(r[0]), float(r[1]), int(r[2])

    def three_rated_games(self, alice: Any, bob: Any) -> "list[tuple[int, str, str]]":
        """Alice and Bob play Hus at 5+3 to the end by the rules, then Bob resigns one, then
        a bullet game ends on a flag fall: [(match, result word, reason)]."""
        played = []
        mid, tokens = self.matched(alice, bob, alice.ok("seek hus clock=5+3 rated"))
        played.append((mid, lobby.play_to_the_end(alice, mid, tokens), "rules"))
        mid, tokens = self.matched(bob, alice, bob.ok("seek hus clock=5+3 rated"))
        bob_seat = self.seat_of(mid, "bob")
        bob.ok("resign %d %s" % (mid, tokens[bob_seat]))
        played.append((mid, str(1 - bob_seat), "resignation"))
        mid, tokens = self.matched(alice, bob, alice.ok("seek hus clock=0.05+0 rated"))
        info = base.show(alice, mid)
        mover = int(info["turn"])
        alice.ok("play %d %s %s %s" % (mid, info["ply"], alice.ok("moves %d" % mid).split()[0],
                                       tokens[mover]))
        deadline = time.monotonic() + 60  # the flag falls after 50 ms; a busy machine lags
        while base.show(alice, mid)["result"] == "running" and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(base.show(alice, mid)["result"], str(mover))
        played.append((mid, str(mover), "time"))
        return played

    def test_player_and_match_pages_after_rated_games(self) -> None:
        s = self.open_server()
        alice, bob = self.signed_in(s.port, "alice"), self.signed_in(s.port, "bob")
        played = self.three_rated_games(alice, bob)
        page = page_of(bob, "player-page Alice")  # names are found whatever their case
        self.assertEqual(page["name"], "alice")
        by_key = {(r["game"], r["category"]): r for r in page["ratings"]}
        self.assertEqual(set(by_key), {("hus", "blitz"), ("hus", "bullet")})
        for (game, category), r in by_key.items():
            rating, rd, games = self.rating_row("alice", game, category)
            self.assertAlmostEqual(r["rating"], rating, delta=0.006)
            self.assertAlmostEqual(r["rd"], rd, delta=0.006)
            self.assertEqual(r["games"], games)
            self.assertTrue(r["provisional"])
        # One point per rated result, oldest first, the last of each the rating itself.
        self.assertEqual([p["match"] for p in page["points"]], [m for m, _, _ in played])
        self.assertEqual([(p["game"], p["category"]) for p in page["points"]],
                         [("hus", "blitz"), ("hus", "blitz"), ("hus", "bullet")])
        self.assertAlmostEqual(page["points"][1]["rating"], by_key["hus", "blitz"]["rating"],
                               delta=0.006)
        self.assertLess(abs(page["points"][0]["at"] / 1000 - time.time()), 600)
        # The finished games, newest first.
        self.assertEqual([g["match"] for g in page["games"]], [m for m, _, _ in played][::-1])
        for g, (mid, result, reason) in zip(page["games"], played[::-1]):
            seat = self.seat_of(mid, "alice")
            self.assertEqual((g["seat"], g["opponent"], g["result"], g["by"], g["rated"]),
                             (seat, "bob", result, reason, True))
            self.assertEqual(g["outcome"], "draw" if result == "draw"
                             else "win" if result == str(seat) else "loss")
            self.assertEqual(g["plies"], int(base.show(alice, mid)["ply"]))
            self.assertTrue(g["spec"].startswith("hus"))
        self.assertEqual((page["page"], page["more"]), (0, False))
        self.assertEqual(page_of(bob, "player-page alice 1")["games"], [])
        # The match pages: both players, the ratings before and after, how it ended.
        first = page_of(alice, "match-page %d" % played[0][0])
        self.assertEqual([p["name"] for p in first["players"]],
                         ["alice" if self.seat_of(played[0][0], "alice") == 0 else "bob",
                          "bob" if self.seat_of(played[0][0], "alice") == 0 else "alice"])
        for p in first["players"]:
            self.assertEqual(p["rating_before"], 1500.0)
        second = page_of(alice, "match-page %d" % played[1][0])
        for p in second["players"]:
            before = [q for q in first["players"] if q["name"] == p["name"]][0]
            self.assertEqual(p["rating_before"], before["rating_after"])
            if p["name"] == "alice":
                self.assertAlmostEqual(p["rating_after"], by_key["hus", "blitz"]["rating"],
                                       delta=0.006)
        self.assertEqual((second["result"], second["by"], second["rated"], second["game"],
                          second["category"]),
                         (played[1][1], "resignation", True, "hus", "blitz"))
        self.assertEqual(second["record"], "/matches/%d.tgr" % played[1][0])
        self.assertEqual(second["plies"], int(base.show(alice, played[1][0])["ply"]))
        third = page_of(alice, "match-page %d" % played[2][0])
        self.assertEqual((third["result"], third["by"], third["category"]),
                         (played[2][1], "time", "bullet"))
        # A casual game between guests, running, then resigned.
        guest = Conn(s.port)
        casual = base.Match(guest, "halusa")
        running = page_of(guest, "match-page %d" % casual.id)
        self.assertEqual((running["result"], running["by"], running["rated"], running["ended_at"]),
                         ("running", None, False, None))
        self.assertEqual([(p["name"], p["account"]) for p in running["players"]],
                         [(None, False), (None, False)])
        # Over HTTP: the same JSON, typed, with its caching.
        status, headers, body = get(self.srv.web_port, "/players/alice.json")
        self.assertEqual((status, headers["content-type"], headers["cache-control"]),
                         (200, "application/json", "no-cache"))
        self.assertEqual(json.loads(body), page_of(bob, "player-page alice"))
        status, headers, body = get(self.srv.web_port, "/players/alice.json?page=1")
        self.assertEqual((status, json.loads(body)["games"]), (200, []))
        status, headers, body = get(self.srv.web_port, "/matches/%d.json" % played[1][0])
        self.assertEqual((status, headers["cache-control"]), (200, "public, max-age=60"))
        self.assertEqual(json.loads(body), second)
        status, headers, body = get(self.srv.web_port, "/matches/%d.json" % casual.id)
        self.assertEqual((status, headers["cache-control"]), (200, "no-cache"))
        status, headers, body = get(self.srv.web_port, "/matches/%d.tgr" % played[1][0])
        self.assertEqual(status, 200)
        self.assertTrue(body.startswith(b'[Rules "hus'), body[:80])
        # More than a page of games: 21 casual games between the two, resigned at once.
        for _ in range(21):
            mid, tokens = self.matched(alice, bob, alice.ok("seek halusa clock=5+3 casual"))
            alice.ok("resign %d %s" % (mid, tokens[self.seat_of(mid, "alice")]))
        page = page_of(bob, "player-page alice")
        self.assertEqual((len(page["games"]), page["more"]), (20, True))
        self.assertFalse(page["games"][0]["rated"])
        self.assertEqual(page["games"][0]["outcome"], "loss")
        later = page_of(bob, "player-page alice 1")
        self.assertEqual((len(later["games"]), later["more"]), (4, False))
        self.assertEqual([g["match"] for g in later["games"][1:]],
                         [m for m, _, _ in played][::-1])
        for c in (alice, bob, guest):
            c.close()

    def test_hostile_input_is_refused_and_changes_nothing(self) -> None:
        s = self.open_server()
        alice, bob = self.signed_in(s.port, "alice"), self.signed_in(s.port, "bob")
        mid, tokens = self.matched(alice, bob, alice.ok("seek hus clock=5+3 rated"))
        alice.ok("resign %d %s" % (mid, tokens[self.seat_of(mid, "alice")]))
        counted = ("matches", "ratings", "rating_history", "accounts", "seat_accounts")

        def counts() -> "list[Any]":
            return [self.rows("SELECT count(*) FROM %s" % t) for t in counted]

        before = counts()
        c = Conn(s.port)
        for line, want in (
                ("player-page nobody", "err no-such-player "),
                ("player-page al", "err bad-name "),
                ("player-page " + "a" * 21, "err bad-name "),
                ("player-page al/ice", "err bad-name "),
                ("player-page ../alice", "err bad-name "),
                ("player-page alice -1", "err bad-page "),
                ("player-page alice 1e3", "err bad-page "),
                ("player-page alice 100001", "err bad-page "),
                ("player-page alice 99999999999999999999999", "err bad-page "),
                ("player-page alice 0 1", "err usage "),
                ("player-page", "err usage "),
                ("match-page 0", "err no-such-match "),
                ("match-page -3", "err no-such-match "),
                ("match-page abc", "err no-such-match "),
                ("match-page 99999999999999999999", "err no-such-match "),
                ("match-page 9223372036854775807", "err no-such-match "),
                ("match-page %d" % (mid + 1000), "err no-such-match "),
                ("match-page %d x" % mid, "err usage "),
        ):
            self.assertReply(c.ask(line), want)
        far = page_of(c, "player-page alice 100000")  # the furthest page: empty, not scanned
        self.assertEqual((far["games"], far["more"]), ([], False))
        port = self.srv.web_port
        for path in ("/players/nobody.json", "/players/al.json", "/players/alice",
                     "/players/alice.JSON", "/players/alice.json.json", "/players/.json",
                     "/players/", "/players", "/players/%61lice%00.json",
                     "/players/%2e%2e%2f%2e%2e%2fetc%2fpasswd.json",
                     "/players/../../etc/passwd.json", "/players/a%2fb.json",
                     "/players/" + "a" * 300 + ".json", "/players/alice.json?page=-1",
                     "/players/alice.json?page=abc", "/players/alice.json?page=",
                     "/players/alice.json?page=9999999", "/players/alice.json?page=100001",
                     "/matches/0.json", "/matches/01.json", "/matches/-1.json",
                     "/matches/%d.json" % (mid + 1000), "/matches/99999999999999999999.json",
                     "/matches/%d.jso" % mid, "/matches/%d%%2fjson" % mid, "/matches/.json",
                     "/matches/1e3.json"):
            try:
                status, _, body = get(port, path)
            except http.client.RemoteDisconnected:
                # libwebsockets closes on a NUL in the path, before any callback: a refusal.
                self.assertIn("%00", path)
                continue
            self.assertEqual(status, 404, path)
            self.assertNotIn(b'"ratings"', body, path)
        status, _, body = get(port, "/players/alice.json?page=0&page=1")
        self.assertEqual(status, 200)
        self.assertEqual(counts(), before)
        # Still answering, on both ports.
        self.assertEqual(page_of(c, "match-page %d" % mid)["by"], "resignation")
        self.assertEqual(get(port, "/players/Alice.json")[0], 200)
        for conn in (c, alice, bob):
            conn.close()


class HistoryTest(SqliteStore, HistoryTests, unittest.TestCase):
    """The tests on SQLite."""

    tmp_prefix = "tg-server-history-"

    def setUp(self) -> None:
        ws.SERVER = base.SERVER = lobby.SERVER = SERVER
        super().setUp()

    def new_server(self, *extra: str) -> Any:
        return ws.WebServer(self.db, *extra)


if __name__ == "__main__":
    import sys
    SERVER = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
