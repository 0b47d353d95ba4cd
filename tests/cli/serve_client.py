#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The client side of tests/cli/test_sched_serve.sh (python3's standard library only).

  serve_client.py request PORT METHOD PATH [BODY_FILE]
      one request; prints the status on the first line, then the body
  serve_client.py chunked PORT METHOD PATH BODY_FILE
      the same with the body sent in chunks of 1,000 bytes (no Content-Length)
  serve_client.py expect VERBOSE_FILE ANSWER_FILE filter|prioritize
      checks a filter or prioritize answer against `quire sched place --verbose` of the
      same input: filter keeps exactly the nodes with a feasible candidate, the others in
      FailedNodes; prioritize gives each node its best feasible score mapped to 1..10
      (docs/sched-serve.md), 0 where the pod does not fit
  serve_client.py in-flight PORT BODY_FILE LOG PID
      a POST /prioritize whose body is sent in two halves: after the first, the server's
      log (--verbose) must show the request begun; then SIGTERM to PID, and its log must
      say it is stopping with 1 request in flight and a new connection must be refused;
      then the second half: the whole answer is printed as `request` prints it
Exit status 0, or 1 with the reason on stderr.
"""
import http.client
import json
import os
import signal
import socket
import sys
import time


def request(port, method, path, body=None, chunked=False):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    if chunked:
        whole = body
        body = (whole[i:i + 1000] for i in range(0, len(whole), 1000))
    c.request(method, path, body=body, headers={"Content-Type": "application/json"},
              encode_chunked=chunked)
    r = c.getresponse()
    data = r.read().decode()
    c.close()
    return r.status, data


def place_verbose(path):
    """Per node, in order: (name, best feasible score or None)."""
    best = {}
    order = []
    for line in open(path):
        if line.startswith("#"):
            continue
        f = line.split()
        if len(f) != 6:
            continue
        node, feasible, score = f[1], f[3] == "1", int(f[4])
        if node not in best:
            order.append(node)
            best[node] = None
        if feasible and (best[node] is None or score > best[node]):
            best[node] = score
    return [(n, best[n]) for n in order]


def expect(verbose, answer, verb):
    nodes = place_verbose(verbose)
    got = json.load(open(answer))
    if not nodes:
        sys.exit("no candidates in " + verbose)
    if verb == "filter":
        fits = [n for n, b in nodes if b is not None]
        if got.get("Error") != "":
            sys.exit("Error is %r" % got.get("Error"))
        if got.get("NodeNames") is not None:
            kept = got["NodeNames"]
        else:
            kept = [i["metadata"]["name"] for i in got["Nodes"]["items"]]
        failed = sorted(got["FailedNodes"])
        if kept != fits:
            sys.exit("kept %s, place finds room on %s" % (kept, fits))
        if failed != sorted(n for n, b in nodes if b is None):
            sys.exit("FailedNodes %s" % failed)
        if not all(got["FailedNodes"][n].startswith("quire: the pod does not fit") for n in failed):
            sys.exit("FailedNodes' reasons: %s" % got["FailedNodes"])
        return
    scores = [b for _, b in nodes if b is not None]
    lo, hi = min(scores), max(scores)
    want = []
    for n, b in nodes:
        if b is None:
            s = 0
        elif hi == lo:
            s = 10
        else:
            s = 1 + (9 * (b - lo) + (hi - lo) // 2) // (hi - lo)
        want.append({"Host": n, "Score": s})
    if got != want:
        sys.exit("answer %s, from place's scores %s" % (got, want))


def wait_for(log, text, pid, seconds=60):
    """Polls the server's log until text appears (the server's own word that it got there)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if text in open(log).read():
            return
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            sys.exit("the server ended before its log said %r" % text)
        time.sleep(0.01)
    sys.exit("the server's log never said %r" % text)


def in_flight(port, body_file, log, pid):
    body = open(body_file, "rb").read()
    half = len(body) // 2
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.sendall(b"POST /prioritize HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
    s.sendall(body[:half])
    wait_for(log, "POST /prioritize begins", pid)
    os.kill(pid, signal.SIGTERM)
    wait_for(log, "stopping, 1 request in flight", pid)
    try:
        socket.create_connection(("127.0.0.1", port), timeout=10).close()
        sys.exit("a new connection was taken after SIGTERM")
    except ConnectionRefusedError:
        pass
    s.sendall(body[half:])
    r = http.client.HTTPResponse(s)
    r.begin()
    data = r.read().decode()
    s.close()
    return r.status, data


def main():
    a = sys.argv[1:]
    if len(a) >= 4 and a[0] == "request":
        body = open(a[4], "rb").read() if len(a) > 4 else None
        status, data = request(int(a[1]), a[2], a[3], body)
    elif len(a) == 5 and a[0] == "chunked":
        status, data = request(int(a[1]), a[2], a[3], open(a[4], "rb").read(), True)
    elif len(a) == 4 and a[0] == "expect":
        expect(a[1], a[2], a[3])
        return
    elif len(a) == 5 and a[0] == "in-flight":
        status, data = in_flight(int(a[1]), a[2], a[3], int(a[4]))
    else:
        sys.exit(__doc__)
    print(status)
    print(data)


main()
