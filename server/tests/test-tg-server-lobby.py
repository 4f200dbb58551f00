#!/usr/bin/env python3
"""The lobby and rated games (issue 42 items 2 and 3) on the line protocol, on SQLite; run by
test-tg-server.py in the same run, and on PostgreSQL by test-tg-server-pg.py (LobbyTests mixed
into its cases, with the tests across two servers there):

- `seek` puts a seek in every `lobby` subscriber's feed at once (no polling); `accept-seek`
  makes the match with both seats assigned to the two accounts (colours at random), the taker
  answered with its seat and token, the owner told `lobby matched` with its own; the feed
  hears the seek go and the match start, then end;
- `unseek`, the owner's disconnection, --seek-lifetime and a declined challenge take a seek
  away, and say why;
- `challenge NAME ...` is seen by the named player only, who alone may take or decline it;
- a rated match played to the end by two accounts (by the rules, by resignation, by a flag
  fall) updates both ratings once, to the values of Glicko-2 as the paper computes them
  (checked here against the paper's worked example first); a second rated game starts from
  the first's ratings; a restart rates nothing again; `player NAME` and `whoami` show them,
  provisional ones marked `?`;
- a rated match refuses `bot` and `undo` for its seats, with a clear reason;
- hostile input to every new command (bad specs and clocks, huge numbers, an inverted range,
  a range on a casual seek, a rated seek by a guest, a seat's own seek, a vanished seek, too
  many seeks, a rating outside the range) is a clear error, and nothing changes;
- every rated result leaves one point of rating history per player, in the same change
  (the same time as the rating, the rating itself);
- the live list is stored with its matches: after a SIGKILL and a restart `lobby` lists the
  running lobby matches with the same lines (not a finished one, nor one finished later);
- databases of schemas 3 and 4 are brought to 5 in place.
"""
from __future__ import annotations

import math
import os
import sqlite3
import time
import unittest
from typing import Any

import sibling
from store_tests import SqliteStore, StoreTests

SERVER: "str | None" = None  # set by test-tg-server.py

base: Any = sibling.load("tg_server_lobby_base", "test-tg-server.py")
accounts: Any = sibling.load("tg_server_lobby_accounts", "test-tg-server-accounts.py")
Conn = base.Conn
PASSWORD = accounts.PASSWORD
OPEN_BUDGETS = accounts.OPEN_BUDGETS


# ---- Glicko-2 as Glickman's paper computes it: the oracle the server's ratings must equal ----

SCALE = 173.7178


def glicko2(rating: float, rd: float, vol: float,
            games: "list[tuple[float, float, float]]", tau: float = 0.5,
            bounded: bool = True) -> "tuple[float, float, float]":
    """Steps 1 to 8 of "Example of the Glicko-2 system" for one rating period; with bounded,
    the server's bounds (rating 400-4000, deviation 45-350, volatility at most 0.1)."""
    mu, phi = (rating - 1500) / SCALE, rd / SCALE

    def g(p: float) -> float:
        return 1 / math.sqrt(1 + 3 * p * p / math.pi ** 2)

    def e(m: float, mj: float, pj: float) -> float:
        return 1 / (1 + math.exp(-g(pj) * (m - mj)))

    v_inv = 0.0
    delta_sum = 0.0
    for r_j, rd_j, score in games:
        mu_j, phi_j = (r_j - 1500) / SCALE, rd_j / SCALE
        ej = e(mu, mu_j, phi_j)
        v_inv += g(phi_j) ** 2 * ej * (1 - ej)
        delta_sum += g(phi_j) * (score - ej)
    v = 1 / v_inv
    delta = v * delta_sum
    a = math.log(vol * vol)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2)
                - (x - a) / (tau * tau))

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    fa, fb = f(big_a), f(big_b)
    while abs(big_b - big_a) > 1e-6:
        big_c = big_a + (big_a - big_b) * fa / (fb - fa)
        fc = f(big_c)
        if fc * fb <= 0:
            big_a, fa = big_b, fb
        else:
            fa /= 2
        big_b, fb = big_c, fc
    new_vol = math.exp(big_a / 2)
    phi_star = math.sqrt(phi * phi + new_vol * new_vol)
    new_phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    new_mu = mu + new_phi * new_phi * delta_sum
    out = (SCALE * new_mu + 1500, SCALE * new_phi, new_vol)
    if bounded:
        out = (min(max(out[0], 400.0), 4000.0), min(max(out[1], 45.0), 350.0),
               min(out[2], 0.1))
    return out


