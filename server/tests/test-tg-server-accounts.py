#!/usr/bin/env python3
"""Accounts on the line protocol (issue 42 item 1), on SQLite; run by test-tg-server.py in
the same run, and on PostgreSQL by test-tg-server-pg.py (the AccountTests mixed into its cases):

- register, login (a session token), `session TOKEN` on another connection, logout (that
  session only) and logout-all (every session, and every connection signed in with one);
- the database holds an Argon2id hash of the password and the SHA-256 of each session token,
  never either in clear; the server's output never holds a password;
- a wrong password, or a name nobody has, answers the same `err bad-login`; the sign-in
  budgets per account and per address refuse the next attempt, even with the right password;
- a forged token, the stored hash used as a token, and an expired session are refused, and a
  connection signed in with an expired session is a guest again;
- names that differ only by case are refused (`err name-taken`), names outside 3 to 20 ASCII
  letters, digits, '_' and '-' too;
- bad input for every command (missing and extra words, too long, NUL bytes, not UTF-8,
  overlong UTF-8, control characters) is a clear error with nothing stored;
- the seats of matches made and joined while signed in record the account; delete-account
  (its password asked again) anonymises the account, its seats stay, its sessions go, and the
  name may be taken again;
- passwords are hashed on a worker: the loop answers other connections meanwhile;
- a restart keeps accounts and sessions; a database of schema 2 is brought to 3 (and on) in
  place.
"""
from __future__ import annotations

import hashlib
import os
import re
import select
import signal
import sqlite3
import time
import unittest
from typing import Any

import sibling
from store_tests import SqliteStore, StoreTests

SERVER: "str | None" = None  # set by test-tg-server.py

base: Any = sibling.load("tg_server_accounts_base", "test-tg-server.py")
Conn = base.Conn

PASSWORD = "correct horse"[:7] + "-battery"  # 15 bytes, no space: a word of the protocol
TOKEN = re.compile(r"^[0-9a-f]{64}$")
OPEN_BUDGETS = ("--sign-in-rate", "1000", "--address-sign-in-rate", "1000")


def raw(conn: Any, line: bytes) -> str:
    """The reply to a line sent as bytes, as they are (not UTF-8, NUL bytes)."""
    conn.sock.sendall(line + b"\n")
    return str(conn.read())


def once(port: int, line: str) -> str:
    """The reply to one line on a connection of its own."""
    conn = Conn(port)
    try:
        return str(conn.ask(line))
    finally:
        conn.close()


