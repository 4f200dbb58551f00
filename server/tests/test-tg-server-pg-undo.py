"""The undo request and the site-wide counts on a shared PostgreSQL database (issue 29), mixed
into the test cases of test-tg-server-pg.py (its cluster, its databases):

- a request made through server A is a row of `undo_requests`; server B's client sees it and
  accepts it (after `err leased`, while A lets go), and a watcher on server C sees the request
  and the undo; A's copy follows;
- a request survives the SIGKILL of its server and is accepted through another once the lease
  runs out; a decline through one server reaches the watchers of another (`undo-declined`),
  and a move through another server ends a request (the row goes);
- bad input: accept with no request, by the requester, at the old ply after a move: each a
  clear error, the row as it was;
- `status` counts the site (every server's matches, the servers alive, their clients), the
  site gauges of /metrics too, and two servers racing for the last place of --max-matches
  never both get it.
"""
from __future__ import annotations

import os
import random
import threading
import time
import urllib.request
from typing import Any, Callable, Optional

import sibling  # noqa: E402

base: Any = sibling.load("tg_server_pg_undo_base", "test-tg-server.py")
Conn, show, new_match = base.Conn, base.show, base.new_match


def retried(conn: Any, line: str, limit: float = 15) -> str:
    """The reply to line, asked again while the match is leased to another server (or a new
    match's admission is busy there)."""
    deadline = time.monotonic() + limit
    while True:
        reply = conn.ask(line)
        if not (reply.startswith("err leased ") or reply.startswith("err busy ")) \
                or time.monotonic() > deadline:
            return reply
        time.sleep(0.05)


def wait_line(conn: Any, wanted: str) -> None:
    """Reads event lines until `wanted` comes (the connection's timeout bounds the wait)."""
    seen = []
    while True:
        line = conn.read()
        if line == wanted:
            return
        seen.append(line)
        if len(seen) > 200:
            raise AssertionError("no %r in %r" % (wanted, seen[-10:]))


def eventually(check: Callable[[], bool], limit: float = 10) -> bool:
    deadline = time.monotonic() + limit
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