class OracleTest(unittest.TestCase):
    def test_the_oracle_is_the_paper_s(self) -> None:
        r, rd, vol = glicko2(1500, 200, 0.06, [(1400, 30, 1), (1550, 100, 0), (1700, 300, 0)],
                             bounded=False)
        self.assertAlmostEqual(r, 1464.05, delta=0.01)
        self.assertAlmostEqual(rd, 151.52, delta=0.01)
        self.assertAlmostEqual(vol, 0.05999, delta=0.00001)


# ---- the tests, for any store ---------------------------------------------------------------


def play_to_the_end(conn: Any, mid: int, tokens: "dict[int, str]") -> str:
    """Plays each seat's first legal move until the match ends; its result word."""
    for _ in range(5000):
        info = base.show(conn, mid)
        if info.get("result", "running") != "running":
            return str(info["result"])
        moves = conn.ok("moves %d" % mid).split()
        conn.ok("play %d %s %s %s" % (mid, info["ply"], moves[0], tokens[int(info["turn"])]))
    raise AssertionError("match %d did not end" % mid)


class LobbyTests(StoreTests):
    """The lobby's tests, for any store."""

    def open_server(self, *extra: str) -> Any:
        return self.start(*(OPEN_BUDGETS + extra))

    def signed_in(self, port: int, name: str) -> Any:
        c = Conn(port)
        c.ok("register %s %s" % (name, PASSWORD))
        return c

    def subscriber(self, port: int) -> Any:
        c = Conn(port)
        self.assertEqual(c.ask("lobby"), "ok 0 0")
        return c

    def feed_line(self, conn: Any, prefix: str) -> "list[str]":
        line = str(conn.read())
        self.assertTrue(line.startswith(prefix), "%r, want %r" % (line, prefix))
        return line.split()

    def matched(self, owner: Any, taker: Any, seek_id: str) -> "tuple[int, dict[int, str]]":
        """Takes the seek: the match and both seats' tokens, as each side was told them."""
        mid, seat, token = taker.ok("accept-seek %s" % seek_id).split()
        self.assertEqual(owner.read(), "lobby unseek %s taken" % seek_id)
        words = self.feed_line(owner, "lobby matched %s %s " % (seek_id, mid))
        self.assertEqual({seat, words[4]}, {"0", "1"})
        return int(mid), {int(seat): token, int(words[4]): words[5]}

    def ratings(self, name: str) -> "dict[str, tuple[float, float, float, int]]":
        rows = self.rows("SELECT r.game, r.category, r.rating, r.rd, r.volatility, r.games "
                         "FROM ratings r JOIN accounts a ON a.id = r.account_id "
                         "WHERE a.name = '%s'" % name)
        return {"%s/%s" % (g, c): (float(r), float(d), float(v), int(n))
                for g, c, r, d, v, n in rows}

    def account_id(self, name: str) -> int:
        return int(self.rows("SELECT id FROM accounts WHERE name = '%s'" % name)[0][0])

    # ---- seeks and the feed ---------------------------------------------------------------

    def test_a_seek_is_pushed_taken_and_its_match_listed(self) -> None:
        s = self.open_server()
        watcher = self.subscriber(s.port)
        alice, bob = self.signed_in(s.port, "alice"), self.signed_in(s.port, "bob")
        seek_id = alice.ok("seek hus clock=3+2 rated range=1400-1600")
        words = self.feed_line(watcher, "lobby seek %s alice 1500? hus" % seek_id)
        self.assertEqual(words[6:], ["clock=3+2", "blitz", "rated", "range=1400-1600"])
        # A later subscriber gets the seek in its first answer.
        late = Conn(s.port)
        self.assertEqual(late.ask("lobby"), "ok 1 0")
        self.assertEqual(late.read().split(), words)
        mid, tokens = self.matched(alice, bob, seek_id)
        for c in (watcher, late):
            self.assertEqual(c.read(), "lobby unseek %s taken" % seek_id)
            live = self.feed_line(c, "lobby live %d hus" % mid)
            self.assertEqual(live[4:6], ["clock=3+2", "rated"])
        seats = self.rows("SELECT seat, account_id FROM seat_accounts WHERE match_id = %d "
                          "ORDER BY seat" % mid)
        by_seat = {int(seat): int(account) for seat, account in seats}
        self.assertEqual(sorted(by_seat.values()),
                         sorted([self.account_id("alice"), self.account_id("bob")]))
        self.assertEqual(live[6:], ["alice" if by_seat[0] == self.account_id("alice") else "bob",
                                    "alice" if by_seat[1] == self.account_id("alice") else "bob"])
        self.assertEqual(self.rows("SELECT game, category FROM rated_matches WHERE match_id = %d"
                                   % mid), [("hus", "blitz")])
        # Both seats were told real tokens: the seat to move plays with its own.
        info = base.show(alice, mid)
        moves = alice.ok("moves %d" % mid).split()
        self.assertReply(alice.ask("play %d %s %s %s" % (mid, info["ply"], moves[0],
                                                        tokens[1 - int(info["turn"])])),
                         "err not-your-turn")
        alice.ok("play %d %s %s %s" % (mid, info["ply"], moves[0], tokens[int(info["turn"])]))
        # Taken once: nobody takes it again, and a fresh subscriber sees the match only.
        self.assertReply(bob.ask("accept-seek %s" % seek_id), "err no-such-seek ")
        self.assertEqual(Conn(s.port).ask("lobby"), "ok 0 1")
        # The end of the match reaches the feed.
        loser = 0 if by_seat[0] == self.account_id("alice") else 1
        alice.ok("resign %d %s" % (mid, tokens[loser]))
        for c in (watcher, late):
            self.assertEqual(c.read(), "lobby ended %d %d" % (mid, 1 - loser))
        self.assertEqual(Conn(s.port).ask("lobby"), "ok 0 0")

    def live_lines(self, port: int, count: int) -> "list[str]":
        """A new subscriber's list: no seeks, `count` live matches, their lines sorted."""
        c = Conn(port)
        self.assertEqual(c.ask("lobby"), "ok 0 %d" % count)
        lines = sorted(c.read() for _ in range(count))
        c.close()
        return lines

    def test_a_restart_lists_the_running_lobby_matches(self) -> None:
        s = self.open_server()
        watcher = self.subscriber(s.port)
        alice, bob = self.signed_in(s.port, "alice"), self.signed_in(s.port, "bob")
        guest = Conn(s.port)
        started = []
        for owner, taker, seek in ((alice, bob, "seek hus clock=5+3 rated"),
                                   (bob, guest, "seek halusa days=3 casual"),
                                   (alice, bob, "seek walak-pussa clock=1+0 casual")):
            seek_id = owner.ok(seek)
            self.feed_line(watcher, "lobby seek %s " % seek_id)
            started.append(self.matched(owner, taker, seek_id))
            self.feed_line(watcher, "lobby unseek %s " % seek_id)
            self.feed_line(watcher, "lobby live %d " % started[-1][0])
        lines = self.live_lines(s.port, 3)
        # The third ends: not listed after the restart.
        (first, _), (second, second_tokens), (third, third_tokens) = started
        alice.ok("resign %d %s" % (third, third_tokens[0]))
        self.feed_line(watcher, "lobby ended %d 1" % third)
        for c in (watcher, alice, bob, guest):
            c.close()
        s.kill()
        s = self.open_server()
        self.assertEqual(self.live_lines(s.port, 2), [line for line in lines
                                                      if " %d " % third not in line])
        # Ended after the restart: gone from the list, and from the next server's.
        c = Conn(s.port)
        self.assertEqual(self.through(c, "resign %d %s" % (second, second_tokens[1])), "ok")
        self.assertEqual(self.live_lines(s.port, 1), [line for line in lines
                                                      if line.startswith("lobby live %d " % first)])
        c.close()
        s = self.open_server()
        self.assertEqual(self.live_lines(s.port, 1), [line for line in lines
                                                      if line.startswith("lobby live %d " % first)])

    def test_unseek_a_gone_owner_and_casual_guests(self) -> None:
        s = self.open_server()
        watcher = self.subscriber(s.port)
        guest, other = Conn(s.port), Conn(s.port)
        self.assertReply(guest.ask("seek hus clock=1+0 rated"), "err not-signed-in ")
        first = guest.ok("seek hus clock=1+0 casual")
        self.feed_line(watcher, "lobby seek %s guest - hus" % first)
        second = guest.ok("seek hawalis clock=10+5 casual")
        self.assertEqual(self.feed_line(watcher, "lobby seek %s guest -" % second)[6:9],
                         ["clock=10+5", "rapid", "casual"])
        self.assertEqual(guest.ask("unseek %s" % first), "ok 1")
        self.assertEqual(watcher.read(), "lobby unseek %s withdrawn" % first)
        self.assertReply(guest.ask("unseek %s" % first), "err no-such-seek ")
        self.assertReply(other.ask("unseek %s" % second), "err no-such-seek ")
        # Its owner goes: so does the seek, and the reason says it was not its lifetime's end
        # (no clock bound: the watcher's read times out if it never comes).
        guest.close()
        self.assertEqual(watcher.read(), "lobby unseek %s owner-gone" % second)
        # A guest takes a casual seek: a casual match, no account on the guest's seat.
        bob = self.signed_in(s.port, "bob")
        third = bob.ok("seek hus clock=60+0 casual")
        self.feed_line(watcher, "lobby seek %s bob 1500? hus" % third)
        mid, tokens = self.matched(bob, other, third)
        self.assertEqual(self.rows("SELECT count(*) FROM rated_matches"), [("0",)])
        self.assertEqual(self.rows("SELECT account_id FROM seat_accounts WHERE match_id = %d"
                                   % mid), [(str(self.account_id("bob")),)])
        self.assertEqual(watcher.read(), "lobby unseek %s taken" % third)
        self.assertEqual(self.feed_line(watcher, "lobby live %d" % mid)[4:5], ["clock=60+0"])
        self.assertEqual(bob.ask("unseek"), "ok 0")

    def test_a_seek_nobody_takes_goes_after_seek_lifetime(self) -> None:
        s = self.open_server("--seek-lifetime", "2")
        watcher = self.subscriber(s.port)
        owner = Conn(s.port)
        seek_id = owner.ok("seek hus clock=5+0 casual")
        self.feed_line(watcher, "lobby seek %s" % seek_id)
        t0 = time.monotonic()
        self.assertEqual(watcher.read(), "lobby unseek %s expired" % seek_id)
        self.assertGreaterEqual(time.monotonic() - t0, 1.0)
        self.assertEqual(owner.read(), "lobby unseek %s expired" % seek_id)
        self.assertReply(Conn(s.port).ask("accept-seek %s" % seek_id), "err no-such-seek ")

    def test_a_challenge_is_the_named_player_s(self) -> None:
        s = self.open_server()
        alice, bob = self.signed_in(s.port, "alice"), self.signed_in(s.port, "bob")
        carol = self.signed_in(s.port, "carol")
        self.assertEqual(carol.ask("lobby"), "ok 0 0")
        first = alice.ok("challenge BOB hus clock=5+0 rated")
        # Bob, signed in here, is told at once; Carol's feed never shows it.
        self.assertEqual(bob.read().split()[:3], ["lobby", "seek", first])
        self.assertReply(carol.ask("accept-seek %s" % first), "err no-such-seek ")
        self.assertReply(carol.ask("decline-seek %s" % first), "err no-such-seek ")
        self.assertEqual(bob.ask("decline-seek %s" % first), "ok")
        self.assertEqual(alice.read(), "lobby unseek %s declined" % first)
        second = alice.ok("challenge bob hus clock=5+0 casual")
        self.assertEqual(bob.read().split()[-1], "to=bob")
        mid, _ = self.matched(alice, bob, second)
        self.assertEqual(len(self.rows("SELECT * FROM seat_accounts WHERE match_id = %d" % mid)),
                         2)
        # Carol's feed heard of the match (a public one to watch), never of the challenges.
        self.assertEqual(sorted(self.feed_line(carol, "lobby live %d" % mid)[6:]), ["alice", "bob"])
        self.assertReply(alice.ask("challenge nobody hus clock=5+0 rated"),
                         "err no-such-player ")
        self.assertReply(alice.ask("challenge alice hus clock=5+0 rated"), "err own-seek ")
        self.assertReply(Conn(s.port).ask("challenge bob hus clock=5+0 casual"),
                         "err not-signed-in ")

    # ---- rated games -----------------------------------------------------------------------

    def test_rated_games_update_both_ratings_once(self) -> None:
        s = self.open_server()
        alice, bob = self.signed_in(s.port, "alice"), self.signed_in(s.port, "bob")
        seek_id = alice.ok("seek hus clock=5+3 rated")
        mid, tokens = self.matched(alice, bob, seek_id)
        # A rated match's seats play for themselves and take nothing back.
        info = base.show(alice, mid)
        self.assertReply(alice.ask("bot %d %s random %s" % (mid, info["ply"],
                                                            tokens[int(info["turn"])])),
                         "err bots-forbidden ")
        result = play_to_the_end(alice, mid, tokens)
        alice_seat = [seat for seat, account in self.rows(
            "SELECT seat, account_id FROM seat_accounts WHERE match_id = %d" % mid)
            if int(account) == self.account_id("alice")][0]
        alice_score = 0.5 if result == "draw" else 1.0 if result == alice_seat else 0.0
        want_alice = glicko2(1500, 350, 0.06, [(1500, 350, alice_score)])
        want_bob = glicko2(1500, 350, 0.06, [(1500, 350, 1 - alice_score)])
        self.assertRatings("alice", "hus/blitz", want_alice, 1)
        self.assertRatings("bob", "hus/blitz", want_bob, 1)
        self.assertEqual(len(self.rows("SELECT rated_at FROM rated_matches WHERE match_id = %d "
                                       "AND rated_at IS NOT NULL" % mid)), 1)
        ply = base.show(alice, mid)["ply"]
        self.assertReply(alice.ask("undo %d %s %s" % (mid, ply, tokens[0])), "err rated ")
        # Shown, provisional (a deviation above 110) marked.
        words = alice.ok("player bob").split()
        self.assertEqual(words[0], "bob")
        self.assertEqual(words[1], "hus/blitz=%.2f?,rd=%.2f,games=1" % (want_bob[0], want_bob[1]))
        self.assertEqual(alice.ok("whoami").split()[1],
                         "hus/blitz=%.2f?,rd=%.2f,games=1" % (want_alice[0], want_alice[1]))
        # A second rated game (a resignation) starts from the first's ratings, each against
        # the other as they were before it; a restart rates nothing twice.
        s = self.open_server()
        alice, bob = Conn(s.port), Conn(s.port)
        alice.ok("login alice %s" % PASSWORD)
        bob.ok("login bob %s" % PASSWORD)
        self.assertRatings("alice", "hus/blitz", want_alice, 1)
        seek_id = bob.ok("seek hus clock=5+3 rated")
        mid, tokens = self.matched(bob, alice, seek_id)
        bob_seat = [int(seat) for seat, account in self.rows(
            "SELECT seat, account_id FROM seat_accounts WHERE match_id = %d" % mid)
            if int(account) == self.account_id("bob")][0]
        bob.ok("resign %d %s" % (mid, tokens[bob_seat]))
        self.assertRatings("alice", "hus/blitz",
                           glicko2(*want_alice, [(want_bob[0], want_bob[1], 1.0)]), 2)
        self.assertRatings("bob", "hus/blitz",
                           glicko2(*want_bob, [(want_alice[0], want_alice[1], 0.0)]), 2)
        self.assertReply(bob.ask("resign %d %s" % (mid, tokens[bob_seat])), "err ")
        self.open_server()
        self.assertRatings("bob", "hus/blitz",
                           glicko2(*want_bob, [(want_alice[0], want_alice[1], 0.0)]), 2)

    def test_a_flag_fall_is_rated_in_its_own_change(self) -> None:
        s = self.open_server()
        alice, bob = self.signed_in(s.port, "alice"), self.signed_in(s.port, "bob")
        mid, tokens = self.matched(alice, bob, alice.ok("seek hus clock=0.05+0 rated"))
        # The first move starts the clocks; then nobody moves, and the other seat's flag falls.
        info = base.show(alice, mid)
        mover = int(info["turn"])
        moves = alice.ok("moves %d" % mid).split()
        alice.ok("play %d %s %s %s" % (mid, info["ply"], moves[0], tokens[mover]))
        deadline = time.monotonic() + 30
        while base.show(alice, mid)["result"] == "running" and time.monotonic() < deadline:
            time.sleep(0.2)
        info = base.show(alice, mid)
        self.assertEqual(info["result"], str(mover))
        winner_account = [int(account) for seat, account in self.rows(
            "SELECT seat, account_id FROM seat_accounts WHERE match_id = %d" % mid)
            if int(seat) == mover][0]
        winner = "alice" if winner_account == self.account_id("alice") else "bob"
        loser = "bob" if winner == "alice" else "alice"
        self.assertRatings(winner, "hus/bullet", glicko2(1500, 350, 0.06, [(1500, 350, 1.0)]), 1)
        self.assertRatings(loser, "hus/bullet", glicko2(1500, 350, 0.06, [(1500, 350, 0.0)]), 1)

    def assertRatings(self, name: str, key: str, want: "tuple[float, float, float]",
                      games: int) -> None:
        got = self.ratings(name)
        self.assertEqual(list(got), [key])
        for g, w in zip(got[key][:3], want):
            self.assertAlmostEqual(g, w, delta=1e-6 * max(1.0, abs(w)))
        self.assertEqual(got[key][3], games)
        # One point of its history per rated result, the last one the rating itself, written
        # with it (the same time), each naming a rated match the account played.
        account = self.account_id(name)
        points = self.rows("SELECT h.game || '/' || h.category, h.rating, h.rd, h.volatility, "
                           "h.match_id, h.at = r.updated_at FROM rating_history h JOIN ratings "
                           "r ON r.account_id = h.account_id AND r.game = h.game AND "
                           "r.category = h.category WHERE h.account_id = %d ORDER BY h.id"
                           % account)
        self.assertEqual(len(points), games)
        self.assertEqual({p[0] for p in points}, {key})
        self.assertEqual([float(v) for v in points[-1][1:4]], list(got[key][:3]))
        self.assertIn(points[-1][5], ("1", "t"))
        for p in points:
            self.assertEqual(len(self.rows("SELECT 1 FROM rated_matches m JOIN seat_accounts s "
                                           "ON s.match_id = m.match_id WHERE m.match_id = %s "
                                           "AND s.account_id = %d AND m.rated_at IS NOT NULL"
                                           % (p[4], account))), 1)

    # ---- hostile input ---------------------------------------------------------------------

    def test_bad_input_is_refused_and_changes_nothing(self) -> None:
        s = self.open_server()
        watcher = self.subscriber(s.port)
        alice, bob = self.signed_in(s.port, "alice"), self.signed_in(s.port, "bob")
        kept = alice.ok("seek hus clock=5+3 rated range=1600-2000")
        self.feed_line(watcher, "lobby seek %s" % kept)
        for line, want in [
            ("seek", "err usage "),
            ("seek hus", "err usage "),
            ("seek hus clock=5+3", "err usage "),
            ("seek hus clock=5+3 rated range=1-2 extra", "err usage "),
            ("seek nosuchgame clock=5+3 rated", "err "),
            ("seek hus:width=99 clock=5+3 rated", "err "),
            ("seek hus 5+3 rated", "err bad-option "),
            ("seek hus clock=0+3 rated", "err bad-option "),
            ("seek hus clock=99999999999999999999+3 rated", "err bad-option "),
            ("seek hus clock=5+99999999999 rated", "err bad-option "),
            ("seek hus clock=nan+1 rated", "err bad-option "),
            ("seek hus clock=5+3 ranked", "err bad-option "),
            ("seek hus clock=5+3 rated range=2000-1000", "err bad-option "),
            ("seek hus clock=5+3 rated range=1000-99999999999999999999", "err bad-option "),
            ("seek hus clock=5+3 rated range=-5-10", "err bad-option "),
            ("seek hus clock=5+3 rated range=10", "err bad-option "),
            ("seek hus clock=5+3 rated range=10-", "err bad-option "),
            ("seek hus clock=5+3 casual range=1000-2000", "err bad-option "),
            ("unseek x", "err usage "),
            ("unseek 1 2", "err usage "),
            ("accept-seek", "err usage "),
            ("accept-seek x", "err usage "),
            ("accept-seek -1", "err usage "),
            ("accept-seek 18446744073709551616", "err usage "),
            ("accept-seek 999", "err no-such-seek "),
            ("accept-seek %s" % kept, "err own-seek "),
            ("decline-seek %s" % kept, "err not-yours "),
            ("challenge", "err usage "),
            ("challenge bob hus clock=5+3", "err usage "),
            ("challenge b! hus clock=5+3 rated", "err bad-name "),
            ("challenge bob hus clock=5+3 rated?", "err bad-option "),
            ("player", "err usage "),
            ("player nobody", "err no-such-player "),
            ("player x", "err bad-name "),
            ("lobby now", "err usage "),
        ]:
            self.assertReply(alice.ask(line), want, "%s: " % line)
        # Bob's rating (1500) is outside the seek's range: refused, the seek stays.
        self.assertReply(bob.ask("accept-seek %s" % kept), "err out-of-range ")
        self.assertReply(Conn(s.port).ask("accept-seek %s" % kept), "err not-signed-in ")
        # Three seeks a player: the fourth is refused.
        alice.ok("seek hus clock=1+0 casual")
        alice.ok("seek hus clock=2+0 casual")
        self.assertReply(alice.ask("seek hus clock=3+0 casual"), "err too-many-seeks ")
        self.assertEqual(Conn(s.port).ask("lobby"), "ok 3 0")
        self.assertEqual(self.rows("SELECT count(*) FROM matches"), [("0",)])
        # The watcher heard of the two good seeks only.
        self.feed_line(watcher, "lobby seek ")
        self.feed_line(watcher, "lobby seek ")
        self.assertEqual(watcher.ask("whoami"), "ok -")


