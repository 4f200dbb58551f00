"""What one address can do to another on tg-server: run by `bench-server.py --flood`.

A bystander (two browsers through the WebSocket relay, both named 198.51.100.7 by
X-Forwarded-For) plays Halusa moves every 20 ms and times each `play` and `bot greedy` from
send to reply. One address (the line port's clients, all 127.0.0.1) floods, one kind at a
time, at the budgets the server ships with: `record` of a 100,000-ply match asked again and
again and never read; costly searches on as many matches as it can make; idle connections to
both ports; `new` as fast as replies come. The quiet baseline (no flood) opens every round,
and the rounds (--rounds) take turns through the floods, so that each flood's figures are
read as ratios against the baseline on the same machine at about the same load. Each phase
starts a fresh server on the same database (so that one flood's memory is not counted in the
next one's RSS) and runs --seconds after a second for the flood to get going; the table gives
the bystander's latency during it (the rounds pooled), the server's peak RSS and what the
server refused the flooder (`status` counters). The machine's load average is printed at the
start and the end of each store's run.

On SQLite the database is a file in the work directory; with `--stores postgresql` on a
throw-away PostgreSQL cluster (server/tests/pgcluster.py, as scripts/bench-server-pg.py).
The long match is written with the Python package (bindings/python; the built library is
found beside the server binary unless TG_LIBRARY names one). A benchmark, not a test: it
checks nothing and is never run by `meson test`.
"""
import asyncio
import base64
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "server", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "bindings", "python"))
import pgcluster  # noqa: E402

BYSTANDER = "198.51.100.7"  # a documentation address: only ever a header value
LONG_PLIES = 100000
LONG_ID = 7


def long_match_logs(directory):
    """A migration log of a Halusa match (quiet=0, so it never ends) of LONG_PLIES plies: the
    first move each time that captures nothing, cycling once a position comes back."""
    import traditional_games as tg
    spec = "halusa:quiet=0"
    s = tg.State(spec)
    seen, moves = {}, []
    while True:
        key = re.sub(r" quiet=\d+", "", s.to_string())
        if key in seen:
            start = seen[key]
            break
        seen[key] = s.ply
        pick = s.legal_moves()[0]
        for m in s.legal_moves():
            scores = s.scores
            s.apply(m)
            quiet = s.scores == scores and not s.is_terminal
            s.undo()
            if quiet:
                pick = m
                break
        moves.append((pick, s.move_to_string(pick)))
        s.apply(pick)
    while len(moves) < LONG_PLIES:
        moves.append(moves[start + (len(moves) - start) % (len(seen) - start)])
    with open(os.path.join(directory, "match-%d.log" % LONG_ID), "w") as f:
        f.write("tg-match 1 %s\n" % spec)
        f.writelines("m %d %s\n" % m for m in moves[:LONG_PLIES])


class Server:
    """One tg-server on `db` (a SQLite path or a PostgreSQL conninfo), with the long match."""

    def __init__(self, binary, work, db):
        self.binary, self.work, self.db = binary, work, db
        self.p = None

    def start(self):
        logs = os.path.join(self.work, "logs")
        os.makedirs(logs, exist_ok=True)
        long_match_logs(logs)
        subprocess.run([self.binary, "--db", self.db, "--migrate-logs", logs], check=True,
                       capture_output=True, timeout=600)
        return self.restart()

    def restart(self):
        ports = [os.path.join(self.work, n) for n in ("line.port", "web.port")]
        for stale in ports:
            if os.path.exists(stale):
                os.unlink(stale)
        # stderr into a file, not a pipe nobody reads: a pipe that fills would stop the server.
        self.stderr = open(os.path.join(self.work, "server.stderr"), "w+")
        self.p = subprocess.Popen(
            [self.binary, "--db", self.db, "--port", "0", "--port-file", ports[0],
             "--web-port", "0", "--web-port-file", ports[1], "--trusted-proxy", "127.0.0.1"],
            stdout=subprocess.DEVNULL, stderr=self.stderr, text=True)
        t0 = time.monotonic()
        while not all(os.path.exists(p) for p in ports):
            if self.p.poll() is not None or time.monotonic() - t0 > 60:
                raise RuntimeError("tg-server did not start: " + self.stderr_tail())
            time.sleep(0.01)
        self.port, self.web_port = (int(open(p).read()) for p in ports)
        return self

    def stderr_tail(self):
        self.stderr.seek(0)
        return self.stderr.read()[-500:]

    def rss_kb(self):
        with open("/proc/%d/status" % self.p.pid) as f:
            return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            self.p.wait(timeout=60)
        self.stderr.close()


