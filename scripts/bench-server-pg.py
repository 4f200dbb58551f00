#!/usr/bin/env python3
"""Measures tg-server on PostgreSQL, with 1, 2 and 3 servers on one database, against the
SQLite server, in one run (docs/server.md, "PostgreSQL: what is measured").

    bench-server-pg.py SERVER [--seconds S] [--clients 20,200] [--rounds R]

A throw-away PostgreSQL cluster (server/tests/pgcluster.py) in a temporary directory, the SQLite
database beside it (the same disk). For each set-up and client count: acknowledged moves per
second and the p50/p99 latency of `play` (from sending it to its `ok`, that is, commit
included), every client playing its own match through the server it is connected to (spread
over the servers in turn: sticky by match, as docs/server.md recommends), a new match when
one ends. The set-ups take turns, --rounds times; the medians are printed as a Markdown
table. Then the take-over: 20 clocked matches on one of three servers, that server SIGKILLed,
the time until every one of its matches is leased by another (lease 2 s). Clients run in one
asyncio loop, so that the load generator costs every set-up the same.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server",
                                "tests"))
import pgcluster  # noqa: E402

GAMES = ["halusa", "walak-pussa", "hawalis", "hus"]


class Proc:
    def __init__(self, server: str, db: str, port_file: str, *extra: str) -> None:
        self.argv = [server, "--port", "0", "--db", db, "--port-file", port_file,
                     "--rate", "1000000", "--address-rate", "1000000", *extra]
        self.port_file = port_file
        self.p: Optional[subprocess.Popen[str]] = None
        self.port = 0
        self.banner = ""

    def start(self) -> "Proc":
        if os.path.exists(self.port_file):
            os.unlink(self.port_file)
        self.p = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True)
        t0 = time.monotonic()
        while not os.path.exists(self.port_file):
            if self.p.poll() is not None or time.monotonic() - t0 > 60:
                raise RuntimeError("tg-server did not start: %s" % " ".join(self.argv))
            time.sleep(0.005)
        with open(self.port_file) as f:
            self.port = int(f.read())
        assert self.p.stdout is not None
        self.banner = self.p.stdout.readline().strip()
        return self

    def stop(self, sig: int = signal.SIGTERM) -> None:
        assert self.p is not None
        self.p.send_signal(sig)
        self.p.wait(timeout=60)


async def ask(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, line: str) -> str:
    writer.write(line.encode() + b"\n")
    while True:
        reply = (await reader.readline()).decode()
        if not reply:
            raise ConnectionError("closed")
        if not reply.startswith("event"):
            return reply.strip()


async def new_match(r: asyncio.StreamReader, w: asyncio.StreamWriter, spec: str) -> tuple[int, list[str]]:
    mid, token, invite = (await ask(r, w, "new " + spec))[3:].split()
    # The other seat is joined from another connection: the creator's own may not.
    guest_r, guest_w = await asyncio.open_connection("127.0.0.1", w.get_extra_info("peername")[1])
    seat, other = (await ask(guest_r, guest_w, "join %s %s" % (mid, invite)))[3:].split()
    guest_w.close()
    return int(mid), ([token, other] if seat == "1" else [other, token])


async def client(port: int, seed: int, until: float, latencies: list[float],
                 counts: list[int]) -> None:
    rng = random.Random(seed)
    r, w = await asyncio.open_connection("127.0.0.1", port)
    mid, tokens = await new_match(r, w, rng.choice(GAMES))
    while time.monotonic() < until:
        info = await ask(r, w, "show %d" % mid)
        fields = dict(f.split("=", 1) for f in info[3:].split(" position=")[0].split())
        if fields["result"] != "running":
            mid, tokens = await new_match(r, w, rng.choice(GAMES))
            continue
        moves = (await ask(r, w, "moves %d" % mid))[3:].split()
        t0 = time.monotonic()
        reply = await ask(r, w, "play %d %s %s %s" % (mid, fields["ply"], rng.choice(moves),
                                                       tokens[int(fields["turn"])]))
        if reply.startswith("ok"):
            latencies.append(time.monotonic() - t0)
            counts[0] += 1
        else:
            counts[1] += 1
    w.close()


async def load(ports: list[int], clients: int, seconds: float) -> tuple[float, float, float, int]:
    latencies: list[float] = []
    counts = [0, 0]
    start = time.monotonic()
    until = start + seconds
    await asyncio.gather(*(client(ports[i % len(ports)], i, until, latencies, counts)
                           for i in range(clients)))
    elapsed = time.monotonic() - start
    latencies.sort()
    p50 = latencies[len(latencies) // 2] if latencies else float("nan")
    p99 = latencies[int(len(latencies) * 0.99)] if latencies else float("nan")
    return counts[0] / elapsed, p50 * 1000, p99 * 1000, counts[1]


def run_setup(server: str, work: str, pg: pgcluster.Cluster, name: str, clients: int,
              seconds: float, n: int) -> tuple[float, float, float, int]:
    if name == "sqlite":
        db = os.path.join(work, "bench-%d.db" % time.monotonic_ns())
        procs = [Proc(server, db, os.path.join(work, "sqlite.port")).start()]
    else:
        dbname = "b%d" % time.monotonic_ns()
        pg.psql("CREATE DATABASE %s" % dbname)
        procs = [Proc(server, pg.conninfo(dbname), os.path.join(work, "pg%d.port" % i)).start()
                 for i in range(n)]
    try:
        return asyncio.run(load([p.port for p in procs], clients, seconds))
    finally:
        for p in procs:
            p.stop()


def takeover(server: str, work: str, pg: pgcluster.Cluster) -> float:
    dbname = "takeover%d" % time.monotonic_ns()
    pg.psql("CREATE DATABASE %s" % dbname)
    procs = [Proc(server, pg.conninfo(dbname), os.path.join(work, "t%d.port" % i),
                  "--lease", "2").start() for i in range(3)]
    owner = procs[0].banner.split("shared, as server ")[1].split(",")[0]

    async def make() -> None:
        r, w = await asyncio.open_connection("127.0.0.1", procs[0].port)
        for i in range(20):
            mid, tokens = await new_match(r, w, "hus clock=5+0")
            for _ in range(2):
                info = await ask(r, w, "show %d" % mid)
                fields = dict(f.split("=", 1) for f in info[3:].split(" position=")[0].split())
                moves = (await ask(r, w, "moves %d" % mid))[3:].split()
                await ask(r, w, "play %d %s %s %s" % (mid, fields["ply"], moves[0],
                                                      tokens[int(fields["turn"])]))
        w.close()

    asyncio.run(make())
    procs[0].stop(signal.SIGKILL)
    t0 = time.monotonic()
    while pg.psql("SELECT count(*) FROM leases WHERE owner = '%s' OR expires_at <= "
                  "clock_timestamp()" % owner, dbname) != "0":
        time.sleep(0.01)
    took = time.monotonic() - t0
    for p in procs[1:]:
        p.stop()
    return took


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("server")
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--clients", default="20,200")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    setups = [("sqlite", 1), ("pg", 1), ("pg", 2), ("pg", 3)]
    results: dict[tuple[str, int, int], list[tuple[float, float, float, int]]] = {}
    work = tempfile.mkdtemp(prefix="tg-bench-pg-")
    with pgcluster.Cluster() as pg:
        try:
            for _ in range(a.rounds):
                for clients in [int(c) for c in a.clients.split(",")]:
                    for name, n in setups:
                        got = run_setup(a.server, work, pg, name, clients, a.seconds, n)
                        results.setdefault((name, n, clients), []).append(got)
                        print("# %s x%d, %d clients: %.0f moves/s, p50 %.1f ms, p99 %.1f ms, "
                              "%d refused" % (name, n, clients, *got), file=sys.stderr)
            takes = [takeover(a.server, work, pg) for _ in range(a.rounds)]
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print("| store | servers | clients | moves/s | play p50 (ms) | play p99 (ms) |")
    print("|---|---|---|---|---|---|")
    for (name, n, clients), runs in results.items():
        rate, p50, p99 = (statistics.median(r[i] for r in runs) for i in range(3))
        print("| %s | %d | %d | %.0f | %.1f | %.1f |" % (
            "SQLite" if name == "sqlite" else "PostgreSQL", n, clients, rate, p50, p99))
    print()
    print("take-over of a killed server's 20 clocked matches (lease 2 s): median %.2f s "
          "(runs: %s)" % (statistics.median(takes), ", ".join("%.2f" % t for t in takes)))


if __name__ == "__main__":
    main()
