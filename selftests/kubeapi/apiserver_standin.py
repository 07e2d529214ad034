#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""An API-server stand-in for the tests: HTTPS, authentication and the REST
semantics the Kubernetes API conventions define for cluster-scoped objects
under /apis/GROUP/VERSION/RESOURCE[/NAME] and namespaced ones under
/apis/GROUP/VERSION/namespaces/NS/RESOURCE[/NAME[/status]], written from those conventions
(sig-architecture api-conventions.md: metav1.Status answers, resourceVersion
optimistic concurrency, AlreadyExists/Conflict/NotFound/Invalid), never from
rdmanet's client. No real API server runs in these tests. Server-side apply
(PATCH as application/apply-patch+yaml, ?fieldManager=M[&force=true]) of a
ResourceClaim's status.devices, the list-map DRA drivers write: entries
owned per field manager, metadata.uid as a precondition (409).

  apiserver_standin.py --port-file F [--port N] --cert C --key K [--client-ca CA]
                       [--token-file T] [--log L] [--fail-once-file F]

Authentication: a bearer token listed in --token-file (one per line, re-read
on each request so a test can rotate tokens), or a client certificate signed
by --client-ca. Anything else: 401. Every request is logged to --log as one
JSON line {method, path, user, status}. --fail-once-file: a file a test
writes "METHOD STATUS REASON" into; the next such request is answered with
that Status (e.g. "PUT 409 Conflict": someone else wrote the object first)
and the file is removed.
"""
import argparse
import ipaddress
import json
import os
import re
import ssl
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# metadata.name of most objects: a DNS subdomain (RFC 1123), at most 253
DNS_SUBDOMAIN = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')
PATH = re.compile(r'^/apis/([^/]+)/([^/]+)/([^/]+)(?:/([^/]+))?/?$')
NS_PATH = re.compile(r'^/apis/([^/]+)/([^/]+)/namespaces/([^/]+)/([^/]+)(?:/([^/]+)(?:/([^/]+))?)?/?$')

DNS_LABEL = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')
C_IDENT = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')
QUANTITY = re.compile(r'^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$')
SEMVER = re.compile(r'^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$')


def subdomain_ok(v, maxlen=253):
    return isinstance(v, str) and 0 < len(v) <= maxlen and DNS_SUBDOMAIN.match(v)


def qualified_name_errs(path, key):
    """resource.k8s.io QualifiedName: [DNS subdomain (<= 63) "/"] C identifier (<= 32)"""
    dom, _, ident = key.rpartition("/")
    errs = []
    if "/" in key and not subdomain_ok(dom, 63):
        errs.append("%s: Invalid value: %r: the domain must be a DNS subdomain of at most 63 characters" % (path, key))
    if not C_IDENT.match(ident) or len(ident) > 32:
        errs.append("%s: Invalid value: %r: must be a C identifier of at most 32 characters" % (path, key))
    return errs


def int_quantity(q):
    return int(q) if isinstance(q, str) and re.match(r'^[0-9]+$', q) else None


def validate_resourceslice(obj):
    """The rules of k8s.io/api/resource/v1 (types.go comments and the
    constants there): field paths as the API server names them."""
    errs = []
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return ["spec: Required value"]
    drv = spec.get("driver")
    if not subdomain_ok(drv, 63) or drv != drv.lower():
        errs.append("spec.driver: Invalid value: %r: a lowercase DNS subdomain of at most 63 characters" % drv)
    pool = spec.get("pool") or {}
    pn = pool.get("name")
    if not isinstance(pn, str) or not pn or len(pn) > 253 or not all(subdomain_ok(x) for x in pn.split("/")):
        errs.append("spec.pool.name: Invalid value: %r: DNS subdomains separated by slashes, at most 253 characters" % pn)
    if not isinstance(pool.get("generation"), int) or pool.get("generation") < 0:
        errs.append("spec.pool.generation: Invalid value: must be a non-negative integer")
    if not isinstance(pool.get("resourceSliceCount"), int) or pool.get("resourceSliceCount") <= 0:
        errs.append("spec.pool.resourceSliceCount: Invalid value: must be greater than zero")
    sel = [k for k in ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection") if spec.get(k) not in (None, False, "")]
    if len(sel) != 1:
        errs.append("spec: Invalid value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required")
    if spec.get("nodeName") and not subdomain_ok(spec["nodeName"]):
        errs.append("spec.nodeName: Invalid value: %r: a DNS subdomain" % spec["nodeName"])
    devs = spec.get("devices") or []
    if len(devs) > 128:
        errs.append("spec.devices: Too many: %d: must have at most 128 items" % len(devs))
    seen = set()
    for i, d in enumerate(devs):
        p = "spec.devices[%d]" % i
        n = d.get("name")
        if not isinstance(n, str) or not DNS_LABEL.match(n) or len(n) > 63:
            errs.append("%s.name: Invalid value: %r: a DNS label" % (p, n))
        elif n in seen:
            errs.append("%s.name: Duplicate value: %r" % (p, n))
        seen.add(n)
        attrs, caps = d.get("attributes") or {}, d.get("capacity") or {}
        if len(attrs) + len(caps) > 32:
            errs.append("%s: Invalid value: the total number of attributes and capacities must not exceed 32" % p)
        for k, v in attrs.items():
            ap = "%s.attributes[%s]" % (p, k)
            errs += qualified_name_errs(ap, k)
            set_ = [f for f in ("int", "bool", "string", "version") if f in (v or {})]
            if len(set_) != 1:
                errs.append("%s: Invalid value: exactly one value must be specified" % ap)
                continue
            f = set_[0]
            val = v[f]
            if f == "int" and (not isinstance(val, int) or isinstance(val, bool)):
                errs.append("%s.int: Invalid value: not an integer" % ap)
            if f == "bool" and not isinstance(val, bool):
                errs.append("%s.bool: Invalid value: not a boolean" % ap)
            if f in ("string", "version") and (not isinstance(val, str) or len(val) > 64):
                errs.append("%s.%s: Too long: may not be more than 64 bytes" % (ap, f))
            if f == "version" and isinstance(val, str) and not SEMVER.match(val):
                errs.append("%s.version: Invalid value: %r: must be a semantic version" % (ap, val))
        for k, v in caps.items():
            cp = "%s.capacity[%s]" % (p, k)
            errs += qualified_name_errs(cp, k)
            if not isinstance(v, dict) or not QUANTITY.match(str(v.get("value", ""))):
                errs.append("%s.value: Invalid value: a quantity is required" % cp)
                continue
            pol = v.get("requestPolicy")
            if pol is None:
                continue
            if not d.get("allowMultipleAllocations"):
                errs.append("%s.requestPolicy: Forbidden: only for a device with allowMultipleAllocations" % cp)
            if "validValues" in pol and "validRange" in pol:
                errs.append("%s.requestPolicy: Invalid value: validValues and validRange are exclusive" % cp)
            cap, dflt = int_quantity(v["value"]), int_quantity(pol.get("default"))
            rng = pol.get("validRange")
            if rng is not None:
                mn, mx, st = (int_quantity(rng.get(x)) for x in ("min", "max", "step"))
                if "min" not in rng:
                    errs.append("%s.requestPolicy.validRange.min: Required value" % cp)
                if None not in (mn, cap) and mn > cap:
                    errs.append("%s.requestPolicy.validRange.min: Invalid value: more than the capacity" % cp)
                if None not in (mx, cap) and mx > cap:
                    errs.append("%s.requestPolicy.validRange.max: Invalid value: more than the capacity" % cp)
                if None not in (dflt, mn) and dflt < mn:
                    errs.append("%s.requestPolicy.default: Invalid value: less than validRange.min" % cp)
                if st is not None and None not in (mn, cap) and mn + st > cap:
                    errs.append("%s.requestPolicy.validRange.step: Invalid value: min + step exceeds the capacity" % cp)
                if st and dflt is not None and dflt % st:
                    errs.append("%s.requestPolicy.default: Invalid value: not a multiple of step" % cp)
        if "allowMultipleAllocations" in d and not isinstance(d["allowMultipleAllocations"], bool):
            errs.append("%s.allowMultipleAllocations: Invalid value: not a boolean" % p)
    return errs


def request_names(spec):
    """gatherRequestNames: "req", and "req/sub" for a firstAvailable request"""
    names = set()
    for r in dig(spec, ("devices", "requests")) or []:
        names.add(r.get("name"))
        for sub in r.get("firstAvailable") or []:
            names.add("%s/%s" % (r.get("name"), sub.get("name")))
    return names


def validate_exact_request(r, p):
    """validateExactDeviceRequest, after v1's defaulting (allocationMode
    ExactCount, count 1); CEL expressions are only length-checked here"""
    errs = []
    dc = r.get("deviceClassName")
    if not dc:
        errs.append("%s.deviceClassName: Required value" % p)
    elif not subdomain_ok(dc):
        errs.append("%s.deviceClassName: Invalid value: %r: a lowercase RFC 1123 subdomain" % (p, dc))
    for i, sel in enumerate(r.get("selectors") or []):
        expr = dig(sel, ("cel", "expression"))
        if not isinstance(expr, str) or not expr:
            errs.append("%s.selectors[%d].cel: Required value" % (p, i))
        elif len(expr) > 10 * 1024:
            errs.append("%s.selectors[%d].cel.expression: Too long: may not be more than 10240 bytes" % (p, i))
    mode = r.setdefault("allocationMode", "ExactCount")
    if mode == "ExactCount":
        r.setdefault("count", 1)
        if not isinstance(r["count"], int) or r["count"] <= 0:
            errs.append("%s.count: Invalid value: %r: must be greater than zero" % (p, r["count"]))
    elif mode == "All":
        if r.get("count"):
            errs.append("%s.count: Invalid value: %r: must not be specified when allocationMode is 'All'" % (p, r["count"]))
    else:
        errs.append('%s.allocationMode: Unsupported value: %r: supported values: "All", "ExactCount"' % (p, mode))
    return errs


def validate_resourceclaim(obj):
    """ValidateResourceClaim (pkg/apis/resource/validation): the requests,
    their names and the config's references to them"""
    errs = []
    reqs = dig(obj, ("spec", "devices", "requests")) or []
    if len(reqs) > 32:
        errs.append("spec.devices.requests: Too many: %d: must have at most 32 items" % len(reqs))
    seen = set()
    for i, r in enumerate(reqs):
        p = "spec.devices.requests[%d]" % i
        n = r.get("name") if isinstance(r, dict) else None
        if not isinstance(n, str) or not DNS_LABEL.match(n) or len(n) > 63:
            errs.append("%s.name: Invalid value: %r: a lowercase RFC 1123 label" % (p, n))
            continue
        if n in seen:
            errs.append("%s.name: Duplicate value: %r" % (p, n))
        seen.add(n)
        kinds = [k for k in ("exactly", "firstAvailable") if r.get(k)]
        if not kinds:
            errs.append("%s: Required value: exactly one of `exactly` or `firstAvailable` is required" % p)
        elif len(kinds) > 1:
            errs.append("%s: Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set" % p)
        elif kinds[0] == "exactly":
            errs += validate_exact_request(r["exactly"], p + ".exactly")
        else:
            for j, sub in enumerate(r["firstAvailable"]):
                sp = "%s.firstAvailable[%d]" % (p, j)
                if not DNS_LABEL.match(str(sub.get("name"))):
                    errs.append("%s.name: Invalid value: %r: a lowercase RFC 1123 label" % (sp, sub.get("name")))
                errs += validate_exact_request(sub, sp)
    names = request_names(obj.get("spec"))
    cfgs = dig(obj, ("spec", "devices", "config")) or []
    if len(cfgs) > 32:
        errs.append("spec.devices.config: Too many: %d: must have at most 32 items" % len(cfgs))
    for i, c in enumerate(cfgs):
        p = "spec.devices.config[%d]" % i
        for j, rn in enumerate(c.get("requests") or []):
            if rn not in names:
                errs.append("%s.requests[%d]: Invalid value: %r: must be the name of a request in the claim or the name of a request and a subrequest separated by '/'" % (p, j, rn))
        op = c.get("opaque")
        if not isinstance(op, dict):
            errs.append("%s.opaque: Required value" % p)
            continue
        if not subdomain_ok(op.get("driver"), 63):
            errs.append("%s.opaque.driver: Invalid value: %r: a lowercase DNS subdomain of at most 63 characters" % (p, op.get("driver")))
        if op.get("parameters") is None:
            errs.append("%s.opaque.parameters: Required value" % p)
    return errs


