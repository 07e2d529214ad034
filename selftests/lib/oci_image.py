#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""An OCI image archive of a few host files, for `ctr images import` into the
test cluster's nodes (no registry can be reached):

    oci_image.py NAME OUT.tar [--entrypoint ARG]... [--user UID:GID]
                 SRC:DEST[:MODE]... [--link DEST:TARGET]...

Each SRC file becomes DEST in one layer (MODE octal, default 0755); each
--link a symlink. The index names the image (io.containerd.image.name).
"""
import argparse
import hashlib
import io
import json
import tarfile


def blob(blobs, data, media_type):
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    blobs.append((digest, data))
    return {"mediaType": media_type, "digest": digest, "size": len(data)}


def add_bytes(tar, name, data, mode=0o644):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = mode
    tar.addfile(info, io.BytesIO(data))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("name")
    p.add_argument("out")
    p.add_argument("files", nargs="*")
    p.add_argument("--entrypoint", action="append", default=[])
    p.add_argument("--link", action="append", default=[])
    p.add_argument("--user", default="")
    a = p.parse_intermixed_args()

    layer_buf = io.BytesIO()
    dirs = set()
    with tarfile.open(fileobj=layer_buf, mode="w", format=tarfile.PAX_FORMAT) as layer:
        def parents(path):
            parts = path.strip("/").split("/")[:-1]
            for i in range(1, len(parts) + 1):
                d = "/".join(parts[:i])
                if d not in dirs:
                    dirs.add(d)
                    info = tarfile.TarInfo(d)
                    info.type = tarfile.DIRTYPE
                    info.mode = 0o755
                    layer.addfile(info)
        for spec in a.files:
            src, dest, *mode = spec.split(":")
            with open(src, "rb") as f:
                data = f.read()
            parents(dest)
            add_bytes(layer, dest.strip("/"), data, int(mode[0], 8) if mode else 0o755)
        for spec in a.link:
            dest, target = spec.split(":", 1)
            parents(dest)
            info = tarfile.TarInfo(dest.strip("/"))
            info.type = tarfile.SYMTYPE
            info.linkname = target
            layer.addfile(info)
    layer_data = layer_buf.getvalue()
    diff_id = "sha256:" + hashlib.sha256(layer_data).hexdigest()

    blobs = []
    cfg = {"Entrypoint": a.entrypoint or None, "Env": ["PATH=/bin:/usr/bin:/sbin:/usr/sbin"]}
    if a.user:
        cfg["User"] = a.user
    config = json.dumps({
        "architecture": "amd64", "os": "linux", "config": cfg,
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
    }, sort_keys=True).encode()
    manifest = json.dumps({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": blob(blobs, config, "application/vnd.oci.image.config.v1+json"),
        "layers": [blob(blobs, layer_data, "application/vnd.oci.image.layer.v1.tar")],
    }, sort_keys=True).encode()
    mdesc = blob(blobs, manifest, "application/vnd.oci.image.manifest.v1+json")
    mdesc["annotations"] = {"io.containerd.image.name": a.name,
                            "org.opencontainers.image.ref.name": a.name.rsplit(":", 1)[-1]}
    mdesc["platform"] = {"architecture": "amd64", "os": "linux"}
    index = json.dumps({"schemaVersion": 2, "manifests": [mdesc]}).encode()

    with tarfile.open(a.out, "w") as tar:
        add_bytes(tar, "oci-layout", b'{"imageLayoutVersion": "1.0.0"}')
        add_bytes(tar, "index.json", index)
        for digest, data in blobs:
            add_bytes(tar, "blobs/sha256/" + digest.split(":", 1)[1], data)


if __name__ == "__main__":
    main()
