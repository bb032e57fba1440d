#!/usr/bin/env python3
"""Slow request bodies, long request heads and held event streams against a real server
binary, as an attacker would send them, with what a legitimate client sees meanwhile (issue 18,
points 1 and 2, and its review).

Build the binaries first (release, as the figures in BENCHMARKS.md were measured):

    cargo build --release --features mcp --example mcp
    cargo build --release --example live_mcp --features mcp

then run one measurement, or all of them:

    benches/floods.py close      target/release/examples/mcp
    benches/floods.py bodies     target/release/examples/mcp
    benches/floods.py memory     target/release/examples/mcp
    benches/floods.py heads      target/release/examples/mcp
    benches/floods.py pinned     target/release/examples/live_mcp
    benches/floods.py streams    target/release/examples/live_mcp
    benches/floods.py all        target/release/examples/mcp target/release/examples/live_mcp

close:   one `POST /mcp` with `Content-Length: 100000`, one byte of body and then silence; how
         long until the server closes the connection (given up after --give-up seconds).
bodies:  1,100 such connections against the server under `ulimit -n 1024`; the latency of
         `GET /.well-known/agent-skills/index.json` on a fresh connection meanwhile.
memory:  200 connections (--memory-connections) each sending `Content-Length: 4194304` and 4 MiB - 1 of body, then
         silence (for --memory-seconds); the server's resident memory before, at its peak and
         at the end, and what the connections had from the server.
heads:   1,000 connections (--heads-connections) each sending --head-bytes (400,000) of a
         request head in 4 KB header lines and never ending it; the server's resident memory
         before and at its peak (over --heads-seconds), what the connections had, and the
         latency of the same GET meanwhile.
pinned:  16 `subscriptions/listen` POSTs (--pinned-streams) padded with JSON whitespace to
         4 MiB - 1, their event streams held; then an ordinary 1 MiB `POST /mcp`: its status.
streams: 1,100 held `subscriptions/listen` streams (protocol 2026-07-28) under
         `ulimit -n 1024`; the latency of the same GET meanwhile.
requests: no attack: the server's CPU time per keep-alive GET of the index (--requests of
         them, three runs per binary, the binaries taken in turn), to compare the request path
         of two builds where wall-clock time on a shared machine is too noisy:

    benches/floods.py requests old/examples/mcp target/release/examples/mcp

Only the standard library; Linux (reads /proc/<pid>/status).
"""

import argparse
import os
import selectors
import socket
import subprocess
import sys
import time

INDEX_PATH = "/.well-known/agent-skills/index.json"
LISTEN = (
    '{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":'
    '{"resourcesListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":'
    '"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
)