def validate_resourceclaim_status(new, old):
    """validateResourceClaimStatusUpdate: a set allocation is immutable, a
    new one names the claim's requests and valid driver/pool/device names"""
    errs = []
    st, ost = new.get("status") or {}, old.get("status") or {}
    alloc = st.get("allocation")
    if st.get("reservedFor") and alloc is None:
        errs.append("status.reservedFor: Forbidden: may not be specified when `allocated` is not set")
    if alloc is not None and ost.get("allocation") is not None:
        if alloc != ost["allocation"]:
            errs.append("status.allocation: Invalid value: field is immutable")
        return errs
    if alloc is None:
        return errs
    names = request_names(new.get("spec"))
    results = dig(alloc, ("devices", "results")) or []
    if len(results) > 32:
        errs.append("status.allocation.devices.results: Too many: %d: must have at most 32 items" % len(results))
    for i, r in enumerate(results):
        p = "status.allocation.devices.results[%d]" % i
        if r.get("request") not in names:
            errs.append("%s.request: Invalid value: %r: must be the name of a request in the claim or the name of a request and a subrequest separated by '/'" % (p, r.get("request")))
        if not subdomain_ok(r.get("driver"), 63):
            errs.append("%s.driver: Invalid value: %r: a lowercase DNS subdomain of at most 63 characters" % (p, r.get("driver")))
        pn = r.get("pool")
        if not isinstance(pn, str) or not pn or len(pn) > 253 or not all(subdomain_ok(x) for x in pn.split("/")):
            errs.append("%s.pool: Invalid value: %r: DNS subdomains separated by slashes" % (p, pn))
        if not isinstance(r.get("device"), str) or not DNS_LABEL.match(r["device"]) or len(r["device"]) > 63:
            errs.append("%s.device: Invalid value: %r: a lowercase RFC 1123 label" % (p, r.get("device")))
    return errs