class UndoAndSiteTests:
    """Test methods for a PgTestCase (server(), sql(), stored_history())."""

    server: Any
    sql: Any
    stored_history: Any
    assertEqual: Any
    assertIn: Any
    assertNotIn: Any
    assertTrue: Any
    assertRegex: Any

    def undo_row(self, mid: int) -> str:
        return self.sql("SELECT seat || ' ' || ply || ' ' || coalesce(answer, 'open') "
                        "FROM undo_requests WHERE match_id = %d" % mid)

    def played(self, conn: Any, decisions: int) -> tuple[int, list[str], list[str]]:
        mid, tokens = new_match(conn, "halusa")
        rng = random.Random(mid)
        for _ in range(decisions):
            info = show(conn, mid)
            move = rng.choice(conn.ok("moves %d" % mid).split())
            conn.ok("play %d %s %s %s" % (mid, info["ply"], move, tokens[int(info["turn"])]))
        return mid, tokens, conn.ok("history %d" % mid).split()

    def test_undo_asked_through_one_server_is_accepted_through_another(self) -> None:
        a, b, c = self.server(), self.server(), self.server()
        ca, cb = Conn(a.port), Conn(b.port)
        cw = Conn(c.port, timeout=15)
        mid, tokens, history = self.played(ca, 3)
        cw.send("watch %d" % mid)
        self.assertTrue(cw.read().startswith("ok watching"))
        info = show(ca, mid)
        ply, turn = int(info["ply"]), int(info["turn"])
        asker, answerer = tokens[turn], tokens[1 - turn]
        self.assertEqual(ca.ok("undo %d %d %s" % (mid, ply, asker)), "requested")
        self.assertEqual(self.undo_row(mid), "%d %d open" % (turn, ply))
        wait_line(cw, "event %d undo-requested %d" % (mid, turn))
        self.assertIn("undo-requested-by=%d" % turn, cb.ok("show %d" % mid))
        # Bad input through B: the requester accepting, and nothing changes.
        self.assertRegex(retried(cb, "accept %d %d %s" % (mid, ply, asker)), "^err not-your-turn")
        self.assertEqual(self.undo_row(mid), "%d %d open" % (turn, ply))
        reply = retried(cb, "accept %d %d %s" % (mid, ply, answerer))
        self.assertTrue(reply.startswith("ok "), reply)
        kept = int(reply[3:])
        self.assertTrue(kept < ply)
        self.assertEqual(self.stored_history(mid), history[:kept])
        self.assertEqual(self.undo_row(mid), "")
        wait_line(cw, "event %d undone %d" % (mid, kept))
        self.assertTrue(eventually(lambda: ca.ok("history %d" % mid).split() == history[:kept]))
        self.assertNotIn("undo-requested-by", ca.ok("show %d" % mid))
        self.assertRegex(cb.ask("accept %d %d %s" % (mid, kept, answerer)),
                         "^err no-undo-request")
        for conn in (ca, cb, cw):
            conn.close()

    def test_undo_request_outlives_sigkill_decline_and_move_end_it(self) -> None:
        a, b = self.server(), self.server()
        ca, cb = Conn(a.port), Conn(b.port)
        mid, tokens, history = self.played(ca, 2)
        info = show(ca, mid)
        ply, turn = int(info["ply"]), int(info["turn"])
        self.assertRegex(ca.ask("accept %d %d %s" % (mid, ply, tokens[turn])),
                         "^err no-undo-request")
        self.assertEqual(ca.ok("undo %d %d %s" % (mid, ply, tokens[1 - turn])), "requested")
        ca.close()
        a.kill()
        # Through B once A's lease runs out: the request is there, and accepted.
        self.assertIn("undo-requested-by=%d" % (1 - turn), cb.ok("show %d" % mid))
        reply = retried(cb, "accept %d %d %s" % (mid, ply, tokens[turn]))
        self.assertTrue(reply.startswith("ok "), reply)
        ply = int(reply[3:])
        history = history[:ply]
        self.assertEqual(self.stored_history(mid), history)
        self.assertEqual(self.undo_row(mid), "")
        # Asked through B, declined through A (restarted): B's watcher is told.
        a.start()
        ca = Conn(a.port)
        cw = Conn(b.port, timeout=15)
        cw.send("watch %d" % mid)
        self.assertTrue(cw.read().startswith("ok watching"))
        turn = int(show(cb, mid)["turn"])
        self.assertEqual(cb.ok("undo %d %d %s" % (mid, ply, tokens[turn])), "requested")
        wait_line(cw, "event %d undo-requested %d" % (mid, turn))
        self.assertEqual(retried(ca, "decline %d %d %s" % (mid, ply, tokens[1 - turn])),
                         "ok declined")
        self.assertEqual(self.undo_row(mid), "%d %d declined" % (turn, ply))
        wait_line(cw, "event %d undo-declined %d" % (mid, 1 - turn))
        self.assertTrue(eventually(lambda: "undo-requested-by" not in cb.ok("show %d" % mid)))
        # Asked through A, then the seat to move moves through B: the request ends with it.
        self.assertEqual(ca.ok("undo %d %d %s" % (mid, ply, tokens[1 - turn])), "requested")
        wait_line(cw, "event %d undo-requested %d" % (mid, 1 - turn))
        move = cb.ok("moves %d" % mid).split()[0]
        reply = retried(cb, "play %d %d %s %s" % (mid, ply, move, tokens[turn]))
        self.assertTrue(reply.startswith("ok "), reply)
        history += reply[3:].split()
        self.assertEqual(self.undo_row(mid), "")
        self.assertEqual(self.stored_history(mid), history)
        self.assertTrue(eventually(lambda: ca.ok("history %d" % mid).split() == history))
        self.assertNotIn("undo-requested-by", ca.ok("show %d" % mid))
        self.assertRegex(ca.ask("accept %d %d %s" % (mid, ply, tokens[turn])), "^err stale-ply")
        self.assertRegex(ca.ask("accept %d %d %s" % (mid, len(history), tokens[turn])),
                         "^err no-undo-request")
        self.assertEqual(self.stored_history(mid), history)
        for conn in (ca, cb, cw):
            conn.close()

    def test_status_counts_the_site_and_max_matches_holds_when_servers_race(self) -> None:
        web_port_file = os.path.join(self.tmp.name, "b.web-port")  # type: ignore[attr-defined]
        a = self.server("--max-matches", "3")
        b = self.server("--max-matches", "3", "--metrics-port", "0", "--metrics-port-file",
                        web_port_file)
        ca, cb = Conn(a.port), Conn(b.port)
        made = [new_match(ca, "halusa") for _ in range(2)]

        def site(conn: Any) -> dict[str, str]:
            return dict(item.partition("=")[::2] for item in conn.ok("status").split())

        # Each server's row of `instances` is written every 2 s: both, with one client each.
        # The site's counts may be half a second old (docs/server.md), so a count taken just
        # before A stored its two matches may still be the one shown: all four are waited for.
        def counts() -> tuple[Optional[str], ...]:
            now = site(cb)
            return tuple(now.get(k) for k in ("servers", "site-clients", "matches", "live"))

        self.assertTrue(eventually(lambda: counts() == ("2", "2", "2", "2")), site(cb))
        live = "SELECT count(*) FROM matches m WHERE NOT EXISTS (SELECT 1 FROM results r " \
               "WHERE r.match_id = m.id)"
        for round_ in range(3):
            # Both servers asked for the one place left at the same moment.
            gate = threading.Barrier(2)
            replies: dict[int, str] = {}
            conns = [Conn(a.port), Conn(b.port)]

            def ask(i: int) -> None:
                gate.wait()
                replies[i] = retried(conns[i], "new halusa")

            threads = [threading.Thread(target=ask, args=(i,)) for i in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            won = [(i, r) for i, r in replies.items() if r.startswith("ok ")]
            lost = [r for r in replies.values() if not r.startswith("ok ")]
            self.assertEqual(len(won), 1, replies)
            self.assertRegex(lost[0], "^err match-limit the site has its limit of 3 matches")
            self.assertEqual(self.sql(live), "3")
            self.assertRegex(retried(conns[round_ % 2], "new halusa"), "^err match-limit")
            self.assertEqual(self.sql(live), "3")
            winner, words = won[0][0], won[0][1].split()
            Conn(conns[winner].sock.getpeername()[1]).ok("join %s %s" % (words[1], words[3]))
            made.append((int(words[1]), [words[2]]))
            for conn in conns:
                conn.close()
            # One ends (resigned through the other server): a place is free again.
            mid, tokens = made.pop(0)
            self.assertEqual(retried(cb, "resign %d %s" % (mid, tokens[0])), "ok")
            self.assertEqual(self.sql(live), "2")
        self.assertTrue(eventually(lambda: (site(ca)["matches"], site(ca)["live"]) == ("5", "2")),
                        site(ca))
        with open(web_port_file) as f:
            web_port = int(f.read())

        def gauge() -> str:
            with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % web_port) as r:
                text = r.read().decode()
            return next((line for line in text.splitlines()
                         if line.startswith("tg_site_matches_active ")), "")

        self.assertTrue(eventually(lambda: gauge() == "tg_site_matches_active 2"), gauge())
        ca.close()
        cb.close()
