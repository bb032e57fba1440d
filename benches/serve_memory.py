#!/usr/bin/env python3
"""The anonymous memory `skillpub serve` holds against the bytes it serves.

Starts the `skillpub` binary on a skills folder (the 1,000-skill corpus of the cold-start
bench by default), waits for its index, asks for every file of every skill and both archives
with HEAD (identity: no encoded variant is made), and prints the process's `RssAnon` (Linux,
`/proc/PID/status`) after start-up and after those requests, against the bytes served: every
file, every `.tar.gz` and `.zip`, and the index, as their `Content-Length`s give them.

    cargo build --release -p skillpub-cli
    cargo bench -p skillpub-cold-start --bench memory -- --list   # writes the corpus
    python3 benches/serve_memory.py target/release/skillpub [SKILLS_DIR] [--runs N]
"""

import glob
import http.client
import json
import os
import subprocess
import sys
import time


def corpus():
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    found = sorted(
        glob.glob(f"{target}/*/build/skillpub-cold-start-*/out/corpus/archive-1000"),
        key=os.path.getmtime,
    )
    if not found:
        sys.exit("no corpus: build the cold-start bench first (see the docstring)")
    return found[-1]


def rss_anon_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    return 0


def measure(binary, skills):
    server = subprocess.Popen(
        [binary, "serve", skills, "--addr", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = server.stdout.readline()
        address = line.split("http://", 1)[1].split("/", 1)[0]
        host, port = address.rsplit(":", 1)
        connection = http.client.HTTPConnection(host, int(port), timeout=30)

        def length(method, path):
            connection.request(method, path)
            response = connection.getresponse()
            body = response.read()
            assert response.status == 200, (path, response.status)
            return body if method == "GET" else int(response.getheader("content-length"))

        index = length("GET", "/.well-known/agent-skills/index.json")
        time.sleep(0.5)
        started = rss_anon_kib(server.pid)
        served = len(index)
        for entry in json.loads(index)["skills"]:
            name = entry["name"]
            folder = os.path.join(skills, name)
            for root, _, files in os.walk(folder):
                for file in files:
                    relative = os.path.relpath(os.path.join(root, file), folder)
                    served += length("HEAD", f"/.well-known/agent-skills/{name}/{relative}")
            if entry["type"] == "archive":
                for suffix in (".tar.gz", ".zip"):
                    served += length("HEAD", f"/.well-known/agent-skills/{name}{suffix}")
        time.sleep(0.5)
        after = rss_anon_kib(server.pid)
        return served // 1024, started, after
    finally:
        server.terminate()
        server.wait()


def main():
    args = [arg for arg in sys.argv[1:] if not arg.startswith("--runs")]
    runs = 3
    if "--runs" in sys.argv:
        runs = int(sys.argv[sys.argv.index("--runs") + 1])
        args = [arg for arg in args if arg != str(runs)]
    if not args:
        sys.exit(__doc__)
    binary = args[0]
    skills = args[1] if len(args) > 1 else corpus()
    for run in range(runs):
        served, started, after = measure(binary, skills)
        print(
            f"run {run + 1}: serves {served} KiB; RssAnon after start-up {started} KiB "
            f"({started / served:.2f}x), after a HEAD of every file {after} KiB "
            f"({after / served:.2f}x)"
        )


if __name__ == "__main__":
    main()
