#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""An OCI image archive holding one static binary as the sandbox's pause
process, made by hand so that no registry is needed:

    pause_image.py STATIC_BINARY IMAGE_NAME OUT.tar [ARG...]

The binary becomes /pause, the image's entrypoint is /pause ARG...; the
index names the image for `ctr images import` (io.containerd.image.name).
"""
import hashlib
import io
import json
import sys
import tarfile


def blob(layout, data, media_type):
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    layout.append((digest, data))
    return {"mediaType": media_type, "digest": digest, "size": len(data)}


def add_bytes(tar, name, data, mode=0o644):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = mode
    tar.addfile(info, io.BytesIO(data))


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: pause_image.py STATIC_BINARY IMAGE_NAME OUT.tar [ARG...]")
    binary, name, out, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    with open(binary, "rb") as f:
        exe = f.read()

    layer_buf = io.BytesIO()
    with tarfile.open(fileobj=layer_buf, mode="w", format=tarfile.PAX_FORMAT) as layer:
        add_bytes(layer, "pause", exe, 0o755)
    layer_data = layer_buf.getvalue()
    diff_id = "sha256:" + hashlib.sha256(layer_data).hexdigest()

    blobs = []
    config = json.dumps({
        "architecture": "amd64", "os": "linux",
        "config": {"Entrypoint": ["/pause"] + args, "User": "65535:65535"},
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
    }, sort_keys=True).encode()
    manifest = json.dumps({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": blob(blobs, config, "application/vnd.oci.image.config.v1+json"),
        "layers": [blob(blobs, layer_data, "application/vnd.oci.image.layer.v1.tar")],
    }, sort_keys=True).encode()
    mdesc = blob(blobs, manifest, "application/vnd.oci.image.manifest.v1+json")
    mdesc["annotations"] = {"io.containerd.image.name": name,
                            "org.opencontainers.image.ref.name": name.rsplit(":", 1)[-1]}
    mdesc["platform"] = {"architecture": "amd64", "os": "linux"}
    index = json.dumps({"schemaVersion": 2, "manifests": [mdesc]}).encode()

    with tarfile.open(out, "w") as tar:
        add_bytes(tar, "oci-layout", b'{"imageLayoutVersion": "1.0.0"}')
        add_bytes(tar, "index.json", index)
        for digest, data in blobs:
            add_bytes(tar, "blobs/sha256/" + digest.split(":", 1)[1], data)


if __name__ == "__main__":
    main()
