#!/usr/bin/env python3
"""`rematch ID TOKEN` of tg-server (issue 27), run by test-tg-server.py in the same run:

- after a finished match the first seat to ask gets a new match with the same rule spec and
  time control, seats swapped; the watchers of the old match (the other seat's page among
  them) get `event OLD rematch NEW`, and so does a watcher that comes later (catch-up);
- the other seat is joined to its swapped seat by its own `rematch` or by `join NEW TOKEN`
  with its old token (its invite, which only it holds); the new match is then played by the
  swapped tokens, and the old tokens move nothing there;
- the link survives a SIGKILL and a restart (stored since schema 8): a late watcher is told,
  and no second rematch is made;
- bad input: a match still being played, a wrong token, the asking seat asking twice, the
  other seat once both are taken, an unknown match, a seat that never joined: each a clear
  error and nothing created.
"""
import os
import unittest

import sibling

SERVER: "str | None" = None  # set by test-tg-server.py

base = sibling.load("tg_server_rematch_base", "test-tg-server.py")


class RematchTest(base.ServerTestCase):
    def setUp(self) -> None:
        base.SERVER = SERVER
        super().setUp()

    def finished(self, conn: "base.Conn", spec: str) -> "tuple[int, list[str]]":
        """A match of `spec`, both seats joined and South's first move played."""
        mid, tokens = base.new_match(conn, spec)
        moves = conn.ok("moves %d" % mid).split()
        conn.ok("play %d 0 %s %s" % (mid, moves[0], tokens[0]))
        return mid, tokens

    def test_rematch_swaps_seats_and_tells_the_watchers(self) -> None:
        c = base.Conn(self.server.port)
        mid, (t0, t1) = self.finished(c, "hus clock=5+3")
        # Not over yet: refused, nothing created.
        self.assertReply(c.ask("rematch %d %s" % (mid, t0)), "err not-over")
        self.assertEqual(c.ok("list").split(), [str(mid)])
        c.ok("resign %d %s" % (mid, t0))
        north = base.Conn(self.server.port)
        self.assertTrue(north.ok("watch %d" % mid).startswith("watching ply=1"))
        while not north.read().startswith("event %d result" % mid):
            pass
        # Bad input first: nothing of it creates a match.
        self.assertReply(c.ask("rematch %d %s" % (mid, "0" * 32)), "err bad-token")
        self.assertReply(c.ask("rematch %d" % mid), "err token-required")
        self.assertReply(c.ask("rematch 999 %s" % t0), "err no-such-match")
        self.assertReply(c.ask("rematch x %s" % t0), "err no-such-match")
        self.assertEqual(c.ok("list").split(), [str(mid)])
        # South asks: the new match, South now seat 1.
        new, seat, s_token = c.ok("rematch %d %s" % (mid, t0)).split()
        self.assertEqual(seat, "1")
        self.assertNotIn(s_token, (t0, t1))
        self.assertEqual(north.read(), "event %d rematch %s" % (mid, new))
        info = base.show(c, int(new))
        self.assertEqual(info["ply"], "0")
        self.assertEqual(info["waiting-for"], "0")
        self.assertEqual(info["clock"], "300000,300000")
        old_spec = base.show(c, mid)["position"].split()[0]
        self.assertEqual(info["position"].split()[0], old_spec)
        # Twice from the same seat: refused, the same rematch stands.
        self.assertReply(c.ask("rematch %d %s" % (mid, t0)), "err rematch-offered")
        self.assertEqual(sorted(c.ok("list").split()), sorted([str(mid), new]))
        # A watcher that comes later hears of it in the catch-up.
        late = base.Conn(self.server.port)
        late.ok("watch %d" % mid)
        lines = [late.read() for _ in range(4)]
        self.assertIn("event %d rematch %s" % (mid, new), lines)
        # North answers with its own rematch and gets seat 0 of the new match.
        again, seat, n_token = north.ok("rematch %d %s" % (mid, t1)).split()
        self.assertEqual(again, new)
        self.assertEqual(seat, "0")
        self.assertNotIn(n_token, (t0, t1, s_token))
        self.assertReply(north.ask("rematch %d %s" % (mid, t1)), "err already-joined")
        self.assertReply(c.ask("rematch %d %s" % (mid, t0)), "err already-joined")
        self.assertNotIn("waiting-for", base.show(c, int(new)))
        # The swapped seats play; the old tokens are no seat of the new match.
        moves = c.ok("moves %s" % new).split()
        self.assertReply(c.ask("play %s 0 %s %s" % (new, moves[0], t0)), "err bad-token")
        self.assertReply(c.ask("play %s 0 %s %s" % (new, moves[0], s_token)),
                         "err not-your-turn")
        self.assertEqual(north.ok("play %s 0 %s %s" % (new, moves[0], n_token)), moves[0])
        for conn in (c, north, late):
            conn.close()

    def test_join_with_the_old_token_and_rematch_of_a_game_played_out(self) -> None:
        c = base.Conn(self.server.port)
        mid, tokens = base.new_match(c, "halusa")
        # Played to its end by the rules: the last mover's pick each time.
        while True:
            info = base.show(c, mid)
            if info["turn"] == "-":
                break
            move = c.ok("moves %d" % mid).split()[-1]
            c.ok("play %d %s %s %s" % (mid, info["ply"], move, tokens[int(info["turn"])]))
        new, seat, token = c.ok("rematch %d %s" % (mid, tokens[1])).split()
        self.assertEqual(seat, "0")
        # The invite is North's old token, and it is spent once.
        self.assertReply(c.ask("join %s %s" % (new, tokens[1])), "err bad-token")
        self.assertEqual(base.Conn(self.server.port).ok("join %s %s" % (new, tokens[0])).split()[0],
                         "1")
        self.assertReply(c.ask("join %s %s" % (new, tokens[0])), "err already-joined")
        self.assertNotIn("waiting-for", base.show(c, int(new)))
        self.assertEqual(base.show(c, int(new))["turn"], "0")
        moves = c.ok("moves %s" % new).split()
        self.assertEqual(c.ok("play %s 0 %s %s" % (new, moves[0], token)), moves[0])
        c.close()

    def test_the_rematch_survives_a_kill_and_a_restart(self) -> None:
        """The link to the rematch is stored with it (schema 8): after a SIGKILL and a
        restart a late watcher still hears of it, the seat that asked cannot make a second
        one, and the other seat's own `rematch` joins the same match."""
        c = base.Conn(self.server.port)
        mid, (t0, t1) = self.finished(c, "halusa clock=5+3")
        c.ok("resign %d %s" % (mid, t0))
        new, seat, s_token = c.ok("rematch %d %s" % (mid, t0)).split()
        self.assertEqual(seat, "1")
        c.close()
        self.server.kill()
        self.server = base.Server(self.db, *self.server_args).start()
        c = base.Conn(self.server.port)
        late = base.Conn(self.server.port, timeout=10)  # the catch-up comes at once
        late.ok("watch %d" % mid)
        lines = [late.read() for _ in range(4)]
        self.assertIn("event %d rematch %s" % (mid, new), lines)
        self.assertReply(c.ask("rematch %d %s" % (mid, t0)), "err rematch-offered")
        self.assertEqual(sorted(c.ok("list").split()), sorted([str(mid), new]))
        again, seat, n_token = c.ok("rematch %d %s" % (mid, t1)).split()
        self.assertEqual((again, seat), (new, "0"))
        self.assertNotIn(n_token, (t0, t1, s_token))
        self.assertReply(c.ask("rematch %d %s" % (mid, t1)), "err already-joined")
        self.assertEqual(sorted(c.ok("list").split()), sorted([str(mid), new]))
        for conn in (c, late):
            conn.close()

    def test_a_seat_that_never_joined_has_no_rematch(self) -> None:
        c = base.Conn(self.server.port)
        mid, token, _invite = c.ok("new hus").split()
        self.assertReply(c.ask("rematch %s %s" % (mid, token)), "err not-joined")
        self.assertEqual(c.ok("list").split(), [mid])
        c.close()


if __name__ == "__main__":
    import sys
    SERVER = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
