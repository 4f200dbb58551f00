#!/usr/bin/env python3
"""Smoke test of examples/tiny-server.c: a Halusa match and an At-Tab wa-d-Dukk opening over a
real loopback socket, bad input answered with `err`, two clients served by one loop, and a
clean stop on SIGTERM."""
import signal
import socket
import subprocess
import sys


def main():
    server = subprocess.Popen([sys.argv[1], "0"], stdout=subprocess.PIPE, text=True)
    try:
        first = server.stdout.readline()
        assert first.startswith("tiny-server: listening on 127.0.0.1:"), first
        port = int(first.rsplit(":", 1)[1])
        a = socket.create_connection(("127.0.0.1", port), timeout=10)
        b = socket.create_connection(("127.0.0.1", port), timeout=10)
        ra, rb = a.makefile("r"), b.makefile("r")

        def ask(sock, reader, line):
            sock.sendall((line + "\n").encode())
            return reader.readline().rstrip("\n")

        assert ask(a, ra, "new halusa") == "ok 1"
        start = ask(b, rb, "show 1")
        assert start.startswith("ok ") and len(start) > 3, start
        # The first move of the documentation's example session, spelt by the library.
        assert ask(a, ra, "play 1 c1") == "ok c1"
        after = ask(b, rb, "show 1")
        assert after.startswith("ok ") and after != start, (start, after)
        # Seat 1 is to move now: seat 0's pit is not a legal move, and nothing changes.
        assert ask(b, rb, "play 1 c1").startswith("err "), "c1 twice"
        assert ask(a, ra, "show 1") == after
        assert ask(a, ra, "play 1 zz").startswith("err ")
        assert ask(a, ra, "play 7 c1").startswith("err ")
        assert ask(a, ra, "show 0") == "err no such match"
        assert ask(a, ra, "new no-such-game").startswith("err ")
        assert ask(a, ra, "frobnicate").startswith("err commands:")
        # At-Tab wa-d-Dukk opens with throws, and the server makes them.
        tab = ask(b, rb, "new tab").split()
        assert tab[:2] == ["ok", "2"] and len(tab) > 2, tab
        assert all(w.startswith("throw:") for w in tab[2:]), tab
        assert ask(b, rb, "play 2 throw:1").startswith("err "), "a client chose a throw"
        assert ask(a, ra, "quit") == "ok bye"
        assert ra.readline() == "", "the connection stays open after quit"
        assert ask(b, rb, "show 1") == after
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=10) == 0
        assert server.stdout.read().strip() == "tiny-server: stopped"
    finally:
        if server.poll() is None:
            server.kill()
    print("tiny-server: ok")


if __name__ == "__main__":
    main()
