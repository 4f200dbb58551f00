"""The tests written once for every store (the AccountTests, WebAccountTests and LobbyTests
mixins): what they ask of a store (StoreTests), and its SQLite side (SqliteStore: a database in
a folder of the test's own); test-tg-server-pg.py's PgTestCase is the PostgreSQL side.

Each test file has its own loaded copy of test-tg-server.py (sibling.py), so the server is made
by the file's new_server(), with the file's SERVER set in its setUp() before this one's.
"""
from __future__ import annotations

import os
import sqlite3
import tempfile
import time
import unittest
from typing import TYPE_CHECKING, Any

# The tests are mixed into a TestCase of each store; to the type checker they are one.
_Mixin: Any = unittest.TestCase if TYPE_CHECKING else object


class StoreTests(_Mixin):  # type: ignore[misc]
    """start() starts a server on the test's database (stopping the one before, keeping them
    for stopping and their output), rows() reads the database."""

    def start(self, *extra: str) -> Any:
        raise NotImplementedError

    def rows(self, query: str) -> "list[tuple[str, ...]]":
        raise NotImplementedError

    def through(self, conn: Any, line: str) -> str:
        """The reply to a change, asked again while a killed server's lease on the match
        still holds it (err leased: PostgreSQL, until the lease runs out), this server is
        taking it over (err busy) or another server changed it a moment ago (err stale).
        SQLite answers at once."""
        deadline = time.monotonic() + 15
        while True:
            reply = str(conn.ask(line))
            if reply.split()[:2] not in (["err", "leased"], ["err", "busy"], ["err", "stale"]) or \
                    time.monotonic() > deadline:
                return reply
            time.sleep(0.05)

    def assertReply(self, reply: str, want: str, context: str = "") -> None:
        """The server's reply begins with want (an error's text after its word may change)."""
        self.assertTrue(reply.startswith(want), "%s%r, want %r" % (context, reply, want))


class SqliteStore:
    """Mixed in before the store-agnostic tests and unittest.TestCase."""

    tmp_prefix = "tg-server-"

    def new_server(self, *extra: str) -> Any:
        """The file's server class on self.db, not started."""
        raise NotImplementedError

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix=self.tmp_prefix)
        self.db = os.path.join(self.tmp.name, "matches.db")
        self.servers: "list[Any]" = []

    def tearDown(self) -> None:
        self.stop_servers()
        self.tmp.cleanup()

    def stop_servers(self) -> None:
        for s in self.servers:
            if s.proc.poll() is None:
                s.stop()

    def start(self, *extra: str) -> Any:
        """A server on the test's database, the one before stopped (one writer at a time)."""
        self.stop_servers()
        s = self.new_server(*extra).start()
        self.servers.append(s)
        return s

    def rows(self, query: str) -> "list[tuple[str, ...]]":
        """The query's rows as psql would print them: every value text, NULL empty."""
        with sqlite3.connect(self.db) as db:
            return [tuple("" if v is None else str(v) for v in r)
                    for r in db.execute(query).fetchall()]
