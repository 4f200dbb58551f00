#!/usr/bin/env python3
"""Measures tg-server against the file-log tg-server it replaced, in one run (docs/server.md).

    bench-server.py --new PATH --old PATH [--seconds S] [--rounds R] [--stored N] [--work DIR]

Both servers run side by side and take turns, --rounds times (default 3): acknowledged
moves per second with 20 and with 200 clients, each client playing its own match (show,
moves, play: three commands per acknowledged move, the same for both servers), while one
more client asks `show` every 5 ms and times the answers (p50, p99). Then each is restarted
over N stored matches (default 100,000) and timed until it accepts clients. Clients run in
one asyncio loop, so that the load generator costs both servers the same. Prints a Markdown
table of the medians.

    bench-server.py --flood --new PATH [--stores sqlite,postgresql] [--seconds S] [--rounds R]
                    [--work DIR]

measures instead what one address can do to another (docs/server.md, "What is measured"): the
server runs with its shipped budgets, and a bystander (two browsers through the WebSocket relay,
named 198.51.100.7 by X-Forwarded-For) plays moves every 20 ms and times each `play` and
`bot greedy`, while the line port's clients (all from 127.0.0.1) flood, one kind at a time:
`record` of a 100,000-ply match sent and never read, costly searches on every match they can
make, idle connections to both ports, and `new` as fast as the budget lets them; a quiet
baseline opens each of --rounds rounds. Prints, for each store (default: sqlite; postgresql
makes a throw-away cluster), the bystander's p50/p99/max per flood and as multiples of the
baseline's, the server's peak RSS, what the server refused, and the load average at start and
end. Needs only Python and the built library (found beside PATH, or TG_LIBRARY) to write the
long match.
"""
import argparse
import asyncio
import os
import random
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

GAMES = ["halusa", "walak-pussa", "hawalis", "hus"]


class Proc:
    def __init__(self, argv, port_file):
        self.argv, self.port_file = argv, port_file

    def start(self, timeout=600):
        if os.path.exists(self.port_file):
            os.unlink(self.port_file)
        t0 = time.monotonic()
        self.p = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        while not os.path.exists(self.port_file):
            if self.p.poll() is not None:
                raise RuntimeError("server exited: " + self.p.stderr.read())
            if time.monotonic() - t0 > timeout:
                raise RuntimeError("server did not start")
            time.sleep(0.001)
        self.started_in = time.monotonic() - t0
        self.port = int(open(self.port_file).read())
        self.banner = self.p.stdout.readline().strip()
        return self

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.communicate(timeout=120)


class Flavour:
    """What differs between the two protocols."""

    def __init__(self, new):
        self.new = new

    def argv(self, binary, store, port_file):
        # The budgets of the SQLite server would count every bench client as one address.
        where = (["--db", store, "--rate", "1000000", "--address-rate", "1000000"] if self.new
                 else ["--dir", store])
        return [binary, "--port", "0", "--port-file", port_file, "--max-clients", "5000"] + where


async def ask(reader, writer, line):
    writer.write(line.encode() + b"\n")
    reply = (await reader.readline()).decode().rstrip("\n")
    if not reply.startswith("ok"):
        raise RuntimeError("%r -> %r" % (line, reply))
    return reply[3:]


async def new_match(reader, writer, flavour, spec):
    words = (await ask(reader, writer, "new " + spec)).split()
    if not flavour.new:
        # The file-log server answers the id alone: its seats have no secrets (`play ID MOVE`).
        return int(words[0]), []
    # The SQLite server answers the creator's token and an invite for the other seat, which is
    # joined from another connection (the creator's own may not).
    guest_reader, guest_writer = await asyncio.open_connection(
        "127.0.0.1", writer.get_extra_info("peername")[1])
    seat, token = (await ask(guest_reader, guest_writer,
                             "join %s %s" % (words[0], words[2]))).split()
    guest_writer.close()
    return int(words[0]), [words[1], token] if seat == "1" else [token, words[1]]


async def player(port, flavour, index, stop, counts):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    rng = random.Random(index)
    mid = None
    while not stop.is_set():
        if mid is None:
            mid, tokens = await new_match(reader, writer, flavour, GAMES[index % len(GAMES)])
        info = await ask(reader, writer, "show %d" % mid)
        fields = dict(w.split("=", 1) for w in info.split(" position=")[0].split())
        moves = (await ask(reader, writer, "moves %d" % mid)).split()
        if fields["result"] != "running" or not moves:
            mid = None
            continue
        move = rng.choice(moves)
        if flavour.new:
            line = "play %d %s %s %s" % (mid, fields["ply"], move, tokens[int(fields["turn"])])
        else:
            line = "play %d %s" % (mid, move)
        await ask(reader, writer, line)
        counts[index] += 1
    writer.close()


async def watcher(port, flavour, stop, latencies):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    mid, _ = await new_match(reader, writer, flavour, "halusa")
    while not stop.is_set():
        t0 = time.perf_counter()
        await ask(reader, writer, "show %d" % mid)
        latencies.append(time.perf_counter() - t0)
        await asyncio.sleep(0.005)
    writer.close()