IMMUTABLE = {"resourceslices": [("spec", "driver"), ("spec", "pool", "name"), ("spec", "nodeName")],
             "resourceclaims": [("spec",)]}
VALIDATORS = {"resourceslices": validate_resourceslice, "resourceclaims": validate_resourceclaim}
# resources whose status is written only through their /status subresource
# (the main resource keeps it on update and drops it on create) and the
# check of such a write
STATUS_VALIDATORS = {"resourceclaims": lambda new, old: validate_resourceclaim_status(new, old) + validate_device_statuses(new)}


def dig(o, path):
    for k in path:
        o = o.get(k) if isinstance(o, dict) else None
    return o


def field_selected(obj, selector):
    for term in filter(None, (selector or "").split(",")):
        k, _, v = term.partition("=")
        if str(dig(obj, k.split("."))) != v:
            return False
    return True


store = {}		# (group, version, resource) or (group, version, namespace, resource) -> {name: object}
lock = threading.Lock()
next_rv = [1]
gen_seq = [0]


def status(code, reason, message, details=None):
    return code, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                  "status": "Failure", "message": message, "reason": reason,
                  "details": details or {}, "code": code}


def interface_address_errs(path, v):
    """IsValidInterfaceAddress (apimachinery validation/ip.go): an
    address with its prefix length, in canonical form"""
    msg = "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)"
    try:
        iface = ipaddress.ip_interface(v)
        if not isinstance(v, str) or "/" not in v:
            raise ValueError(v)
    except ValueError:
        return ["%s: Invalid value: %s: %s" % (path, json.dumps(v), msg)]
    canonical = "%s/%d" % (iface.ip, iface.network.prefixlen)
    if v != canonical:
        return ["%s: Invalid value: %s: must be in canonical form (%s)" % (path, json.dumps(v), json.dumps(canonical))]
    return []


