"""What one address can do to another on tg-server: run by `bench-server.py --flood`.

A bystander (two browsers through the WebSocket relay, both named 198.51.100.7 by
X-Forwarded-For) plays Halusa moves every 20 ms and times each `play` from send to reply. One
address (the line port's clients, all 127.0.0.1) floods, one kind at a time, at the budgets the
server ships with: `record` of a 20,000-ply match asked again and again and never read; costly
searches on as many matches as it can make; idle connections to both ports; `new` as fast as
replies come. Each flood runs --seconds after a second to get going; the table gives the
bystander's latency during it and what the server refused the flooder (`status` counters).
"""
import asyncio
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import websockets  # Debian's python3-websockets

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
    def __init__(self, binary, work):
        self.binary, self.work = binary, work
        self.db = os.path.join(work, "flood.db")

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
        self.p = subprocess.Popen(
            [self.binary, "--db", self.db, "--port", "0", "--port-file", ports[0],
             "--web-port", "0", "--web-port-file", ports[1], "--trusted-proxy", "127.0.0.1"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        t0 = time.monotonic()
        while not all(os.path.exists(p) for p in ports):
            if self.p.poll() is not None or time.monotonic() - t0 > 60:
                raise RuntimeError("tg-server did not start: " + self.p.stderr.read())
            time.sleep(0.01)
        self.port, self.web_port = (int(open(p).read()) for p in ports)
        return self

    def rss_kb(self):
        with open("/proc/%d/status" % self.p.pid) as f:
            return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.communicate(timeout=60)


async def line(port):
    return await asyncio.open_connection("127.0.0.1", port)


async def ask(reader, writer, text):
    writer.write(text.encode() + b"\n")
    return (await reader.readline()).decode().rstrip("\n")


async def counters(port):
    r, w = await line(port)
    words = (await ask(r, w, "status")).split()
    w.close()
    return {k: int(v) for k, v in (x.split("=", 1) for x in words[1:] if "=" in x)
            if v.isdigit()}


async def bystander(web_port, stop, latencies, failures):
    """Plays Halusa against itself from two seats, one decision every 20 ms, timing each:
    seat 0's `play` into latencies[0], seat 1's `bot greedy` into latencies[1]."""
    uri = "ws://127.0.0.1:%d/" % web_port
    headers = {"X-Forwarded-For": BYSTANDER}
    try:
        seats = [await websockets.connect(uri, extra_headers=headers) for _ in range(2)]
    except (OSError, websockets.WebSocketException) as e:
        failures.append("connect: %s" % e)
        return

    async def say(ws, text):
        await ws.send(text)
        return await ws.recv()

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
            t0 = time.perf_counter()
            reply = await say(seats[turn], what)
            latencies[turn].append(time.perf_counter() - t0)
            if not reply.startswith("ok"):
                failures.append(reply)
            await asyncio.sleep(0.02)
    except (OSError, websockets.WebSocketException) as e:
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
                          (server.web_port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n")):
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
    latencies, failures, rss = ([], []), [], [server.rss_kb()]
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


def run(binary, seconds, work_dir):
    work = work_dir or tempfile.mkdtemp(prefix="tg-bench-flood-")
    os.makedirs(work, exist_ok=True)
    server = Server(binary, work).start()
    rows = []
    try:
        for name, flood in (("nothing", nothing), ("`record` never read", flood_records),
                            ("costly searches", flood_bots),
                            ("idle connections", flood_connections),
                            ("`new`", flood_new)):
            try:
                lat, failures, rss, refused = asyncio.run(phase(server, flood, seconds))
            except OSError:
                if server.p.poll() is None:
                    raise
                # It died: said as such in the table, and the next flood gets a fresh server.
                rows.append((name, None, "server died (exit %d)" % server.p.returncode, 0,
                             {"rate-limited": 0, "refused-full": 0}))
                print("# %s: the server died: %s" % (name, server.p.stderr.read()[-500:]))
                server = Server(binary, work).restart()
                continue
            rows.append((name, [summary(sorted(kind)) for kind in lat], str(len(failures)),
                         rss // 1024, refused))
            print("# %s: %d plays, %d bot moves, failures %s"
                  % (name, len(lat[0]), len(lat[1]), failures[:3]))
    finally:
        server.stop()
        if not work_dir:
            shutil.rmtree(work, ignore_errors=True)
    print("The bystander, %g s per flood (shipped budgets): its `play` and its `bot greedy`, "
          "each as count, p50 / p99 / max:" % seconds)
    print()
    print("| flood from one address | `play` | `bot greedy` | failed | server RSS | refused "
          "(rate-limited / full) |")
    print("|---|---|---|---|---|---|")
    for name, kinds, failed, rss, refused in rows:
        print("| %s | %s | %s | %s | %d MB | %d / %d |"
              % (name, kinds[0] if kinds else "-", kinds[1] if kinds else "-", failed, rss,
                 refused["rate-limited"], refused["refused-full"]))
    return rows


def summary(lat):
    if not lat:
        return "none"
    at = lambda q: lat[min(len(lat) - 1, int(len(lat) * q))] * 1e3  # noqa: E731
    return "%d: %.1f / %.1f / %.1f ms" % (len(lat), at(0.5), at(0.99), lat[-1] * 1e3)


if __name__ == "__main__":  # also runnable alone: bench-server-flood.py PATH [SECONDS]
    import sys
    run(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 5, None)