async def load(port, flavour, clients, seconds):
    stop = asyncio.Event()
    counts = [0] * clients
    latencies = []
    tasks = [asyncio.create_task(player(port, flavour, i, stop, counts)) for i in range(clients)]
    tasks.append(asyncio.create_task(watcher(port, flavour, stop, latencies)))
    await asyncio.sleep(0.5)  # every client connected and playing
    before = sum(counts)
    latencies.clear()
    t0 = time.monotonic()
    await asyncio.sleep(seconds)
    acked = sum(counts) - before
    elapsed = time.monotonic() - t0
    lat = sorted(latencies)
    stop.set()
    await asyncio.gather(*tasks)
    return acked / elapsed, lat[len(lat) // 2], lat[min(len(lat) - 1, int(len(lat) * 0.99))]


def grow_new(db, stored):
    """Copies the matches the load left behind (rows, moves and all, with fresh tokens) until
    the database holds `stored` matches."""
    con = sqlite3.connect(db)
    base = con.execute("SELECT max(id) FROM matches").fetchone()[0]
    copies = (stored + base - 1) // base
    with con:
        for k in range(1, copies):
            off = k * base
            con.execute("INSERT INTO matches SELECT id + ?, spec, plies, created_at FROM matches "
                        "WHERE id <= ?", (off, base))
            con.execute("INSERT INTO seats SELECT match_id + ?, seat, lower(hex(randomblob(16))) "
                        "FROM seats WHERE match_id <= ?", (off, base))
            con.execute("INSERT INTO moves SELECT match_id + ?, ply, move, notation, hash_after, "
                        "seat, played_at FROM moves WHERE match_id <= ?", (off, base))
            con.execute("INSERT INTO results SELECT match_id + ?, winner, reason, ply, score0, "
                        "score1, ended_at FROM results WHERE match_id <= ?", (off, base))
    n = con.execute("SELECT count(*) FROM matches").fetchone()[0]
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return n


def grow_old(directory, stored):
    logs = sorted(f for f in os.listdir(directory) if f.startswith("match-"))
    base = max(int(f[6:-4]) for f in logs)
    copies = (stored + base - 1) // base
    for k in range(1, copies):
        for f in logs:
            shutil.copyfile(os.path.join(directory, f),
                            os.path.join(directory, "match-%d.log" % (int(f[6:-4]) + k * base)))
    os.sync()
    return len([f for f in os.listdir(directory) if f.startswith("match-")])


def restart_time(proc, runs=3):
    times = []
    for _ in range(runs):
        proc.start()
        times.append(proc.started_in)
        banner = proc.banner
        proc.stop()
    return min(times), banner


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--new", required=True)
    ap.add_argument("--old")
    ap.add_argument("--flood", action="store_true")
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--stored", type=int, default=100000)
    ap.add_argument("--work", default=None)
    ap.add_argument("--stores", default="sqlite",
                    help="with --flood: sqlite, postgresql or both, comma-separated")
    a = ap.parse_args()
    if a.flood:
        import importlib.util
        here = os.path.dirname(os.path.abspath(__file__))
        spec = importlib.util.spec_from_file_location("bench_flood",
                                                      os.path.join(here, "bench-server-flood.py"))
        flood = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(flood)
        stores = a.stores.split(",")
        if not stores or any(s not in ("sqlite", "postgresql") for s in stores):
            ap.error("--stores takes sqlite, postgresql or both, comma-separated")
        flood.run(a.new, a.seconds, a.work, stores, a.rounds)
        return
    if not a.old:
        ap.error("--old is required (or --flood)")
    work = a.work or tempfile.mkdtemp(prefix="tg-bench-server-")
    os.makedirs(work, exist_ok=True)
    servers = {"file-log": (a.old, Flavour(False)), "sqlite": (a.new, Flavour(True))}
    procs, stores = {}, {}
    try:
        for name, (binary, flavour) in servers.items():
            stores[name] = os.path.join(work, name + (".db" if flavour.new else "-logs"))
            port_file = os.path.join(work, name + ".port")
            procs[name] = Proc(flavour.argv(binary, stores[name], port_file), port_file).start()
        # The two servers take turns, round after round, so that what else the machine is
        # doing (its disk above all) weighs on both alike.
        runs = {(name, clients): [] for name in servers for clients in (20, 200)}
        for clients in (20, 200):
            for r in range(a.rounds):
                for name, (binary, flavour) in servers.items():
                    result = asyncio.run(load(procs[name].port, flavour, clients, a.seconds))
                    runs[(name, clients)].append(result)
                    print("# round %d, %s, %d clients: %.0f acks/s, show p50 %.2f ms, p99 %.2f ms"
                          % (r + 1, name, clients, result[0], result[1] * 1e3, result[2] * 1e3),
                          file=sys.stderr)
        restarts = {}
        for name, (binary, flavour) in servers.items():
            procs[name].stop()
            n = grow_new(stores[name], a.stored) if flavour.new else grow_old(stores[name], a.stored)
            restart, banner = restart_time(procs[name])
            restarts[name] = (n, restart)
            print("# %s restart over %d matches: %.0f ms (%s)" % (name, n, restart * 1e3, banner),
                  file=sys.stderr)
    finally:
        for proc in procs.values():
            if proc.p.poll() is None:
                proc.stop()
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)

    def median(name, clients, i):
        return statistics.median(run[i] for run in runs[(name, clients)])

    def spread(name, clients):
        rates = [run[0] for run in runs[(name, clients)]]
        return "%.0f (%.0f-%.0f)" % (statistics.median(rates), min(rates), max(rates))

    print("Medians of %d rounds of %g s (range in brackets):" % (a.rounds, a.seconds))
    print()
    print("| measure | file-log server | SQLite server |")
    print("|---|---|---|")
    for clients in (20, 200):
        print("| acknowledged moves/s, %d clients | %s | %s |"
              % (clients, spread("file-log", clients), spread("sqlite", clients)))
        print("| `show` p50 / p99 under that load | %.2f / %.2f ms | %.2f / %.2f ms |"
              % tuple(median(name, clients, i) * 1e3 for name in servers for i in (1, 2)))
    print("| restart, %d / %d stored matches | %.0f ms | %.0f ms |"
          % (restarts["file-log"][0], restarts["sqlite"][0], restarts["file-log"][1] * 1e3,
             restarts["sqlite"][1] * 1e3))


if __name__ == "__main__":
    main()