class Server:
    """A server binary on a free port of 127.0.0.1 under `ulimit -n open_files`."""

    def __init__(self, binary, open_files):
        env = dict(os.environ, SKILLPUB_ADDR="127.0.0.1:0")
        self.process = subprocess.Popen(
            ["sh", "-c", f'ulimit -n {open_files} && exec "$0"', binary],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        line = self.process.stdout.readline()
        url = line.split()[-1]
        host_port = url.split("/")[2]
        host, port = host_port.rsplit(":", 1)
        self.addr = (host, int(port))

    def rss_kib(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def post_head(addr, length, extra=""):
    return (
        f"POST /mcp HTTP/1.1\r\nHost: {addr[0]}:{addr[1]}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\n{extra}Content-Length: {length}\r\n\r\n"
    ).encode()


def get_index(addr, timeout):
    """GET the index on a fresh connection: (status line or the failure, seconds)."""
    started = time.monotonic()
    try:
        with socket.create_connection(addr, timeout=timeout) as stream:
            stream.settimeout(max(0.001, timeout - (time.monotonic() - started)))
            stream.sendall(
                f"GET {INDEX_PATH} HTTP/1.1\r\nHost: {addr[0]}\r\nConnection: close\r\n\r\n".encode()
            )
            answer = b""
            while b"\r\n" not in answer:
                chunk = stream.recv(4096)
                if not chunk:
                    break
                answer += chunk
            status = answer.split(b"\r\n", 1)[0].decode(errors="replace") or "closed"
    except OSError as error:
        status = f"failed: {error.__class__.__name__}"
    return status, time.monotonic() - started


def probe(addr, rounds, timeout):
    """`rounds` GETs of the index, one after the other; prints and returns the latencies."""
    answered = []
    for _ in range(rounds):
        status, took = get_index(addr, timeout)
        ok = status.startswith("HTTP/1.1 200")
        print(f"  GET index: {status} in {took * 1000:.1f} ms")
        if ok:
            answered.append(took)
        time.sleep(0.2)
    return answered


def summary(label, answered, rounds):
    if answered:
        answered.sort()
        median = answered[len(answered) // 2]
        print(
            f"{label}: {len(answered)}/{rounds} answered, median {median * 1000:.1f} ms, "
            f"max {answered[-1] * 1000:.1f} ms"
        )
    else:
        print(f"{label}: 0/{rounds} answered")


def open_flood(addr, count, first_bytes):
    """Opens `count` connections and sends `first_bytes(i)` on each; returns those open."""
    held = []
    for i in range(count):
        try:
            stream = socket.create_connection(addr, timeout=5)
            stream.sendall(first_bytes(i))
            held.append(stream)
        except OSError:
            pass
    return held


def outcomes(streams):
    """What each connection has had from the server by now: a status line, closed, or nothing."""
    counts = {}
    for stream in streams:
        stream.setblocking(False)
        try:
            first = stream.recv(64)
            outcome = first.split(b"\r\n", 1)[0].decode(errors="replace") if first else "closed"
        except BlockingIOError:
            outcome = "nothing yet"
        except OSError:
            outcome = "reset"
        counts[outcome] = counts.get(outcome, 0) + 1
    return ", ".join(f"{count} {outcome}" for outcome, count in sorted(counts.items()))


def measure_close(binary, give_up):
    server = Server(binary, 1024)
    try:
        stream = socket.create_connection(server.addr)
        stream.sendall(post_head(server.addr, 100000) + b"{")
        started = time.monotonic()
        stream.settimeout(give_up)
        try:
            while stream.recv(4096):
                pass
            print(f"close: a slow body was closed after {time.monotonic() - started:.2f} s")
        except socket.timeout:
            print(f"close: a slow body was still open after {give_up:.0f} s")
        except OSError as error:
            print(f"close: reset after {time.monotonic() - started:.2f} s ({error})")
    finally:
        server.stop()


def measure_bodies(binary, flood, open_files, rounds, timeout):
    server = Server(binary, open_files)
    try:
        summary("bodies: GET index before the flood", probe(server.addr, 3, timeout), 3)
        started = time.monotonic()
        held = open_flood(server.addr, flood, lambda _: post_head(server.addr, 100000) + b"{")
        print(f"bodies: {len(held)} slow bodies sent in {time.monotonic() - started:.1f} s")
        summary("bodies: GET index during the flood", probe(server.addr, rounds, timeout), rounds)
        print(f"bodies: the flood's connections had: {outcomes(held)}")
        for stream in held:
            stream.close()
    finally:
        server.stop()


def measure_streams(binary, flood, open_files, rounds, timeout):
    server = Server(binary, open_files)
    try:
        body = LISTEN.encode()
        head = post_head(
            server.addr,
            len(body),
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n",
        )
        summary("streams: GET index before the flood", probe(server.addr, 3, timeout), 3)
        started = time.monotonic()
        held = open_flood(server.addr, flood, lambda _: head + body)
        print(f"streams: {len(held)} listens sent in {time.monotonic() - started:.1f} s")
        time.sleep(1)
        summary("streams: GET index during the flood", probe(server.addr, rounds, timeout), rounds)
        print(f"streams: the flood's connections had: {outcomes(held)}")
        for stream in held:
            stream.close()
    finally:
        server.stop()


def measure_memory(binary, count, seconds):
    server = Server(binary, 4096)
    length = 4 * 1024 * 1024
    try:
        before = server.rss_kib()
        chunk = b" " * (256 * 1024)
        selector = selectors.DefaultSelector()
        left = {}
        streams = []
        for _ in range(count):
            stream = socket.create_connection(server.addr)
            stream.sendall(post_head(server.addr, length))
            stream.setblocking(False)
            streams.append(stream)
            left[stream] = length - 1
            selector.register(stream, selectors.EVENT_WRITE)
        peak = before
        started = time.monotonic()
        while left and time.monotonic() - started < seconds:
            for key, _ in selector.select(timeout=0.2):
                stream = key.fileobj
                try:
                    sent = stream.send(chunk[: min(len(chunk), left[stream])])
                except OSError:
                    # Refused and closed by the server: nothing more to send.
                    sent = left[stream]
                left[stream] -= sent
                if left[stream] == 0:
                    selector.unregister(stream)
                    del left[stream]
            peak = max(peak, server.rss_kib())
        time.sleep(1)
        peak = max(peak, server.rss_kib())
        print(
            f"memory: RSS {before / 1024:.0f} MB before, {peak / 1024:.0f} MB at its peak, "
            f"{server.rss_kib() / 1024:.0f} MB at the end; the connections had: {outcomes(streams)}"
        )
        for stream in streams:
            stream.close()
    finally:
        server.stop()


def measure_heads(binary, count, head_bytes, seconds, timeout):
    server = Server(binary, 4096)
    try:
        before = server.rss_kib()
        head = f"GET {INDEX_PATH} HTTP/1.1\r\nHost: {server.addr[0]}\r\n".encode()
        line = 0
        while len(head) < head_bytes:
            head += f"X-Pad-{line}: {'a' * 4000}\r\n".encode()[: head_bytes - len(head)]
            line += 1
        streams = []
        for _ in range(count):
            stream = socket.create_connection(server.addr)
            stream.setblocking(False)
            streams.append([stream, 0])
        peak = before
        started = time.monotonic()
        while time.monotonic() - started < seconds:
            sending = False
            for entry in streams:
                stream, sent = entry
                if sent < len(head):
                    try:
                        entry[1] += stream.send(head[sent : sent + 65536])
                        sending = True
                    except BlockingIOError:
                        pass
                    except OSError:
                        # Answered and closed by the server: nothing more to send.
                        entry[1] = len(head)
            peak = max(peak, server.rss_kib())
            if not sending:
                time.sleep(0.05)
        status, took = get_index(server.addr, timeout)
        print(
            f"heads: RSS {before / 1024:.0f} MB before, {peak / 1024:.0f} MB at its peak, with "
            f"{count} connections sending {len(head)} bytes of head; GET index meanwhile: "
            f"{status} in {took * 1000:.1f} ms; the connections had: "
            f"{outcomes([stream for stream, _ in streams])}"
        )
        for stream, _ in streams:
            stream.close()
    finally:
        server.stop()


def measure_pinned(binary, count, timeout):
    server = Server(binary, 1024)
    length = 4 * 1024 * 1024 - 1
    listen = LISTEN.encode()
    try:
        held = []
        for _ in range(count):
            stream = socket.create_connection(server.addr, timeout=timeout)
            stream.sendall(
                post_head(
                    server.addr,
                    length,
                    "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n",
                )
                + listen
                + b" " * (length - len(listen))
            )
            held.append(stream)
        time.sleep(1)
        print(f"pinned: {count} padded listens held; they had: {outcomes(held)}")
        body = (
            '{"jsonrpc":"2.0","id":2,"method":"resources/list","params":{"_meta":'
            '{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            '"io.modelcontextprotocol/clientCapabilities":{}}}}'
        ).encode()
        body += b" " * (1024 * 1024 - len(body))
        head = post_head(
            server.addr,
            len(body),
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: resources/list\r\nConnection: close\r\n",
        )
        with socket.create_connection(server.addr, timeout=timeout) as stream:
            try:
                stream.sendall(head + body)
            except OSError:
                # Refused and closed before the whole body was sent: the answer came first.
                pass
            answer = b""
            try:
                while chunk := stream.recv(4096):
                    answer += chunk
            except OSError:
                pass
            head, _, said = answer.decode(errors="replace").partition("\r\n\r\n")
            status = head.split("\r\n", 1)[0] or "closed"
        print(f"pinned: a 1 MiB POST /mcp meanwhile: {status} ({said.strip()[:100]})")
        for stream in held:
            stream.close()
    finally:
        server.stop()


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_per_request(binary, count):
    """The server's CPU time per keep-alive GET of the index, in microseconds."""
    server = Server(binary, 1024)
    try:
        stream = socket.create_connection(server.addr)
        stream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        answers = stream.makefile("rb")
        request = f"GET {INDEX_PATH} HTTP/1.1\r\nHost: {server.addr[0]}\r\n\r\n".encode()

        def one():
            stream.sendall(request)
            length = 0
            while (line := answers.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            answers.read(length)

        for _ in range(500):
            one()
        before = cpu_seconds(server.process.pid)
        for _ in range(count):
            one()
        return (cpu_seconds(server.process.pid) - before) / count * 1e6
    finally:
        server.stop()


def measure_requests(binaries, count):
    runs = {binary: [] for binary in binaries}
    for _ in range(3):
        for binary in binaries:
            runs[binary].append(cpu_per_request(binary, count))
    for binary, cpu in runs.items():
        figures = ", ".join(f"{run:.1f}" for run in sorted(cpu))
        print(f"requests: {binary}: server CPU per GET {figures} µs")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "what",
        choices=["close", "bodies", "memory", "heads", "pinned", "streams", "requests", "all"],
    )
    parser.add_argument(
        "binaries",
        nargs="+",
        help="the mcp example; for all, then live_mcp; for requests, the builds to compare",
    )
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--flood", type=int, default=1100)
    parser.add_argument("--open-files", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=5.0, help="per GET, in seconds")
    parser.add_argument("--give-up", type=float, default=120.0, help="for close, in seconds")
    parser.add_argument("--memory-seconds", type=float, default=30.0)
    parser.add_argument("--memory-connections", type=int, default=200)
    parser.add_argument("--heads-connections", type=int, default=1000)
    parser.add_argument("--head-bytes", type=int, default=400_000)
    parser.add_argument("--heads-seconds", type=float, default=8.0)
    parser.add_argument("--pinned-streams", type=int, default=16)
    args = parser.parse_args()
    if args.what == "requests":
        measure_requests(args.binaries, args.requests)
        return
    mcp = args.binaries[0]
    if args.what in ("close", "all"):
        measure_close(mcp, args.give_up)
    if args.what in ("bodies", "all"):
        measure_bodies(mcp, args.flood, args.open_files, args.rounds, args.timeout)
    if args.what in ("memory", "all"):
        measure_memory(mcp, args.memory_connections, args.memory_seconds)
    if args.what in ("heads", "all"):
        measure_heads(mcp, args.heads_connections, args.head_bytes, args.heads_seconds, args.timeout)
    if args.what in ("pinned", "all"):
        measure_pinned(args.binaries[-1], args.pinned_streams, args.timeout)
    if args.what in ("streams", "all"):
        live = args.binaries[-1] if args.what == "all" else mcp
        measure_streams(live, args.flood, args.open_files, args.rounds, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
