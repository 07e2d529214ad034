#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""An API-server stand-in for the tests: HTTPS, authentication and the REST
semantics the Kubernetes API conventions define for cluster-scoped objects
under /apis/GROUP/VERSION/RESOURCE[/NAME], written from those conventions
(sig-architecture api-conventions.md: metav1.Status answers, resourceVersion
optimistic concurrency, AlreadyExists/Conflict/NotFound/Invalid), never from
rdmanet's client. No real API server runs in these tests.

  apiserver_standin.py --port-file F --cert C --key K [--client-ca CA]
                       [--token-file T] [--log L]

Authentication: a bearer token listed in --token-file (one per line, re-read
on each request so a test can rotate tokens), or a client certificate signed
by --client-ca. Anything else: 401. Every request is logged to --log as one
JSON line {method, path, user, status}.
"""
import argparse
import json
import re
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# metadata.name of most objects: a DNS subdomain (RFC 1123), at most 253
DNS_SUBDOMAIN = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')
PATH = re.compile(r'^/apis/([^/]+)/([^/]+)/([^/]+)(?:/([^/]+))?/?$')

store = {}		# (group, version, resource) -> {name: object}
lock = threading.Lock()
next_rv = [1]
gen_seq = [0]


def status(code, reason, message, details=None):
    return code, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                  "status": "Failure", "message": message, "reason": reason,
                  "details": details or {}, "code": code}


def merge_patch(target, patch):	# RFC 7386
    if not isinstance(patch, dict):
        return patch
    if not isinstance(target, dict):
        target = {}
    out = dict(target)
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def user(self):
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Bearer ") and self.server.token_file:
            with open(self.server.token_file) as f:
                tokens = [l.strip() for l in f if l.strip()]
            if auth[7:] in tokens:
                return "token:" + auth[7:][:8]
        cert = self.connection.getpeercert()
        if cert:
            for rdn in cert.get("subject", ()):
                for k, v in rdn:
                    if k == "commonName":
                        return "cert:" + v
        return None

    def answer(self, code, obj, user):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        if self.server.log:
            with open(self.server.log, "a") as f:
                f.write(json.dumps({"method": self.command, "path": self.path,
                                    "user": user, "status": code,
                                    "content_type": self.headers.get("Content-Type")}) + "\n")

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(n) or b"null") if n else None

    def handle_any(self):
        user = self.user()
        if user is None:
            return self.answer(*status(401, "Unauthorized", "Unauthorized"), user)
        if self.path == "/version":
            return self.answer(200, {"major": "1", "minor": "34",
                                     "gitVersion": "v1.34.0-standin"}, user)
        m = PATH.match(self.path.split("?")[0])
        if not m:
            return self.answer(*status(404, "NotFound", "the server could not find the requested resource"), user)
        group, version, resource, name = m.groups()
        try:
            obj = self.body()
        except ValueError as e:
            return self.answer(*status(400, "BadRequest", "invalid JSON: %s" % e), user)
        with lock:
            code, out = self.apply(store.setdefault((group, version, resource), {}),
                                   resource, name, obj)
        self.answer(code, out, user)

    def apply(self, objs, resource, name, obj):
        gr = "%s.%s" % (resource, self.path.split("/")[2])
        if self.command == "GET":
            if name is None:
                return 200, {"kind": "List", "apiVersion": "v1",
                             "metadata": {"resourceVersion": str(next_rv[0])},
                             "items": list(objs.values())}
            if name not in objs:
                return status(404, "NotFound", '%s "%s" not found' % (gr, name))
            return 200, objs[name]
        if self.command == "DELETE":
            if name is None or name not in objs:
                return status(404, "NotFound", '%s "%s" not found' % (gr, name))
            return 200, objs.pop(name)
        if not isinstance(obj, dict):
            return status(400, "BadRequest", "the body is not a JSON object")
        meta = obj.setdefault("metadata", {})
        if self.command == "POST":
            if name is not None:
                return status(405, "MethodNotAllowed", "POST to a named object")
            if not meta.get("name") and meta.get("generateName"):
                gen_seq[0] += 1
                meta["name"] = "%s%05x" % (meta["generateName"], gen_seq[0])
            n = meta.get("name", "")
            if not DNS_SUBDOMAIN.match(n) or len(n) > 253:
                return status(422, "Invalid", '%s "%s" is invalid: metadata.name: Invalid value: "%s": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\'' % (gr, n, n))
            if n in objs:
                return status(409, "AlreadyExists", '%s "%s" already exists' % (gr, n))
            if meta.get("resourceVersion"):
                return status(422, "Invalid", "metadata.resourceVersion: must be empty on create")
        else:	# PUT, PATCH
            if name not in objs:
                return status(404, "NotFound", '%s "%s" not found' % (gr, name))
            cur = objs[name]
            if self.command == "PATCH":
                obj = merge_patch(cur, obj)
                meta = obj["metadata"]
            rv = meta.get("resourceVersion")
            if self.command == "PUT" and not rv:
                return status(422, "Invalid", "metadata.resourceVersion: must be specified for an update")
            if rv and rv != cur["metadata"]["resourceVersion"]:
                return status(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": the object has been modified; please apply your changes to the latest version and try again' % (gr, name))
            if meta.get("name", name) != name:
                return status(400, "BadRequest", "the name of the object does not match the name on the URL")
            meta["name"] = name
            meta["uid"] = cur["metadata"]["uid"]
        next_rv[0] += 1
        meta["resourceVersion"] = str(next_rv[0])
        meta.setdefault("uid", "uid-%d" % next_rv[0])
        objs[meta["name"]] = obj
        return (201 if self.command == "POST" else 200), obj

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--client-ca")
    ap.add_argument("--token-file")
    ap.add_argument("--log")
    a = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.cert, a.key)
    if a.client_ca:
        ctx.load_verify_locations(a.client_ca)
        ctx.verify_mode = ssl.CERT_OPTIONAL
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.token_file, srv.log = a.token_file, a.log
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(a.port_file + ".tmp", a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