class WebSocket:
    """The few parts of RFC 6455 a browser's session needs: the upgrade, masked text frames
    out, text frames in (fragments joined), a ping answered. Written here so that the
    benchmark needs no package beyond Python's own."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, port, headers):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        extra = "".join("%s: %s\r\n" % kv for kv in headers.items())
        # No Origin: not a page's script, which the server lets in with a Host naming it.
        writer.write(("GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                      "Sec-WebSocket-Version: 13\r\n%s\r\n" % (port, key, extra)).encode())
        head = await reader.readuntil(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            writer.close()
            raise ConnectionError("upgrade refused: %r" % head[:200])
        return cls(reader, writer)

    def _frame(self, opcode, payload):
        head = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

    async def send(self, text):
        self.writer.write(self._frame(1, text.encode()))
        await self.writer.drain()

    async def recv(self):
        parts = []
        while True:
            b0, b1 = await self.reader.readexactly(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", await self.reader.readexactly(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", await self.reader.readexactly(8))[0]
            data = await self.reader.readexactly(n)
            opcode = b0 & 0x0F
            if opcode == 8:
                raise ConnectionError("closed by the server (%r)" % data[:2])
            if opcode == 9:
                self.writer.write(self._frame(10, data))
                continue
            if opcode in (0, 1):
                parts.append(data)
                if b0 & 0x80:
                    return b"".join(parts).decode()

    async def close(self):
        try:
            self.writer.write(self._frame(8, struct.pack(">H", 1000)))
            self.writer.close()
            await self.writer.wait_closed()
        except (OSError, ConnectionError):
            pass


async def line(port):
    return await asyncio.open_connection("127.0.0.1", port)


async def ask(reader, writer, text):
    writer.write(text.encode() + b"\n")
    return (await reader.readline()).decode().rstrip("\n")


async def counters(port):
    """The `status` counters. Right after a flood of connections the server may still be
    closing them, and this connection, from the same address, be refused: asked again."""
    deadline = time.monotonic() + 30
    while True:
        r, w = await line(port)
        reply = await ask(r, w, "status")
        w.close()
        if reply.startswith("ok "):
            return {k: int(v) for k, v in (x.split("=", 1) for x in reply.split()[1:] if "=" in x)
                    if v.isdigit()}
        if time.monotonic() > deadline:
            raise RuntimeError("status: %r" % reply)
        await asyncio.sleep(0.2)


async def bystander(web_port, stop, latencies, failures):
    """Plays Halusa against itself from two seats, one decision every 20 ms, timing each:
    seat 0's `play` into latencies[0], seat 1's `bot greedy` into latencies[1], and the
    commands around them (`new`, `join`, `show`, `moves`) into latencies[2], so that a stall
    of any command shows, not only of the decisions."""
    headers = {"X-Forwarded-For": BYSTANDER}
    try:
        seats = [await WebSocket.connect(web_port, headers) for _ in range(2)]
    except (OSError, ConnectionError, asyncio.IncompleteReadError) as e:
        failures.append("connect: %s" % e)
        return

    async def say(ws, text, kind=2):
        t0 = time.perf_counter()
        await ws.send(text)
        while True:  # a seat that watches would also be told events; none is asked for
            reply = await ws.recv()
            if not reply.startswith("event"):
                latencies[kind].append(time.perf_counter() - t0)
                return reply

    try:
        mid = None
        while not stop.is_set():
            if mid is None:
                words = (await say(seats[0], "new halusa")).split()
                joined = (await say(seats[1], "join %s %s" % (words[1], words[3]))).split()
                if words[0] != "ok" or joined[0] != "ok":
                    failures.append(" ".join(words + joined))
                    await asyncio.sleep(0.2)
                    continue
                mid, tokens = words[1], [words[2], joined[2]]
            fields = dict(w.split("=", 1) for w in
                          (await say(seats[0], "show " + mid)).split(" position=")[0].split()[1:])
            moves = (await say(seats[0], "moves " + mid)).split()[1:]
            if fields["result"] != "running" or not moves:
                mid = None
                continue
            turn = int(fields["turn"])
            # Seat 0 plays its move; seat 1 asks the cheapest bot for one.
            what = "play %s %s %s %s" % (mid, fields["ply"], moves[0], tokens[0]) if turn == 0 \
                else "bot %s %s greedy %s" % (mid, fields["ply"], tokens[1])
            reply = await say(seats[turn], what, turn)
            if not reply.startswith("ok"):
                failures.append(reply)
            await asyncio.sleep(0.02)
    except (OSError, ConnectionError, asyncio.IncompleteReadError) as e:
        failures.append("closed: %s" % e)
    finally:
        for ws in seats:
            await ws.close()


async def flood_records(server, stop):
    conns = []
    for _ in range(16):
        try:
            conns.append(await line(server.port))
        except OSError:
            break
    for _, w in conns:  # asked, never read
        w.write(b"record %d\n" % LONG_ID * 50)
    await stop.wait()
    for _, w in conns:
        w.close()


async def flood_bots(server, stop):
    conns = []
    for _ in range(4):
        r, w = await line(server.port)
        jr, jw = await line(server.port)  # the maker of a match may not join it
        conns += [(r, w), (jr, jw)]
        searches = []
        for _ in range(12):
            words = (await ask(r, w, "new halusa")).split()
            if words[0] != "ok":
                continue
            joined = (await ask(jr, jw, "join %s %s" % (words[1], words[3]))).split()
            if joined[0] == "ok":
                searches.append("bot %s 0 search:time=2000 %s\n" % (words[1], words[2]))
        w.write("".join(searches).encode())  # all queued at once, replies never read
    await stop.wait()
    for _, w in conns:
        w.close()


async def flood_connections(server, stop):
    opened = []
    for port, request in ((server.port, b""),
                          (server.web_port, b"GET / HTTP/1.1\r\nHost: x\r\n")):
        for _ in range(600):
            try:
                r, w = await asyncio.wait_for(line(port), 2)
            except (OSError, asyncio.TimeoutError):
                break
            w.write(request)  # an HTTP request whose headers never end
            opened.append(w)
    await stop.wait()
    for w in opened:
        w.close()


async def flood_new(server, stop):
    async def one():
        r, w = await line(server.port)
        while not stop.is_set():
            await ask(r, w, "new halusa")
        w.close()
    await asyncio.gather(*(one() for _ in range(4)))


async def nothing(server, stop):
    await stop.wait()


async def phase(server, flood, seconds):
    before = await counters(server.port)
    stop = asyncio.Event()
    flooder = asyncio.create_task(flood(server, stop))
    await asyncio.sleep(1)  # the flood gets going before the bystander connects
    latencies, failures, rss = ([], [], []), [], [server.rss_kb()]
    play_stop = asyncio.Event()
    player = asyncio.create_task(bystander(server.web_port, play_stop, latencies, failures))
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        await asyncio.sleep(0.25)
        rss.append(server.rss_kb())
    play_stop.set()
    await player
    stop.set()
    await flooder
    await asyncio.sleep(0.5)
    after = await counters(server.port)
    return latencies, failures, max(rss), {k: after.get(k, 0) - before.get(k, 0)
                                           for k in ("rate-limited", "refused-full")}


# The quiet baseline first in every round; the rounds take turns through the floods, so that
# what else the machine does weighs on the baseline and the floods alike.
PHASES = (("nothing", nothing), ("`record` never read", flood_records),
          ("costly searches", flood_bots), ("idle connections", flood_connections),
          ("`new`", flood_new))


def find_library(binary):
    """The Python package loads TG_LIBRARY if set, else the library built beside the server."""
    if "TG_LIBRARY" not in os.environ:
        built = os.path.join(os.path.dirname(os.path.abspath(binary)), "..", "lib",
                             "libtraditional-games.so")
        if os.path.exists(built):
            os.environ["TG_LIBRARY"] = os.path.realpath(built)


def load_average():
    return "%.2f / %.2f / %.2f" % os.getloadavg()


def run_store(binary, seconds, rounds, work, db):
    """Every phase on one store, --rounds times; returns per phase the latencies of all
    rounds pooled, the failures, the peak RSS, the refusals summed, and per round the
    latencies (to show how far the rounds differ), with the load at start and end."""
    load_before = load_average()
    server = Server(binary, work, db)
    server.start()
    server.stop()
    pooled = {name: {"lat": ([], [], []), "rounds": [], "failed": 0, "rss": 0, "died": 0,
                     "refused": {"rate-limited": 0, "refused-full": 0}} for name, _ in PHASES}
    for r in range(rounds):
        for name, flood in PHASES:
            row = pooled[name]
            server.restart()
            try:
                lat, failures, rss, refused = asyncio.run(phase(server, flood, seconds))
            except (OSError, ConnectionError, asyncio.IncompleteReadError):
                if server.p.poll() is None:
                    raise
                row["died"] += 1
                print("# round %d, %s: the server died (exit %d): %s"
                      % (r + 1, name, server.p.returncode, server.stderr_tail()),
                      file=sys.stderr)
                server.stop()
                continue
            server.stop()
            for k in range(3):
                row["lat"][k].extend(lat[k])
            row["rounds"].append(tuple(sorted(kind) for kind in lat))
            row["failed"] += len(failures)
            row["rss"] = max(row["rss"], rss // 1024)
            for k in row["refused"]:
                row["refused"][k] += refused[k]
            print("# round %d, %s: %d plays (p99 %.1f ms), %d bot moves, %d other commands "
                  "(max %.1f ms), RSS %d MB, failures %s"
                  % (r + 1, name, len(lat[0]), quantile(sorted(lat[0]), 0.99) if lat[0] else 0,
                     len(lat[1]), len(lat[2]), max(lat[2]) * 1e3 if lat[2] else 0, rss // 1024,
                     failures[:3]), file=sys.stderr)
    for row in pooled.values():
        row["lat"] = tuple(sorted(kind) for kind in row["lat"])
    return pooled, load_before, load_average()


def run(binary, seconds, work_dir, stores=("sqlite",), rounds=3):
    find_library(binary)
    tables = {}
    for store in stores:
        work = work_dir and os.path.join(work_dir, store) or tempfile.mkdtemp(
            prefix="tg-bench-flood-")
        os.makedirs(work, exist_ok=True)
        try:
            if store == "postgresql":
                with pgcluster.Cluster() as pg:
                    tables[store] = run_store(binary, seconds, rounds, work, pg.conninfo())
            else:
                db = os.path.join(work, "flood.db")
                for stale in (db, db + "-wal", db + "-shm"):
                    if os.path.exists(stale):
                        os.unlink(stale)
                tables[store] = run_store(binary, seconds, rounds, work, db)
        finally:
            if not work_dir:
                shutil.rmtree(work, ignore_errors=True)
    for store, (rows, load_before, load_after) in tables.items():
        print_table(store, rows, seconds, rounds, load_before, load_after)
    return tables


def quantile(lat, q):
    return lat[min(len(lat) - 1, int(len(lat) * q))] * 1e3


def print_table(store, rows, seconds, rounds, load_before, load_after):
    print()
    print("%s, %d rounds of %g s a flood, shipped budgets; load average (1/5/15 min) %s at the "
          "start, %s at the end. The bystander's `play`, `bot greedy` and other commands "
          "(`new`, `join`, `show`, `moves`) over the rounds, each as count, p50 / p99 / max, "
          "and p50 / p99 as multiples of the quiet baseline's:"
          % ("SQLite" if store == "sqlite" else "PostgreSQL", rounds, seconds, load_before,
             load_after))
    print()
    print("| flood from one address | `play` | x baseline | `bot greedy` | x baseline | other "
          "commands | x baseline | failed | server RSS, peak (x baseline) | refused "
          "(rate-limited / full) a round |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    base = rows[PHASES[0][0]]
    for name, _ in PHASES:
        row = rows[name]
        cells = []
        for k in range(3):
            lat, ref = row["lat"][k], base["lat"][k]
            if not lat:
                cells += ["none", "-"]
                continue
            cells.append("%d: %.1f / %.1f / %.1f ms" % (len(lat), quantile(lat, 0.5),
                                                       quantile(lat, 0.99), lat[-1] * 1e3))
            cells.append("%.1f / %.1f" % (quantile(lat, 0.5) / quantile(ref, 0.5),
                                          quantile(lat, 0.99) / quantile(ref, 0.99))
                         if ref else "-")
        failed = "%d%s" % (row["failed"], ", server died %d times" % row["died"]
                           if row["died"] else "")
        done = max(1, len(row["rounds"]))
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %d MB (%.1f) | %d / %d |"
              % (name, *cells, failed, row["rss"],
                 row["rss"] / base["rss"] if base["rss"] else 0,
                 row["refused"]["rate-limited"] // done, row["refused"]["refused-full"] // done))
    print()
    print("The baseline's `play` p50 / p99 round by round: %s."
          % ", ".join("%.1f / %.1f ms" % (quantile(lat[0], 0.5), quantile(lat[0], 0.99))
                      for lat in base["rounds"] if lat[0]))


if __name__ == "__main__":  # also runnable alone: bench-server-flood.py PATH [SECONDS [ROUNDS]]
    run(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 5, None, ("sqlite",),
        int(sys.argv[3]) if len(sys.argv) > 3 else 3)