def device_key(d):
    """status.devices is a list-map keyed by driver, pool, device, shareID"""
    return tuple(d.get(k) for k in ("driver", "pool", "device", "shareID")) if isinstance(d, dict) else None


def validate_device_statuses(claim):
    """validateResourceClaimStatusUpdate's status.devices part
    (validateDeviceStatus, validateNetworkDeviceData; the limits of
    k8s.io/api/resource/v1: NetworkDeviceDataInterfaceNameMaxLength 256,
    NetworkDeviceDataHardwareAddressMaxLength 128, NetworkDeviceDataMaxIPs 16)"""
    errs = []
    devs = dig(claim, ("status", "devices")) or []
    allocated = {(r.get("driver"), r.get("pool"), r.get("device"), r.get("shareID"))
                 for r in dig(claim, ("status", "allocation", "devices", "results")) or []}
    seen = set()
    for i, d in enumerate(devs):
        p = "status.devices[%d]" % i
        if not isinstance(d, dict):
            errs.append("%s: Invalid value: must be an object" % p)
            continue
        if not subdomain_ok(d.get("driver"), 63):
            errs.append("%s.driver: Invalid value: %s: a lowercase DNS subdomain of at most 63 characters" % (p, json.dumps(d.get("driver"))))
        pn = d.get("pool")
        if not isinstance(pn, str) or not pn or len(pn) > 253 or not all(subdomain_ok(x) for x in pn.split("/")):
            errs.append("%s.pool: Invalid value: %s: DNS subdomains separated by slashes" % (p, json.dumps(pn)))
        if not isinstance(d.get("device"), str) or not DNS_LABEL.match(d["device"]) or len(d["device"]) > 63:
            errs.append("%s.device: Invalid value: %s: a lowercase RFC 1123 label" % (p, json.dumps(d.get("device"))))
        key = device_key(d)
        sid = "%s/%s/%s" % key[:3] + ("/%s" % key[3] if key[3] else "")
        if key not in allocated:
            errs.append('%s: Invalid value: "%s": must be an allocated device in the claim' % (p, sid))
        if key in seen:
            errs.append('%s: Duplicate value: "%s"' % (p, sid))
        seen.add(key)
        nd = d.get("networkData")
        if nd is None:
            continue
        np = p + ".networkData"
        if len(nd.get("interfaceName") or "") > 256:
            errs.append("%s.interfaceName: Too long: may not be more than 256 bytes" % np)
        if len(nd.get("hardwareAddress") or "") > 128:
            errs.append("%s.hardwareAddress: Too long: may not be more than 128 bytes" % np)
        ips = nd.get("ips") or []
        if len(ips) > 16:
            errs.append("%s.ips: Too many: %d: must have at most 16 items" % (np, len(ips)))
            continue
        for j, ip in enumerate(ips):
            errs += interface_address_errs("%s.ips[%d]" % (np, j), ip)
            if ip in ips[:j]:
                errs.append("%s.ips[%d]: Duplicate value: %s" % (np, j, json.dumps(ip)))
    return errs


