#!/usr/bin/env python3
"""Measures the lobby of a busy site (issue 42 item 8; docs/server.md, "What is measured"):
signed-in users subscribed to the lobby while live games are played, on one tg-server on
SQLite and on three tg-server instances on one PostgreSQL database.

    bench-lobby.py SERVER [--users 500] [--games 200] [--seconds 30] [--seeks 30]
                          [--setups sqlite,pg3]

Every user is a connection of the line protocol (the WebSocket relays the same lines), signed
in to an account of its own (`register`), subscribed with `lobby`; on PostgreSQL the users are
spread over the instances in turn. 2 x --games of them play: each game's two players are on
one instance (sticky by match, as docs/server.md recommends behind a proxy); one seeks a rated
Halusa game with a 5+3 clock, the other takes it (`accept-seek`), and they play it move after
move as fast as the replies come (`show`, `moves`, `play` on the connection of the seat to
move), then seek again; so the lobby's lines of those games (`seek`, `unseek`, `live`,
`ended`) go to every subscriber all along, as on a real site. Meanwhile, once a second for
--seeks seconds, a user who does not play seeks a casual game and withdraws it once every
subscriber has seen it; for each, the time from sending the `seek` to each subscriber's
reading its `lobby seek` line. Measured: those latencies (per subscriber: median, p95, max;
per seek: until the last subscriber), and the acknowledged moves per second over the
--seconds window. A throw-away PostgreSQL cluster (server/tests/pgcluster.py) in a temporary
directory; the SQLite database beside it. The load generator is one asyncio loop, on the
same machine: its cost is in the numbers, the same for both set-ups; the load average is
printed with them.
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
from typing import Any, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server",
                                "tests"))
import pgcluster  # noqa: E402

PASSWORD = "bench-password-1"
# Budgets that would refuse a benchmark's one address: as high as the server takes them.
OPEN_LIMITS = ["--rate", "1000000", "--address-rate", "1000000", "--max-clients", "100000",
               "--max-clients-per-address", "100000", "--sign-in-rate", "1000000",
               "--address-sign-in-rate", "1000000", "--max-buffered", "1048576",
               # the users waiting for their registrations (2 hashed at a time) say nothing
               "--idle-timeout", "86400"]


class Proc:
    """One tg-server on its own free line port."""

    def __init__(self, server: str, db: str, port_file: str) -> None:
        self.argv = [server, "--port", "0", "--db", db, "--port-file", port_file, *OPEN_LIMITS]
        self.port_file = port_file
        self.p: Optional[subprocess.Popen[str]] = None
        self.port = 0

    def start(self) -> "Proc":
        if os.path.exists(self.port_file):
            os.unlink(self.port_file)
        self.p = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True)
        t0 = time.monotonic()
        while not os.path.exists(self.port_file) or os.path.getsize(self.port_file) == 0:
            if self.p.poll() is not None or time.monotonic() - t0 > 60:
                raise RuntimeError("tg-server did not start: %s\n%s"
                                   % (" ".join(self.argv), self.p.stderr.read() if self.p.stderr else ""))
            time.sleep(0.01)
        with open(self.port_file) as f:
            self.port = int(f.read())
        return self

    def stop(self) -> None:
        assert self.p is not None
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


class User:
    """A signed-in connection: replies in order to its one command at a time; the lobby's pushed
    lines noted as they are read."""

    def __init__(self, index: int, seen: dict[str, list[float]]) -> None:
        self.name = "u%03d_%s" % (index, os.urandom(3).hex())
        self.seen = seen  # seek id -> the times its `lobby seek` line was read, by anyone
        self.replies: asyncio.Queue[str] = asyncio.Queue()
        self.lock = asyncio.Lock()
        self.matched: dict[str, asyncio.Future[list[str]]] = {}
        self.lines = 0

    async def connect(self, port: int) -> None:
        self.port = port
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
        self.task = asyncio.create_task(self.read())

    async def read(self) -> None:
        while True:
            raw = await self.reader.readline()
            if not raw:
                await self.replies.put("err closed")
                return
            line = raw.decode().rstrip("\n")
            if line.startswith("lobby "):
                self.lines += 1
                words = line.split(" ")
                if words[1] == "seek":
                    self.seen.setdefault(words[2], []).append(time.monotonic())
                elif words[1] == "matched" and words[2] in self.matched:
                    self.matched.pop(words[2]).set_result(words[3:6])
            elif not line.startswith("event "):
                await self.replies.put(line)

    async def ask(self, line: str) -> str:
        async with self.lock:
            self.writer.write(line.encode() + b"\n")
            return await self.replies.get()

    async def ok(self, line: str) -> str:
        reply = await self.ask(line)
        if not reply.startswith("ok"):
            raise RuntimeError("%s: %r -> %r" % (self.name, line, reply))
        return reply[3:]

    def close(self) -> None:
        self.task.cancel()
        self.writer.close()


async def open_seek(owner: User, line: str) -> tuple[str, float]:
    """The seek's id and when the `seek` that made it was sent. An address may hold 10 open
    seeks (all the users here share one): while the games being made hold them, try again."""
    while True:
        sent = time.monotonic()
        reply = await owner.ask(line)
        if reply.startswith("ok "):
            return reply[3:].split()[0], sent
        if not reply.startswith("err too-many-seeks"):
            raise RuntimeError("%s: %r" % (line, reply))
        await asyncio.sleep(0.02)


async def seek_and_take(owner: User, taker: User,
                        errors: list[str]) -> tuple[int, dict[int, tuple[User, str]]]:
    """A rated game made in the lobby: the match id and, per seat, its player and token. A
    take that fails (noted in errors) is given up, its seek withdrawn, and tried again."""
    while True:
        seek, _ = await open_seek(owner, "seek halusa clock=5+3 rated")
        matched: asyncio.Future[list[str]] = asyncio.get_running_loop().create_future()
        owner.matched[seek] = matched
        reply = await taker.ask("accept-seek %s" % seek)
        if not reply.startswith("ok "):
            errors.append("accept-seek: " + reply)
            owner.matched.pop(seek, None)
            await owner.ask("unseek %s" % seek)
            continue
        mid, seat, token = reply[3:].split()[:3]
        owner_mid, owner_seat, owner_token = await asyncio.wait_for(matched, 60)
        assert owner_mid == mid and owner_seat != seat
        return int(mid), {int(seat): (taker, token), int(owner_seat): (owner, owner_token)}


async def play_games(owner: User, taker: User, until: float, moves: list[float],
                     errors: list[str], rng: random.Random) -> None:
    mid, seats = await seek_and_take(owner, taker, errors)
    while time.monotonic() < until:
        fields = dict(f.split("=", 1) for f in
                      (await owner.ok("show %d" % mid)).split(" position=")[0].split())
        if fields["result"] != "running":
            mid, seats = await seek_and_take(owner, taker, errors)
            continue
        player, token = seats[int(fields["turn"])]
        legal = (await player.ok("moves %d" % mid)).split()
        reply = await player.ask("play %d %s %s %s" % (mid, fields["ply"], rng.choice(legal), token))
        if reply.startswith("ok"):
            moves.append(time.monotonic())
        else:
            errors.append("play: " + reply)


async def measure_seeks(seeker: User, subscribers: int, count: int,
                        seen: dict[str, list[float]]) -> tuple[list[float], list[float], int]:
    """count seeks a second apart: each subscriber's latency, each seek's until the last, and
    how many seeks some subscriber never saw within 10 s."""
    each: list[float] = []
    last: list[float] = []
    missed = 0
    for _ in range(count):
        seek, t0 = await open_seek(seeker, "seek hus clock=10+5 casual")
        deadline = t0 + 10
        while len(seen.get(seek, [])) < subscribers and time.monotonic() < deadline:
            await asyncio.sleep(0.002)
        times = seen.pop(seek, [])
        if len(times) < subscribers:
            missed += 1
        each += [t - t0 for t in times]
        if times:
            last.append(max(times) - t0)
        await seeker.ok("unseek %s" % seek)
        await asyncio.sleep(max(0.0, t0 + 1 - time.monotonic()))
    return each, last, missed


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))] * 1000 if ordered else float("nan")


async def run_load(ports: list[int], users: int, games: int, seconds: float,
                   seeks: int) -> dict[str, Any]:
    seen: dict[str, list[float]] = {}
    people = [User(i, seen) for i in range(users)]
    # Players of one game share an instance: users 2g and 2g+1 on ports[g % n]; the others in
    # turn.
    for i, user in enumerate(people):
        port = ports[(i // 2) % len(ports)] if i < 2 * games else ports[i % len(ports)]
        await user.connect(port)
    # A server hashes at most 2 passwords of one address at a time (it refuses a third).
    hashing = {port: asyncio.Semaphore(2) for port in ports}

    async def register(user: User) -> None:
        async with hashing[user.port]:
            await user.ok("register %s %s" % (user.name, PASSWORD))

    t0 = time.monotonic()
    await asyncio.gather(*(register(user) for user in people))
    registered = time.monotonic() - t0
    await asyncio.gather(*(user.ok("lobby") for user in people))
    moves: list[float] = []
    errors: list[str] = []
    rng = random.Random(1)
    start = time.monotonic()
    until = start + seconds + 5  # 5 s for the games to start before the window
    players = [asyncio.create_task(play_games(people[2 * g], people[2 * g + 1], until, moves,
                                              errors, random.Random(rng.random())))
               for g in range(games)]
    await asyncio.sleep(5)
    window = time.monotonic()
    each, last, missed = await measure_seeks(people[-1], users, seeks, seen)
    await asyncio.sleep(max(0.0, until - time.monotonic()))
    for task in players:
        if task.done() and task.exception() is not None:
            raise RuntimeError("a game's players failed") from task.exception()
        task.cancel()
    # Each kind of refusal (the command and the error's word), with one example's words.
    kinds = sorted({" ".join(e.split()[:3]): e for e in errors}.items())
    done = [t for t in moves if window <= t <= until]
    for user in people:
        user.close()
    return {"registered_s": registered, "moves_per_s": len(done) / (until - window),
            "p50": pct(each, 0.5), "p95": pct(each, 0.95), "max": pct(each, 1.0),
            "all_p50": pct(last, 0.5), "all_max": pct(last, 1.0), "missed": missed,
            "seeks": len(last), "errors": len(errors), "error_kinds": kinds,
            "error_list": errors}


def run_setup(server: str, work: str, pg: Optional[pgcluster.Cluster], instances: int,
              args: argparse.Namespace) -> dict[str, Any]:
    if pg is None:
        procs = [Proc(server, os.path.join(work, "lobby-%d.db" % time.monotonic_ns()),
                      os.path.join(work, "sqlite.port")).start()]
    else:
        dbname = "lobby%d" % time.monotonic_ns()
        pg.psql("CREATE DATABASE %s" % dbname)
        procs = []
        for i in range(instances):  # in turn: the first makes the schema
            procs.append(Proc(server, pg.conninfo(dbname), os.path.join(work, "pg%d.port" % i)).start())
    try:
        return asyncio.run(run_load([p.port for p in procs], args.users, args.games,
                                    args.seconds, args.seeks))
    finally:
        for p in procs:
            p.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("server")
    parser.add_argument("--users", type=int, default=500)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--seeks", type=int, default=20)
    parser.add_argument("--setups", default="sqlite,pg3")
    args = parser.parse_args()
    if args.users < 2 * args.games + 1:
        parser.error("--users must be more than twice --games: someone who does not play seeks")
    if args.seeks > args.seconds:
        parser.error("--seeks must fit in --seconds (one a second)")
    work = tempfile.mkdtemp(prefix="tg-bench-lobby-")
    pg: Optional[pgcluster.Cluster] = None
    rows = []
    try:
        for setup in args.setups.split(","):
            if setup == "sqlite":
                instances, store = 1, None
            elif setup.startswith("pg") and setup[2:].isdigit():
                if pg is None:
                    pg = pgcluster.Cluster({"max_connections": "300"})
                instances, store = int(setup[2:]), pg
            else:
                parser.error("--setups: sqlite or pgN, not %r" % setup)
            load_before = os.getloadavg()[0]
            r = run_setup(args.server, work, store, instances, args)
            r["load"] = max(load_before, os.getloadavg()[0])
            rows.append((setup, instances, r))
            print("# %s x%d: %s" % (setup, instances,
                                    ", ".join("%s=%s" % kv for kv in r.items()
                                              if kv[0] != "error_list")), flush=True)
    finally:
        if pg is not None:
            pg.stop()
        shutil.rmtree(work, ignore_errors=True)
    print("| store | instances | users | games | seek seen p50 / p95 / max (ms) | "
          "until all saw it p50 / max (ms) | seeks missed | moves/s | refused | load average |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for setup, instances, r in rows:
        print("| %s | %d | %d | %d | %.1f / %.1f / %.1f | %.1f / %.1f | %d of %d | %.0f | %d %s | %.1f |"
              % ("SQLite" if setup == "sqlite" else "PostgreSQL", instances, args.users,
                 args.games, r["p50"], r["p95"], r["max"], r["all_p50"], r["all_max"],
                 r["missed"], r["seeks"], r["moves_per_s"], r["errors"],
                 ", ".join("%s x%d" % (k, sum(e.startswith(k) for e in r["error_list"]))
                           for k, _ in r["error_kinds"]), r["load"]))


if __name__ == "__main__":
    main()