def sha256(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class AccountTests(StoreTests):
    """The tests, for any store: start() starts a server on the test's database (keeping the
    ones it started for stopping and their output), rows() reads it."""

    def open_server(self, *extra: str) -> Any:
        if "--sign-in-rate" not in extra:
            extra = OPEN_BUDGETS + extra
        return self.start(*extra)

    def register(self, conn: Any, name: str, password: str = PASSWORD) -> str:
        token = str(conn.ok("register %s %s" % (name, password)))
        self.assertRegex(token, TOKEN)
        return token

    def account_count(self) -> int:
        return int(self.rows("SELECT count(*) FROM accounts")[0][0])

    def session_count(self) -> int:
        return int(self.rows("SELECT count(*) FROM sessions")[0][0])

    def account_id(self, name: str) -> int:
        return int(self.rows("SELECT id FROM accounts WHERE name = '%s'" % name)[0][0])

    # ---- the tests ------------------------------------------------------------------------

    def test_register_login_resume_logout_and_logout_all(self) -> None:
        s = self.open_server()
        c1, c2, c3 = Conn(s.port), Conn(s.port), Conn(s.port)
        self.assertEqual(c1.ask("whoami"), "ok -")
        t1 = self.register(c1, "alice")
        self.assertEqual(c1.ask("whoami"), "ok alice")
        t2 = c2.ok("login alice %s" % PASSWORD)
        self.assertRegex(t2, TOKEN)
        self.assertNotEqual(t1, t2)
        self.assertEqual(c3.ask("session %s" % t1), "ok alice")
        self.assertEqual(c3.ask("whoami"), "ok alice")
        # Stored: an Argon2id hash and the tokens' hashes, nothing in clear.
        (stored,) = self.rows("SELECT password_hash FROM accounts WHERE name = 'alice'")[0]
        self.assertTrue(stored.startswith("$argon2id$"), stored)
        self.assertNotIn(PASSWORD, stored)
        hashes = sorted(r[0] for r in self.rows("SELECT token_hash FROM sessions"))
        self.assertEqual(hashes, sorted([sha256(t1), sha256(t2)]))
        # logout ends one session; the other still signs in.
        self.assertEqual(c2.ask("logout"), "ok")
        self.assertEqual(c2.ask("whoami"), "ok -")
        self.assertReply(c2.ask("session %s" % t2), "err bad-session ")
        self.assertEqual(c2.ask("whoami"), "ok -")
        self.assertEqual(self.session_count(), 1)
        c4 = Conn(s.port)
        self.assertEqual(c4.ask("session %s" % t1), "ok alice")
        # logout-all: every session, and every connection signed in with one.
        self.assertEqual(c3.ask("logout-all"), "ok")
        for c in (c1, c3, c4):
            self.assertEqual(c.ask("whoami"), "ok -")
        self.assertReply(c4.ask("session %s" % t1), "err bad-session ")
        self.assertEqual(self.session_count(), 0)
        # Signed out: the commands that need a sign-in say so, and change nothing.
        for line in ("logout", "logout-all", "delete-account %s" % PASSWORD):
            self.assertReply(c1.ask(line), "err not-signed-in ")
        self.assertEqual(self.account_count(), 1)
        for c in (c1, c2, c3, c4):
            c.close()

    def test_restart_keeps_accounts_and_sessions(self) -> None:
        s = self.open_server()
        c = Conn(s.port)
        token = self.register(c, "Keeper_1")
        c.close()
        s.stop()
        s = self.open_server()
        c = Conn(s.port)
        self.assertEqual(c.ask("session %s" % token), "ok Keeper_1")
        self.assertRegex(c.ok("login keeper_1 %s" % PASSWORD), TOKEN)  # any case signs in
        self.assertEqual(c.ask("whoami"), "ok Keeper_1")
        c.close()

    def test_wrong_passwords_are_budgeted_per_account_and_per_address(self) -> None:
        s = self.start("--sign-in-rate", "3", "--address-sign-in-rate", "8")
        c = Conn(s.port)
        self.register(c, "alice")  # the address's attempt 1
        self.register(c, "bob")    # 2
        for _ in range(3):         # 3, 4, 5: alice's whole budget
            self.assertEqual(c.ask("login alice wrong-password"),
                             "err bad-login wrong name or password")
        # A name nobody has is answered alike (no telling which names exist).
        self.assertEqual(c.ask("login nobody1 wrong-password"),
                         "err bad-login wrong name or password")  # 6
        # alice's budget is spent: even her password is refused (not charged to the address).
        self.assertReply(c.ask("login alice %s" % PASSWORD), "err rate-limited ")
        self.assertIn("account", c.ask("login ALICE %s" % PASSWORD))
        self.assertRegex(c.ok("login bob %s" % PASSWORD), TOKEN)  # 7
        self.assertEqual(c.ask("login nobody2 wrong-password"),
                         "err bad-login wrong name or password")  # 8
        # The address's budget is spent: any name, registering too.
        for line in ("login bob %s" % PASSWORD, "register carol %s" % PASSWORD):
            reply = c.ask(line)
            self.assertReply(reply, "err rate-limited ")
            self.assertIn("address", reply)
        self.assertEqual(self.account_count(), 2)
        c.close()

    def test_forged_and_expired_sessions_are_refused(self) -> None:
        s = self.open_server("--session-lifetime", "2")
        c = Conn(s.port)
        token = self.register(c, "alice")
        other = Conn(s.port)
        self.assertEqual(other.ask("session %s" % token), "ok alice")
        forged = token[:-1] + ("0" if token[-1] != "0" else "1")
        for bad in (forged, "0" * 64, sha256(token), token.upper()):
            self.assertReply(other.ask("session %s" % bad), "err bad-session ", bad)
        # A refused session leaves the connection as it was.
        self.assertEqual(other.ask("whoami"), "ok alice")
        time.sleep(2.5)
        self.assertReply(once(s.port, "session %s" % token), "err bad-session ")
        self.assertEqual(other.ask("whoami"), "ok -")  # its session expired: a guest again
        self.assertRegex(c.ok("login alice %s" % PASSWORD), TOKEN)  # a new session, fine
        c.close()
        other.close()

    def test_names_that_differ_only_by_case_are_refused(self) -> None:
        s = self.open_server()
        c = Conn(s.port)
        self.register(c, "Alice-01")
        for name in ("alice-01", "ALICE-01", "aLiCe-01"):
            self.assertEqual(c.ask("register %s %s" % (name, PASSWORD)),
                             "err name-taken that name, or one that differs from it only by "
                             "case, is taken")
        self.register(c, "alice_01")  # another character: another name
        self.assertEqual(self.account_count(), 2)
        # Letters of other scripts that look like Latin ones: not a name at all.
        self.assertReply(raw(c, b"register \xd0\x90lice-01 " + PASSWORD.encode()),  # Cyrillic A
                         "err bad-name ")
        self.assertEqual(self.account_count(), 2)
        c.close()

    def test_bad_input_is_refused_with_nothing_changed(self) -> None:
        s = self.open_server()
        c = Conn(s.port)
        token = self.register(c, "alice")
        before = (self.account_count(), self.session_count())
        p = PASSWORD.encode()
        cases: "list[tuple[bytes, str]]" = [
            (b"register", "usage"), (b"register alice", "usage"),
            (b"register bob " + p + b" extra", "usage"),
            (b"register ab " + p, "bad-name"), (b"register " + b"a" * 21 + b" " + p, "bad-name"),
            (b"register b@b " + p, "bad-name"), (b"register \xc3\xa9lise " + p, "bad-name"),
            (b"register \xff\xfe\xfd " + p, "bad-name"),
            (b"register bob short", "bad-password"),
            (b"register bob " + b"p" * 129, "bad-password"),
            (b"register bob pass\xffword", "bad-password"),
            (b"register bob \xc0\xafpassword", "bad-password"),       # overlong UTF-8
            (b"register bob \xed\xa0\x80password", "bad-password"),   # a surrogate
            (b"register bob pass\x01word", "bad-password"),
            (b"register bob pass\x00word1", "nul-byte"),
            (b"register bo\x00b " + p, "nul-byte"),
            (b"register bob " + b"p" * 1100, "line-too-long"),
            (b"login", "usage"), (b"login alice", "usage"), (b"login alice " + p + b" x", "usage"),
            (b"login al " + p, "bad-name"), (b"login alice \xff" + p, "bad-password"),
            (b"login alice " + p + b"\x00", "nul-byte"),
            (b"session", "usage"), (b"session a b", "usage"), (b"session xyz", "bad-session"),
            (b"session " + b"a" * 65, "bad-session"), (b"session " + b"\xff" * 64, "bad-session"),
            (b"session " + token.encode()[:32] + b"\x00" + token.encode()[33:], "nul-byte"),
            (b"logout now", "usage"), (b"logout-all x", "usage"),
            (b"delete-account", "usage"), (b"delete-account a b", "usage"),
            (b"delete-account short", "bad-password"),
            (b"delete-account \xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8", "bad-password"),
            (b"delete-account " + p + b"\x00", "nul-byte"),
            (b"whoami x", "usage"), (b"new hal\x00usa", "nul-byte"),
        ]
        for line, word in cases:
            reply = raw(c, line)
            self.assertTrue(reply.startswith("err %s " % word), "%r -> %r" % (line, reply))
            self.assertNotIn("\x00", reply)
        self.assertEqual((self.account_count(), self.session_count()), before)
        self.assertEqual(c.ask("whoami"), "ok alice")  # still signed in, still answered
        c.close()

    def test_passwords_never_reach_the_output_or_the_database_in_clear(self) -> None:
        s = self.open_server()
        c = Conn(s.port)
        secrets = ["Secret-%d-%s" % (i, os.urandom(4).hex()) for i in range(4)]
        self.register(c, "alice", secrets[0])
        c.ask("login alice %s" % secrets[1])  # wrong
        c.ask("register bob %s" % "x")        # too short, refused
        c.ask("delete-account %s" % secrets[2])  # wrong
        c.ask("register Alice %s" % secrets[3])  # taken
        c.close()
        s.proc.send_signal(signal.SIGTERM)
        out, err = s.proc.communicate(timeout=20)
        self.assertEqual(s.proc.returncode, 0, err)
        for secret in secrets:
            self.assertNotIn(secret, err + out)
            for row in self.rows("SELECT name, password_hash FROM accounts"):
                self.assertNotIn(secret, " ".join(row))
        self.stored_nowhere_in_clear(secrets)

    def stored_nowhere_in_clear(self, secrets: "list[str]") -> None:
        """The database's own files (SQLite's; PostgreSQL's are the cluster's) hold none."""

    def test_seats_record_the_account_and_delete_anonymises(self) -> None:
        s = self.open_server()
        alice, bob, guest = Conn(s.port), Conn(s.port), Conn(s.port)
        self.register(alice, "alice")
        alice_id = self.account_id("alice")
        bob_token = self.register(bob, "bob")
        bob_id = self.account_id("bob")
        mid, _, invite = alice.ok("new halusa").split()
        bob.ok("join %s %s" % (mid, invite))
        other, _, other_invite = guest.ok("new hus").split()
        alice.ok("join %s %s" % (other, other_invite))
        seats = "SELECT match_id, seat, account_id FROM seat_accounts ORDER BY match_id, seat"
        self.assertEqual([tuple(int(v) for v in r) for r in self.rows(seats)],
                         [(int(mid), 0, alice_id), (int(mid), 1, bob_id), (int(other), 1, alice_id)])
        history = alice.ok("history %s" % mid)
        # A wrong password deletes nothing.
        self.assertEqual(alice.ask("delete-account wrong-password"), "err bad-login wrong password")
        self.assertEqual(self.account_count(), 2)
        alice2 = Conn(s.port)
        alice2.ok("login alice %s" % PASSWORD)
        self.assertEqual(alice.ask("delete-account %s" % PASSWORD), "ok")
        for c in (alice, alice2):
            self.assertEqual(c.ask("whoami"), "ok -")
        gone = self.rows("SELECT coalesce(name, ''), coalesce(name_folded, ''), "
                         "coalesce(password_hash, ''), CASE WHEN deleted THEN 1 ELSE 0 END "
                         "FROM accounts WHERE id = %d" % alice_id)
        self.assertEqual(gone, [("", "", "", "1")])
        self.assertEqual(self.rows("SELECT count(*) FROM sessions WHERE account_id = %d"
                                   % alice_id), [("0",)])
        # Its games stay, their seats pointing at the anonymised account.
        self.assertEqual(len(self.rows(seats)), 3)
        self.assertEqual(guest.ok("history %s" % mid), history)
        self.assertEqual(once(s.port, "login alice %s" % PASSWORD),
                         "err bad-login wrong name or password")
        # The name is free again, for a new account; bob is untouched.
        self.register(guest, "Alice")
        self.assertNotEqual(self.account_id("Alice"), alice_id)
        self.assertEqual(once(s.port, "session %s" % bob_token), "ok bob")
        for c in (alice, alice2, bob, guest):
            c.close()

    def test_passwords_hash_on_a_worker_while_the_loop_answers(self) -> None:
        s = self.open_server()
        a, b, reader = Conn(s.port), Conn(s.port), Conn(s.port)
        mid = reader.ok("new halusa").split()[0]
        # Two hashes queue on the one account worker (each about 0.1 to 0.3 s).
        a.send("register hasher1 %s" % PASSWORD)
        b.send("register hasher2 %s" % PASSWORD)
        time.sleep(0.01)
        for _ in range(5):
            self.assertTrue(reader.ask("show %s" % mid).startswith("ok "))
            self.assertEqual(reader.ask("whoami"), "ok -")
        # Answered before the second hash was done: the loop did not hash.
        ready, _, _ = select.select([b.sock], [], [], 0)
        self.assertEqual(ready, [], "the second register was answered before the reads")
        self.assertRegex(a.read().split()[1], TOKEN)
        self.assertRegex(b.read().split()[1], TOKEN)
        for c in (a, b, reader):
            c.close()


class AccountsTest(SqliteStore, AccountTests, unittest.TestCase):
    """The tests on SQLite."""

    tmp_prefix = "tg-server-accounts-"

    def setUp(self) -> None:
        base.SERVER = SERVER
        super().setUp()

    def new_server(self, *extra: str) -> Any:
        return base.Server(self.db, *extra)

    def stored_nowhere_in_clear(self, secrets: "list[str]") -> None:
        for name in os.listdir(self.tmp.name):
            with open(os.path.join(self.tmp.name, name), "rb") as f:
                data = f.read()
            for secret in secrets:
                self.assertNotIn(secret.encode(), data, name)

    def test_schema_2_is_brought_to_3_in_place(self) -> None:
        s = self.start()
        c = Conn(s.port)
        mid, token, invite = c.ok("new hus").split()
        history = c.ok("history %s" % mid)
        c.close()
        s.stop()
        with sqlite3.connect(self.db) as db:  # as a server of schema 2 left it
            for table in ("rating_history", "rated_matches", "seat_accounts", "ratings",
                          "sessions", "accounts"):
                db.execute("DROP TABLE %s" % table)
            db.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
        s = self.open_server()
        c = Conn(s.port)
        self.assertEqual(c.ok("history %s" % mid), history)
        self.register(c, "migrated")
        # Brought to the current schema (5: test-tg-server-lobby.py's rated_matches and
        # rating_history) at once.
        self.assertEqual(self.rows("SELECT value FROM meta WHERE key = 'schema'"), [("8",)])
        self.assertEqual(self.rows("SELECT count(*) FROM ratings"), [("0",)])
        c.close()


if __name__ == "__main__":
    import sys
    SERVER = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
