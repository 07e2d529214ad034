#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""A kubelet stand-in for DRA drivers: a real gRPC peer written from
kubelet's API definitions (the .proto files under user/lib/dra/api and
user/lib/pluginreg/api, copied from kubernetes/kubernetes) and kubelet's
documented behaviour, never from the driver's code. Run with
/usr/bin/python3 (Debian's python3-grpcio); the stubs are generated into
--gen DIR (the build dir) from those .proto files (python3-grpc-tools).

  kubelet_dra.py --gen DIR register --registry DIR --driver NAME [--timeout S]
          [--socket GLOB]
      the plugin watcher: waits for a socket in the registry dir (the
      first whose name matches GLOB, default *: a device plugin's may be
      there too), calls
      GetInfo, validates it as kubelet does (type "DRAPlugin", the driver
      name, an absolute endpoint that is a socket, a known service among
      supported_versions, v1 preferred), tells the driver
      NotifyRegistrationStatus(true) (false with the reason if invalid)
      and prints {"type", "name", "endpoint", "versions", "service", "error"}
  kubelet_dra.py --gen DIR prepare|unprepare --endpoint SOCK
      --service v1.DRAPlugin|v1beta1.DRAPlugin --claim NS/NAME/UID ...
      one NodePrepareResources / NodeUnprepareResources call with these
      claims; prints {"claims": {uid: {"devices": [...], "error": "..."}},
      "missing": [uids not answered], "grpc_error": "..." }
  kubelet_dra.py --gen DIR bench --endpoint SOCK --service S --claim NS/NAME/UID
      [--count N]
      make bench: N prepare + unprepare rounds of one claim on one channel,
      timed, and an RPC without work as the baseline; prints percentiles

Output: one JSON object on stdout; the shell tests read it with jq.
"""
import argparse
import glob
import importlib
import json
import os
import stat
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..')
PROTOS = [('user/lib/dra/api', 'dra_v1.proto'), ('user/lib/dra/api', 'dra_v1beta1.proto'),
          ('user/lib/pluginreg/api', 'pluginregistration_v1.proto')]
# kubelet: the services a DRA plugin may list, the newest first
KNOWN_SERVICES = ['v1.DRAPlugin', 'v1beta1.DRAPlugin']


def gen_stubs(out):
    os.makedirs(out, exist_ok=True)
    for d, f in PROTOS:
        stamp = os.path.join(out, f.replace('.proto', '_pb2_grpc.py'))
        src = os.path.join(ROOT, d, f)
        if os.path.exists(stamp) and os.path.getmtime(stamp) >= os.path.getmtime(src):
            continue
        subprocess.check_call([sys.executable, '-m', 'grpc_tools.protoc',
                               '-I' + os.path.join(ROOT, d), '--python_out=' + out,
                               '--grpc_python_out=' + out, f])
    sys.path.insert(0, out)


def mod(name):
    return importlib.import_module(name)


def dns_subdomain(s):
    import re
    return len(s) <= 253 and re.fullmatch(r'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*', s)


def register(args):
    import grpc
    pb = mod('pluginregistration_v1_pb2')
    rpc = mod('pluginregistration_v1_pb2_grpc')
    deadline = time.time() + args.timeout
    sock = None
    while time.time() < deadline:
        for p in sorted(glob.glob(os.path.join(args.registry, args.socket))):
            try:
                if stat.S_ISSOCK(os.stat(p).st_mode):
                    sock = p
                    break
            except FileNotFoundError:
                pass
        if sock:
            break
        time.sleep(0.1)
    if not sock:
        return {'error': 'no socket appeared in %s' % args.registry}
    # kubelet's plugin manager retries a registration that failed (a
    # socket left by a killed plugin refuses connections until the plugin
    # binds it again)
    while True:
        try:
            with grpc.insecure_channel('unix:' + sock) as ch:
                info = rpc.RegistrationStub(ch).GetInfo(pb.InfoRequest(), timeout=10)
            break
        except grpc.RpcError as e:
            if time.time() >= deadline:
                return {'error': 'GetInfo: %s: %s' % (e.code().name, e.details())}
            time.sleep(0.2)
    with grpc.insecure_channel('unix:' + sock) as ch:
        stub = rpc.RegistrationStub(ch)
        res = {'socket': os.path.basename(sock), 'type': info.type, 'name': info.name,
               'endpoint': info.endpoint, 'versions': list(info.supported_versions),
               'service': None, 'error': None}
        err = None
        if info.type != 'DRAPlugin':
            err = 'type %r is not DRAPlugin' % info.type
        elif not dns_subdomain(info.name) or len(info.name) > 63:
            err = 'driver name %r is not a DNS subdomain of at most 63' % info.name
        elif info.name != args.driver:
            err = 'driver name %r, expected %r' % (info.name, args.driver)
        elif not os.path.isabs(info.endpoint):
            err = 'endpoint %r is not absolute' % info.endpoint
        elif not os.path.exists(info.endpoint) or not stat.S_ISSOCK(os.stat(info.endpoint).st_mode):
            err = 'endpoint %s is not a socket' % info.endpoint
        else:
            known = [s for s in KNOWN_SERVICES if s in info.supported_versions]
            if not known:
                err = 'none of the supported versions %r is a known DRA service' % \
                    list(info.supported_versions)
            else:
                res['service'] = known[0]
        res['error'] = err
        stub.NotifyRegistrationStatus(pb.RegistrationStatus(plugin_registered=err is None,
                                                            error=err or ''), timeout=10)
    return res


def call(args, unprepare):
    import grpc
    ver = args.service.split('.')[0]
    pb = mod('dra_%s_pb2' % ver)
    rpc = mod('dra_%s_pb2_grpc' % ver)
    claims = []
    for c in args.claim:
        ns, name, uid = c.split('/')
        claims.append(pb.Claim(namespace=ns, name=name, uid=uid))
    out = {'claims': {}, 'missing': [], 'grpc_error': None}
    with grpc.insecure_channel('unix:' + args.endpoint) as ch:
        stub = rpc.DRAPluginStub(ch)
        try:
            if unprepare:
                r = stub.NodeUnprepareResources(pb.NodeUnprepareResourcesRequest(claims=claims),
                                                timeout=30)
            else:
                r = stub.NodePrepareResources(pb.NodePrepareResourcesRequest(claims=claims),
                                              timeout=30)
        except grpc.RpcError as e:
            out['grpc_error'] = '%s: %s' % (e.code().name, e.details())
            return out
    for uid, v in r.claims.items():
        one = {'error': v.error}
        if not unprepare:
            one['devices'] = [{'requests': list(d.request_names), 'pool': d.pool_name,
                               'device': d.device_name, 'cdi': list(d.cdi_device_ids)}
                              for d in v.devices]
        out['claims'][uid] = one
    # kubelet: every claim of the request must be in the answer
    out['missing'] = [c.uid for c in claims if c.uid not in r.claims]
    return out


def bench(args):
    """make bench: --count rounds of NodePrepareResources then
    NodeUnprepareResources of one claim, each call timed on one client and
    channel, as kubelet keeps one; the baseline is the same client's
    NodeUnprepareResources of a claim never prepared (an RPC the driver
    answers without work)."""
    import grpc
    ver = args.service.split('.')[0]
    pb = mod('dra_%s_pb2' % ver)
    rpc = mod('dra_%s_pb2_grpc' % ver)
    ns, name, uid = args.claim.split('/')
    claim = pb.Claim(namespace=ns, name=name, uid=uid)
    nobody = pb.Claim(namespace=ns, name='never-prepared', uid='00000000-0000-4000-8000-000000000000')

    def pct(ms, q):
        ms = sorted(ms)
        return round(ms[min(len(ms) - 1, int(len(ms) * q))], 3)

    prep, unprep, empty = [], [], []
    with grpc.insecure_channel('unix:' + args.endpoint) as ch:
        stub = rpc.DRAPluginStub(ch)
        for _ in range(args.count):
            t0 = time.perf_counter()
            r = stub.NodePrepareResources(pb.NodePrepareResourcesRequest(claims=[claim]), timeout=30)
            prep.append((time.perf_counter() - t0) * 1000)
            if r.claims[uid].error:
                return {'error': 'prepare: ' + r.claims[uid].error}
            t0 = time.perf_counter()
            r = stub.NodeUnprepareResources(pb.NodeUnprepareResourcesRequest(claims=[claim]), timeout=30)
            unprep.append((time.perf_counter() - t0) * 1000)
            if r.claims[uid].error:
                return {'error': 'unprepare: ' + r.claims[uid].error}
            t0 = time.perf_counter()
            stub.NodeUnprepareResources(pb.NodeUnprepareResourcesRequest(claims=[nobody]), timeout=30)
            empty.append((time.perf_counter() - t0) * 1000)
    return {'n': args.count, 'error': None,
            'prepare_p50_ms': pct(prep, 0.5), 'prepare_p99_ms': pct(prep, 0.99),
            'unprepare_p50_ms': pct(unprep, 0.5), 'unprepare_p99_ms': pct(unprep, 0.99),
            'empty_rpc_p50_ms': pct(empty, 0.5)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--gen', required=True)
    sub = ap.add_subparsers(dest='cmd', required=True)
    r = sub.add_parser('register')
    r.add_argument('--registry', required=True)
    r.add_argument('--driver', required=True)
    r.add_argument('--timeout', type=float, default=20)
    r.add_argument('--socket', default='*')
    for n in ('prepare', 'unprepare'):
        p = sub.add_parser(n)
        p.add_argument('--endpoint', required=True)
        p.add_argument('--service', required=True, choices=KNOWN_SERVICES)
        p.add_argument('--claim', action='append', default=[])
    b = sub.add_parser('bench')
    b.add_argument('--endpoint', required=True)
    b.add_argument('--service', required=True, choices=KNOWN_SERVICES)
    b.add_argument('--claim', required=True)
    b.add_argument('--count', type=int, default=200)
    args = ap.parse_args()
    gen_stubs(args.gen)
    if args.cmd == 'register':
        res = register(args)
    elif args.cmd == 'bench':
        res = bench(args)
    else:
        res = call(args, args.cmd == 'unprepare')
    print(json.dumps(res, sort_keys=True))


if __name__ == '__main__':
    main()
