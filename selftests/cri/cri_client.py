#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""A CRI client for tests: the calls kubelet makes for a pod sandbox, over
the CRI gRPC API (runtime.v1, selftests/cri/api/api.proto).

    cri_client.py --stubs DIR --address UNIX_SOCKET COMMAND [ARGS]

  version
  status              JSON: conditions {type: bool}, info (the runtime's; containerd:
                      the CNI config it loaded)
  run-pod NAME UID NAMESPACE [--attempt N] [--network pod|node]
          [--annotation K=V]... [--label K=V]...   prints the sandbox id
  stop-pod ID
  remove-pod ID
  pod-status ID [--verbose]   JSON: id, state, metadata, network {ip,
                      additional_ips}, annotations; --verbose: info (the runtime's)
  list                JSON: [{id, state, metadata}]

The Python stubs are generated from api.proto into DIR at first use (the
test's build dir; nothing generated is kept in the source tree). A failed
call prints the gRPC status code and message on stderr and exits 1;
bad arguments exit 2.
"""
import argparse
import json
import os
import re
import subprocess
import sys

API_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api")


def load_stubs(out):
    """api_pb2 and api_pb2_grpc from api.proto, generated into OUT if older.
    protoc of python3-grpc-tools predates the debug_redact field option
    (it only hides secrets in text output): it is left out of the copy
    compiled, the wire format is the same."""
    src = os.path.join(API_DIR, "api.proto")
    gen = os.path.join(out, "api_pb2_grpc.py")
    if not os.path.exists(gen) or os.path.getmtime(gen) < os.path.getmtime(src):
        os.makedirs(out, exist_ok=True)
        with open(src) as f:
            text = re.sub(r"\s*\[debug_redact = true\]", "", f.read())
        with open(os.path.join(out, "api.proto"), "w") as f:
            f.write(text)
        subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", out,
                        "--python_out", out, "--grpc_python_out", out,
                        os.path.join(out, "api.proto")], check=True)
    sys.path.insert(0, out)
    import api_pb2
    import api_pb2_grpc
    return api_pb2, api_pb2_grpc


def key_values(pairs):
    out = {}
    for p in pairs or []:
        if "=" not in p:
            raise SystemExit(2)
        k, v = p.split("=", 1)
        out[k] = v
    return out


def info_json(info):
    """A runtime's verbose info: values that are JSON decoded, others as given."""
    out = {}
    for k, v in info.items():
        try:
            out[k] = json.loads(v)
        except ValueError:
            out[k] = v
    return out


def metadata(m):
    return {"name": m.name, "uid": m.uid, "namespace": m.namespace, "attempt": m.attempt}


def main():
    ap = argparse.ArgumentParser(description="CRI client for tests (runtime.v1)")
    ap.add_argument("--stubs", required=True, help="where the generated stubs go")
    ap.add_argument("--address", required=True, help="the runtime's CRI unix socket")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per call")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("version")
    sub.add_parser("status")
    rp = sub.add_parser("run-pod")
    rp.add_argument("name")
    rp.add_argument("uid")
    rp.add_argument("namespace")
    rp.add_argument("--attempt", type=int, default=0)
    rp.add_argument("--network", choices=["pod", "node"], default="pod",
                    help="pod: its own netns (CNI is called); node: hostNetwork")
    rp.add_argument("--annotation", action="append")
    rp.add_argument("--label", action="append")
    rp.add_argument("--runtime-handler", default="")
    for c in ("stop-pod", "remove-pod"):
        sub.add_parser(c).add_argument("id")
    ps = sub.add_parser("pod-status")
    ps.add_argument("id")
    ps.add_argument("--verbose", action="store_true",
                    help="add the runtime's info (containerd: its netns path, CNI result)")
    sub.add_parser("list")
    a = ap.parse_args()

    pb, pb_grpc = load_stubs(a.stubs)
    import grpc
    channel = grpc.insecure_channel("unix://" + a.address)
    rt = pb_grpc.RuntimeServiceStub(channel)
    t = a.timeout
    try:
        if a.cmd == "version":
            r = rt.Version(pb.VersionRequest(version="v1"), timeout=t)
            print(json.dumps({"version": r.version, "runtime_name": r.runtime_name,
                              "runtime_version": r.runtime_version,
                              "runtime_api_version": r.runtime_api_version}))
        elif a.cmd == "status":
            r = rt.Status(pb.StatusRequest(verbose=True), timeout=t)
            print(json.dumps({
                "conditions": {c.type: c.status for c in r.status.conditions},
                "info": info_json(r.info)}))
        elif a.cmd == "run-pod":
            mode = pb.NODE if a.network == "node" else pb.POD
            cfg = pb.PodSandboxConfig(
                metadata=pb.PodSandboxMetadata(name=a.name, uid=a.uid,
                                               namespace=a.namespace, attempt=a.attempt),
                # a hostNetwork sandbox shares the node's UTS namespace: no hostname
                hostname="" if a.network == "node" else a.name,
                labels=key_values(a.label),
                annotations=key_values(a.annotation),
                linux=pb.LinuxPodSandboxConfig(
                    security_context=pb.LinuxSandboxSecurityContext(
                        namespace_options=pb.NamespaceOption(network=mode, pid=pb.POD,
                                                             ipc=pb.POD))))
            r = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg,
                                 runtime_handler=a.runtime_handler), timeout=t)
            print(r.pod_sandbox_id)
        elif a.cmd == "stop-pod":
            rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=a.id), timeout=t)
        elif a.cmd == "remove-pod":
            rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=a.id), timeout=t)
        elif a.cmd == "pod-status":
            r = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=a.id,
                                                               verbose=a.verbose), timeout=t)
            s = r.status
            out = {
                "id": s.id, "state": pb.PodSandboxState.Name(s.state),
                "metadata": metadata(s.metadata),
                "network": {"ip": s.network.ip,
                            "additional_ips": [x.ip for x in s.network.additional_ips]},
                "annotations": dict(s.annotations)}
            if a.verbose:
                out["info"] = info_json(r.info)
            print(json.dumps(out))
        elif a.cmd == "list":
            r = rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=t)
            print(json.dumps([{"id": p.id, "state": pb.PodSandboxState.Name(p.state),
                               "metadata": metadata(p.metadata)} for p in r.items]))
    except grpc.RpcError as e:
        print("%s: %s: %s" % (a.cmd, e.code().name, e.details()), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