class LobbyTest(SqliteStore, LobbyTests, unittest.TestCase):
    """The tests on SQLite."""

    tmp_prefix = "tg-server-lobby-"

    def setUp(self) -> None:
        base.SERVER = SERVER
        super().setUp()

    def new_server(self, *extra: str) -> Any:
        return base.Server(self.db, *extra)

    def test_schemas_3_and_4_are_brought_to_5_in_place(self) -> None:
        s = self.open_server()
        c = Conn(s.port)
        mid = c.ok("new hus").split()[0]
        c.close()
        s.stop()
        for version in ("3", "4"):
            with sqlite3.connect(self.db) as db:  # as a server of that schema left it
                if version == "3":
                    db.execute("DROP TABLE rated_matches")
                db.execute("DROP TABLE rating_history")
                db.execute("DROP INDEX seat_accounts_by_account")
                db.execute("UPDATE meta SET value = '%s' WHERE key = 'schema'" % version)
            s = self.open_server()
            alice = self.signed_in(s.port, "alice" + version)
            bob = self.signed_in(s.port, "bob" + version)
            self.assertEqual(self.rows("SELECT value FROM meta WHERE key = 'schema'"), [("8",)])
            rated, tokens = self.matched(alice, bob, alice.ok("seek hus clock=5+3 rated"))
            self.assertEqual(base.show(alice, int(mid))["ply"], "0")
            play_to_the_end(alice, rated, tokens)
            self.assertEqual(self.rows("SELECT count(*) FROM rating_history WHERE match_id = %d"
                                       % rated), [("2",)])
            for c in (alice, bob):
                c.close()
            s.stop()
        self.assertEqual(self.rows("SELECT count(*) FROM rated_matches"), [("2",)])


if __name__ == "__main__":
    import sys
    SERVER = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