# Server-side apply of a claim's status.devices (the list-map the DRA
# drivers write): per object UID, the entries each field manager applied.
# An apply sets the manager's entries to what it sends: an entry it owned
# and no longer sends is removed; another manager's stay; an entry owned by
# another manager is taken over with force=true, else a 409 conflict.
# Entries written by update or merge patch belong to no manager and stay.
apply_owners = {}	# uid -> {manager: set of device keys}
APPLY_TYPE = "application/apply-patch+yaml"


def apply_status_devices(cur, body, manager, force, gr, name):
    uid = cur["metadata"]["uid"]
    want_uid = dig(body, ("metadata", "uid"))
    if want_uid and want_uid != uid:
        return status(409, "Conflict", 'Operation cannot be fulfilled on %s "%s": Precondition failed: UID in precondition: %s, UID in object meta: %s' % (gr, name, want_uid, uid))
    applied = dig(body, ("status", "devices")) or []
    if not isinstance(applied, list) or not all(isinstance(d, dict) for d in applied):
        return status(400, "BadRequest", "status.devices: expected a list of objects")
    owners = apply_owners.setdefault(uid, {})
    mine = owners.get(manager, set())
    keys = [device_key(d) for d in applied]
    conflicts = [k for k in keys for m, owned in owners.items() if m != manager and k in owned]
    if conflicts and not force:
        return status(409, "Conflict", "Apply failed with %d conflict: conflict with \"%s\": .status.devices" % (len(conflicts), next(m for m, o in owners.items() if m != manager and conflicts[0] in o)))
    devices = []
    for d in (dig(cur, ("status", "devices")) or []):
        k = device_key(d)
        if k in keys:
            devices.append(applied[keys.index(k)])
        elif k not in mine:
            devices.append(d)
    devices += [d for d, k in zip(applied, keys) if k not in [device_key(x) for x in devices]]
    new = json.loads(json.dumps(cur))
    new.setdefault("status", {})["devices"] = devices
    if not devices:
        new["status"].pop("devices")
    return new, (uid, manager, set(keys))


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
        from urllib.parse import parse_qs, urlsplit
        self.selector = parse_qs(urlsplit(self.path).query).get("fieldSelector", [""])[0]
        path = self.path.split("?")[0]
        m = NS_PATH.match(path)
        if m:
            group, version, ns, resource, name, sub = m.groups()
            key = (group, version, ns, resource)
        else:
            m = PATH.match(path)
            ns = sub = None
            if m:
                group, version, resource, name = m.groups()
                key = (group, version, resource)
        if not m or (sub and (sub != "status" or resource not in STATUS_VALIDATORS)):
            return self.answer(*status(404, "NotFound", "the server could not find the requested resource"), user)
        # the body is read first, whatever the answer: on a kept-alive
        # connection an unread body would be taken for the next request
        try:
            obj = self.body()
        except ValueError as e:
            return self.answer(*status(400, "BadRequest", "invalid JSON: %s" % e), user)
        f = self.server.fail_once
        if f:
            try:
                with open(f) as fh:
                    meth, code, reason = fh.read().split()
            except (OSError, ValueError):
                meth = None
            if meth == self.command:
                os.unlink(f)
                return self.answer(*status(int(code), reason, "injected by the test"), user)
        if ns is not None and (not DNS_LABEL.match(ns) or len(ns) > 63):
            return self.answer(*status(404, "NotFound", 'namespaces "%s" not found' % ns), user)
        with lock:
            code, out = self.apply(store.setdefault(key, {}), resource, name, obj, ns, sub)
        self.answer(code, out, user)

    def apply(self, objs, resource, name, obj, ns=None, sub=None):
        gr = "%s.%s" % (resource, self.path.split("/")[2])
        if sub and self.command not in ("GET", "PUT", "PATCH"):
            return status(405, "MethodNotAllowed", "%s on the %s subresource" % (self.command, sub))
        if self.command == "GET":
            if name is None:
                return 200, {"kind": "List", "apiVersion": "v1",
                             "metadata": {"resourceVersion": str(next_rv[0])},
                             "items": [o for o in objs.values() if field_selected(o, self.selector)]}
            if name not in objs:
                return status(404, "NotFound", '%s "%s" not found' % (gr, name))
            return 200, objs[name]
        if self.command == "DELETE" and name is None:	# deletecollection, as kubelet wipes a node's slices
            gone = [n for n, o in objs.items() if field_selected(o, self.selector)]
            items = [objs.pop(n) for n in gone]
            return 200, {"kind": "List", "apiVersion": "v1", "metadata": {}, "items": items}
        if self.command == "DELETE":
            if name not in objs:
                return status(404, "NotFound", '%s "%s" not found' % (gr, name))
            return 200, objs.pop(name)
        if not isinstance(obj, dict):
            return status(400, "BadRequest", "the body is not a JSON object")
        meta = obj.setdefault("metadata", {})
        if ns is not None:
            if meta.get("namespace", ns) != ns:
                return status(400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request")
            meta["namespace"] = ns
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
            owned = None
            if self.command == "PATCH" and self.headers.get("Content-Type") == APPLY_TYPE:
                from urllib.parse import parse_qs, urlsplit
                q = parse_qs(urlsplit(self.path).query)
                if (resource, sub) != ("resourceclaims", "status"):
                    return status(415, "UnsupportedMediaType", "server-side apply: only resourceclaims/status in this stand-in")
                if not q.get("fieldManager", [""])[0]:
                    return status(400, "BadRequest", "PATCH: fieldManager: Required value: is required for apply patch")
                res = apply_status_devices(cur, obj, q["fieldManager"][0], q.get("force", [""])[0] == "true", gr, name)
                if isinstance(res[0], int):
                    return res
                obj, owned = res
                meta = obj["metadata"]
            elif self.command == "PATCH":
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
        if resource in STATUS_VALIDATORS:
            if sub:		# only the status changes through /status (ResetObjectMetaForStatus)
                meta = dict(cur["metadata"])
                obj = dict(cur, status=obj.get("status"), metadata=meta)
                errs = STATUS_VALIDATORS[resource](obj, cur)
            else:		# and never through the main resource
                obj.pop("status", None)
                if self.command != "POST" and cur.get("status") is not None:
                    obj["status"] = cur["status"]
        if not sub:
            errs = VALIDATORS.get(resource, lambda o: [])(obj)
        if self.command != "POST" and not sub:
            for path in IMMUTABLE.get(resource, []):
                if dig(obj, path) != dig(objs[name], path):
                    errs.append("%s: Invalid value: field is immutable" % ".".join(path))
        if errs:
            return status(422, "Invalid", '%s "%s" is invalid: %s' % (gr, meta.get("name"), "; ".join(errs)),
                          {"causes": [{"message": m} for m in errs]})
        if self.command != "POST" and owned:	# the apply took: its manager owns what it sent
            uid, manager, keys = owned
            for m, o in apply_owners.setdefault(uid, {}).items():
                o -= keys
            apply_owners[uid][manager] = keys
        next_rv[0] += 1
        meta["resourceVersion"] = str(next_rv[0])
        if self.command == "POST":	# the server's, whatever the client sent
            meta["uid"] = str(uuid.uuid4())
        objs[meta["name"]] = obj
        return (201 if self.command == "POST" else 200), obj

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--port", type=int, default=0, help="0: any free port")
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--client-ca")
    ap.add_argument("--token-file")
    ap.add_argument("--log")
    ap.add_argument("--fail-once-file")
    a = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.cert, a.key)
    if a.client_ca:
        ctx.load_verify_locations(a.client_ca)
        ctx.verify_mode = ssl.CERT_OPTIONAL
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.token_file, srv.log, srv.fail_once = a.token_file, a.log, a.fail_once_file
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(a.port_file + ".tmp", a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
