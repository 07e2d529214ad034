#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""A fake kubelet: a real gRPC peer of the device plugin, written from the
kubelet's behaviour and not from the plugin's code. Run with /usr/bin/python3
(Debian's python3-grpcio); the stubs are generated at start from the .proto
files the project keeps (python3-grpc-tools).

  fake_kubelet.py --kubelet-dir DIR --log FILE [--refuse] [--watcher]
                  [--allocate-size N] [--pods-dir DIR]

kubelet mode (default): deletes every socket under DIR/device-plugins (as a
starting kubelet does), serves Registration on device-plugins/kubelet.sock,
checks each RegisterRequest (version, endpoint, resource name as kubelet
validates it), dials the plugin back and calls GetDevicePluginOptions
before answering (kubelet >= 1.25 does), then opens ListAndWatch and calls
GetPreferredAllocation, Allocate (healthy IDs first as kubelet does, an unknown ID, and an
Unhealthy one when there is one, which the plugin must refuse) and
PreStartContainer. --refuse answers every Register with an error; --stall
never answers it. --pods-dir DIR: then one pod per device Healthy in the
first list, one at a time (Allocate one ID; DIR/<n>.started says the pod's
CNI has taken it).
--watcher: the plugin-watcher path instead: scans DIR/plugins_registry,
GetInfo, checks it, dials the endpoint, NotifyRegistrationStatus
(DRAPlugin sockets are left to selftests/dra/kubelet_dra.py).

Everything seen goes to FILE as JSON lines ({"event": ...}); the shell
tests read them with jq.
"""
import argparse
import glob
import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import threading
import time
from concurrent import futures

import grpc

HERE = os.path.dirname(os.path.abspath(__file__))
API = os.path.join(HERE, '..', '..', 'user', 'lib', 'devplugin', 'api')
REG_API = os.path.join(HERE, '..', '..', 'user', 'lib', 'pluginreg', 'api')

_log_lock = threading.Lock()
_log_file = None


def log(event, **kw):
    kw['event'] = event
    kw['t'] = time.time()
    with _log_lock:
        _log_file.write(json.dumps(kw, sort_keys=True) + '\n')
        _log_file.flush()


def gen_stubs():
    out = tempfile.mkdtemp(prefix='fake-kubelet-stubs.')
    subprocess.check_call([sys.executable, '-m', 'grpc_tools.protoc', '-I' + API, '-I' + REG_API,
                           '--python_out=' + out, '--grpc_python_out=' + out,
                           'deviceplugin_v1beta1.proto', 'pluginregistration_v1.proto'])
    sys.path.insert(0, out)


# kubelet's checks of an extended resource name (IsExtendedResourceName:
# a qualified name with a prefix outside kubernetes.io)
DNS1123_LABEL = r'[a-z0-9]([-a-z0-9]*[a-z0-9])?'
DNS1123_SUBDOMAIN = re.compile(r'^%s(\.%s)*$' % (DNS1123_LABEL, DNS1123_LABEL))
QUALIFIED_NAME = re.compile(r'^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$')


def resource_name_error(name):
    if '/' not in name:
        return 'no prefix: a native resource name'
    prefix, _, rest = name.partition('/')
    if 'kubernetes.io/' in name:
        return 'in the kubernetes.io namespace'
    if len(prefix) > 253 or not DNS1123_SUBDOMAIN.match(prefix):
        return 'prefix %r is not a DNS-1123 subdomain' % prefix
    if len(rest) > 63 or not QUALIFIED_NAME.match(rest):
        return 'name %r is not a qualified name' % rest
    return None


def is_socket(path):
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


class Plugin:
    """kubelet's client side of one registered plugin."""

    def __init__(self, resource, path, args):
        import deviceplugin_v1beta1_pb2 as pb
        import deviceplugin_v1beta1_pb2_grpc as pbg
        self.pb = pb
        self.resource = resource
        self.path = path
        self.args = args
        self.chan = grpc.insecure_channel('unix:' + path)
        self.stub = pbg.DevicePluginStub(self.chan)

    def options(self):
        o = self.stub.GetDevicePluginOptions(self.pb.Empty(), timeout=10)
        log('options', resource=self.resource, pre_start_required=o.pre_start_required,
            preferred=o.get_preferred_allocation_available)
        return o

    def run(self):
        threading.Thread(target=self.watch, daemon=True).start()

    def watch(self):
        exercised = False
        try:
            for resp in self.stub.ListAndWatch(self.pb.Empty()):
                devs = [{'id': d.ID, 'health': d.health,
                         'numa': [n.ID for n in d.topology.nodes] if d.HasField('topology') else []}
                        for d in resp.devices]
                log('list', resource=self.resource, devices=devs,
                    healthy=sum(d['health'] == 'Healthy' for d in devs), n=len(devs))
                if not exercised and devs:
                    exercised = True
                    threading.Thread(target=self.exercise, args=(devs,), daemon=True).start()
        except grpc.RpcError as e:
            log('list_end', resource=self.resource, code=str(e.code()), details=e.details())

    def exercise(self, devs):
        pb = self.pb
        # kubelet allocates healthy devices only: those first (a shared
        # resource's are all alike; a VF resource's held VFs are not)
        ids = [d['id'] for d in sorted(devs, key=lambda d: d['health'] != 'Healthy')]
        sick = [d['id'] for d in devs if d['health'] != 'Healthy']
        size = min(self.args.allocate_size, len(ids))
        try:
            q = pb.PreferredAllocationRequest(container_requests=[
                pb.ContainerPreferredAllocationRequest(available_deviceIDs=ids,
                                                       must_include_deviceIDs=ids[-1:],
                                                       allocation_size=size)])
            r = self.stub.GetPreferredAllocation(q, timeout=10)
            log('preferred', resource=self.resource, must=ids[-1:], size=size,
                ids=[list(c.deviceIDs) for c in r.container_responses])
        except grpc.RpcError as e:
            log('preferred_error', resource=self.resource, code=str(e.code()), details=e.details())
        # allocate_unhealthy is what kubelet never asks (it decided while the
        # device was healthy, and then it was taken): the plugin must refuse
        calls = [('allocate', ids[:size]), ('allocate_bad', ['no-such-device'])]
        if sick:
            calls.append(('allocate_unhealthy', sick[:1]))
        for name, req in calls:
            try:
                t0 = time.monotonic()
                r = self.stub.Allocate(pb.AllocateRequest(container_requests=[
                    pb.ContainerAllocateRequest(devices_ids=req)]), timeout=10)
                log(name, resource=self.resource, ms=(time.monotonic() - t0) * 1000,
                    containers=[{'devices': [{'host': d.host_path, 'container': d.container_path,
                                              'perm': d.permissions} for d in c.devices],
                                 'envs': dict(c.envs), 'annotations': dict(c.annotations),
                                 'cdi': [x.name for x in c.cdi_devices]}
                                for c in r.container_responses])
            except grpc.RpcError as e:
                log(name + '_error', resource=self.resource, code=str(e.code()),
                    details=e.details())
        if self.args.bench_allocate:
            def timed(call, req):
                ms = []
                for _ in range(self.args.bench_allocate):
                    t0 = time.monotonic()
                    call(req, timeout=10)
                    ms.append((time.monotonic() - t0) * 1000)
                ms.sort()
                return ms
            # the baseline: an RPC that does nothing, same client, same socket
            base = timed(self.stub.GetDevicePluginOptions, pb.Empty())
            ms = timed(self.stub.Allocate, pb.AllocateRequest(container_requests=[
                pb.ContainerAllocateRequest(devices_ids=ids[:1])]))
            log('allocate_bench', resource=self.resource, n=len(ms), p50_ms=ms[len(ms) // 2],
                p99_ms=ms[int(len(ms) * 0.99) - 1], min_ms=ms[0],
                empty_rpc_p50_ms=base[len(base) // 2])
        if self.args.pods_dir:
            self.admit_pods(devs)
        try:
            self.stub.PreStartContainer(pb.PreStartContainerRequest(devices_ids=ids[:1]),
                                        timeout=10)
            log('prestart', resource=self.resource)
        except grpc.RpcError as e:
            log('prestart_error', resource=self.resource, code=str(e.code()), details=e.details())


    def admit_pods(self, devs):
        """--pods-dir: one pod per device that was Healthy in the first
        list, one at a time, each asking for one device: Allocate, then
        wait for DIR/<n>.started (the test plays the pod's CNI ADD, which
        takes the device) before the next pod."""
        pb = self.pb
        for n, d in enumerate([d for d in devs if d['health'] == 'Healthy']):
            try:
                self.stub.Allocate(pb.AllocateRequest(container_requests=[
                    pb.ContainerAllocateRequest(devices_ids=[d['id']])]), timeout=10)
                log('pod', resource=self.resource, n=n, id=d['id'])
            except grpc.RpcError as e:
                log('pod_error', resource=self.resource, n=n, id=d['id'], code=str(e.code()),
                    details=e.details())
            started = os.path.join(self.args.pods_dir, '%d.started' % n)
            for _ in range(300):
                if os.path.exists(started):
                    break
                time.sleep(0.1)
        log('pods_done', resource=self.resource)


def serve_kubelet(args):
    import deviceplugin_v1beta1_pb2 as pb
    import deviceplugin_v1beta1_pb2_grpc as pbg
    dpdir = os.path.join(args.kubelet_dir, 'device-plugins')
    os.makedirs(dpdir, exist_ok=True)
    # a starting kubelet removes every socket it finds, the plugins' too
    for p in glob.glob(os.path.join(dpdir, '*')):
        if is_socket(p):
            os.unlink(p)
    plugins = {}

    class Registration(pbg.RegistrationServicer):
        def Register(self, req, ctx):
            why = None
            if req.version != 'v1beta1':
                why = 'unsupported version %r' % req.version
            elif not req.endpoint or '/' in req.endpoint:
                why = 'endpoint %r is not a socket name' % req.endpoint
            elif not is_socket(os.path.join(dpdir, req.endpoint)):
                why = 'endpoint %r: no socket there' % req.endpoint
            else:
                why = resource_name_error(req.resource_name)
            if why is None and args.refuse:
                why = 'refused by this fake kubelet (--refuse)'
            log('register', resource=req.resource_name, endpoint=req.endpoint,
                version=req.version, preferred=req.options.get_preferred_allocation_available,
                error=why)
            if why:
                ctx.abort(grpc.StatusCode.INVALID_ARGUMENT, why)
            if args.stall:
                time.sleep(3600)	# a kubelet that never answers
            # kubelet dials the plugin back before it answers
            p = Plugin(req.resource_name, os.path.join(dpdir, req.endpoint), args)
            try:
                p.options()
            except grpc.RpcError as e:
                log('dialback_error', resource=req.resource_name, code=str(e.code()))
                ctx.abort(grpc.StatusCode.UNAVAILABLE, 'cannot dial the plugin back')
            plugins[req.resource_name] = p
            p.run()
            return pb.Empty()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
    pbg.add_RegistrationServicer_to_server(Registration(), server)
    sock = os.path.join(dpdir, 'kubelet.sock')
    server.add_insecure_port('unix://' + sock)
    server.start()
    log('kubelet_up', sock=sock)
    server.wait_for_termination()


def watch_registry(args):
    import pluginregistration_v1_pb2 as rpb
    import pluginregistration_v1_pb2_grpc as rpbg
    regdir = os.path.join(args.kubelet_dir, 'plugins_registry')
    os.makedirs(regdir, exist_ok=True)
    seen = set()
    log('watcher_up', dir=regdir)
    while True:
        for sock in sorted(glob.glob(os.path.join(regdir, '*.sock'))):
            st = os.stat(sock)
            key = (sock, st.st_ino)
            if key in seen or not is_socket(sock):
                continue
            seen.add(key)
            stub = rpbg.RegistrationStub(grpc.insecure_channel('unix:' + sock))
            try:
                info = stub.GetInfo(rpb.InfoRequest(), timeout=10)
            except grpc.RpcError as e:
                log('getinfo_error', sock=sock, code=str(e.code()))
                continue
            if info.type == 'DRAPlugin':
                # kubelet's watcher hands those to its DRA manager; here
                # that is kubelet_dra.py's job (selftests/dra): left alone
                log('getinfo_skipped', sock=sock, type=info.type)
                continue
            why = None
            if info.type != 'DevicePlugin':
                why = 'type %r' % info.type
            elif 'v1beta1' not in info.supported_versions:
                why = 'versions %r' % list(info.supported_versions)
            elif not is_socket(info.endpoint):
                why = 'endpoint %r is not a socket' % info.endpoint
            else:
                why = resource_name_error(info.name)
            if why is None and args.refuse:
                why = 'refused by this fake kubelet (--refuse)'
            log('getinfo', resource=info.name, endpoint=info.endpoint, type=info.type,
                versions=list(info.supported_versions), error=why)
            if not why:
                p = Plugin(info.name, info.endpoint, args)
                try:
                    p.options()
                except grpc.RpcError as e:
                    why = 'dial back: %s' % e.code()
            stub.NotifyRegistrationStatus(rpb.RegistrationStatus(
                plugin_registered=why is None, error=why or ''), timeout=10)
            if why is None:
                p.run()
        time.sleep(0.2)


def main():
    global _log_file
    ap = argparse.ArgumentParser()
    ap.add_argument('--kubelet-dir', required=True)
    ap.add_argument('--log', required=True)
    ap.add_argument('--refuse', action='store_true')
    ap.add_argument('--watcher', action='store_true')
    ap.add_argument('--stall', action='store_true')
    ap.add_argument('--bench-allocate', type=int, default=0,
                    help='time this many Allocate calls (one container, one ID)')
    ap.add_argument('--allocate-size', type=int, default=2)
    ap.add_argument('--pods-dir', default='',
                    help='admit one pod per healthy device, one at a time (admit_pods)')
    args = ap.parse_args()
    _log_file = open(args.log, 'a')
    gen_stubs()
    if args.watcher:
        watch_registry(args)
    else:
        serve_kubelet(args)


if __name__ == '__main__':
    main()
