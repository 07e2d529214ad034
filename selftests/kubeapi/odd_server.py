#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""An HTTPS server that misbehaves in one way each, for test_kube_http.sh:
what the API client must survive on a kept-alive connection and within its
deadline. Not an API server: every answer is 200/201 with a small JSON.

  odd_server.py MODE CERT KEY PORTFILE LOG

  serve     answers every request, keeps the connection
  trickle   the answer's first TLS record: its 5-byte header at 6 s, the
            rest at 12 s (each read within the client's 10 s, the whole not)
  dies      answers request 1; takes request 2 and closes without answering
            (as a server that died after committing it); then serves
  unasked   answers request 1, then sends an unasked 408 on the same
            connection (as Go's server and load balancers do on idle)

Each request's line goes to LOG as "N METHOD PATH"."""
import socket
import ssl
import sys
import threading
import time

mode, cert, key, portfile, logfile = sys.argv[1:6]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", 0))
ls.listen(16)
with open(portfile, "w") as f:
    f.write(str(ls.getsockname()[1]))
count = 0
lock = threading.Lock()


def log(line):
    global count
    with lock:
        count += 1
        n = count
        with open(logfile, "a") as f:
            f.write("%d %s\n" % (n, line))
    return n


def answer(status, body=b'{"ok":true}'):
    return (b"HTTP/1.1 %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
            % (status, len(body)) + body)


def read_request(s):
    data = b""
    while b"\r\n\r\n" not in data:
        d = s.recv(65536)
        if not d:
            return None
        data += d
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    cl = 0
    for h in lines[1:]:
        if h.lower().startswith(b"content-length:"):
            cl = int(h.split(b":", 1)[1])
    while len(body) < cl:
        body += s.recv(65536)
    return lines[0].decode()


def trickle(c):
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    o = ctx.wrap_bio(inc, out, server_side=True)
    while True:
        try:
            o.do_handshake()
            break
        except ssl.SSLWantReadError:
            c.sendall(out.read())
            inc.write(c.recv(65536))
    c.sendall(out.read())
    req = b""
    while b"\r\n\r\n" not in req:
        try:
            req += o.read(65536)
        except ssl.SSLWantReadError:
            c.sendall(out.read())
            inc.write(c.recv(65536))
    log(req.split(b"\r\n")[0].decode())
    c.sendall(out.read())
    o.write(answer(b"200 OK"))
    rec = out.read()
    time.sleep(6)
    c.sendall(rec[:5])
    time.sleep(6)
    try:
        c.sendall(rec[5:])
    except OSError:
        pass


def conn(c):
    try:
        if mode == "trickle":
            trickle(c)
            return
        s = ctx.wrap_socket(c, server_side=True)
        while True:
            line = read_request(s)
            if line is None:
                return
            n = log(line)
            if mode == "dies" and n == 2:
                s.close()
                return
            s.sendall(answer(b"201 Created" if line.startswith("POST") else b"200 OK"))
            if mode == "unasked" and n == 1:
                time.sleep(0.2)
                s.sendall(answer(b"408 Request Timeout", b'{"unasked":true}'))
    except (OSError, ssl.SSLError):
        pass
    finally:
        c.close()


while True:
    c, _ = ls.accept()
    threading.Thread(target=conn, args=(c,), daemon=True).start()
