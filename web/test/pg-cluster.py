#!/usr/bin/env python3
"""A throw-away PostgreSQL cluster for the browser tests (web/test/harness.js, startPostgres),
held while this program's standard input is open.

server/tests/pgcluster.py starts it (initdb in a temporary directory, a Unix socket only, as an
unprivileged user when run as root) and removes it on exit. The first line written is
`ok SOCKET_DIRECTORY` (or `err WHY`); then each line read is a request, answered on one line:

    create NAME     a database NAME              -> ok NAME
    psql SQL        one statement, its output     -> ok OUTPUT (lines joined by spaces)

End of input stops and removes the cluster.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "server", "tests"))
import pgcluster  # noqa: E402


def answer(line: str) -> None:
    sys.stdout.write(line.replace("\n", " ") + "\n")
    sys.stdout.flush()


def main() -> int:
    try:
        cluster = pgcluster.Cluster()
    except pgcluster.ClusterError as e:
        answer("err %s" % e)
        return 1
    with cluster:
        answer("ok %s" % cluster.tmp)
        for line in sys.stdin:
            verb, _, rest = line.rstrip("\n").partition(" ")
            try:
                if verb == "create" and rest.isidentifier():
                    cluster.psql("CREATE DATABASE %s" % rest, dbname="postgres")
                    answer("ok %s" % rest)
                elif verb == "psql" and rest:
                    answer("ok %s" % cluster.psql(rest))
                else:
                    answer("err usage: create NAME | psql SQL")
            except pgcluster.ClusterError as e:
                answer("err %s" % e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
