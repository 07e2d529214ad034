#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Compare the RDMA_NLDEV_CMD_SET requests in an nlmon capture.

Usage: nl_rdma_set.py FILE.pcap

Finds every netlink request of type RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
RDMA_NLDEV_CMD_SET) (0x1402) with the REQUEST flag, prints its flags and
attributes, and exits 0 only if there are at least two (rdmanet's and
iproute2's) and all carry the same flags and the same attributes
(RDMA_NLDEV_ATTR_DEV_INDEX with the same value, RDMA_NLDEV_NET_NS_FD as a
u32: its value is a file descriptor of each process, so only its presence
and size are compared), and every answer to them is the same error."""
import struct
import sys

NLDEV_SET = (5 << 10) | 2
NLM_F_REQUEST = 1
ATTR_NAMES = {1: "DEV_INDEX", 2: "DEV_NAME", 0x44: "NET_NS_FD"}


def packets(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    linktype = struct.unpack_from(endian + "I", data, 20)[0]
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack_from(endian + "IIII", data, off)
        off += 16
        yield linktype, data[off:off + incl]
        off += incl


def messages(path):
    for linktype, pkt in packets(path):
        # LINKTYPE_NETLINK (253): a 16-byte cooked header, then the message
        start = 16 if linktype == 253 else 0
        body = pkt[start:]
        while len(body) >= 16:
            ln, typ, flags, seq, pid = struct.unpack_from("=IHHII", body, 0)
            if ln < 16 or ln > len(body):
                break
            yield typ, flags, seq, pid, body[16:ln]
            body = body[(ln + 3) & ~3:]


def attrs(payload):
    out = []
    while len(payload) >= 4:
        ln, typ = struct.unpack_from("=HH", payload, 0)
        if ln < 4:
            break
        val = payload[4:ln]
        out.append((typ & 0x3FFF, val))
        payload = payload[(ln + 3) & ~3:]
    return out


def main():
    reqs, errs = [], {}
    for typ, flags, seq, pid, payload in messages(sys.argv[1]):
        if typ == NLDEV_SET and flags & NLM_F_REQUEST:
            reqs.append((flags, seq, attrs(payload)))
        elif typ == 2 and len(payload) >= 20:  # NLMSG_ERROR: error, then the request header
            err = struct.unpack_from("=i", payload, 0)[0]
            otyp, _, oseq = struct.unpack_from("=HHI", payload, 8)
            if otyp == NLDEV_SET:
                errs[oseq] = err
    shapes = []
    for flags, seq, at in reqs:
        desc = []
        for t, v in at:
            name = ATTR_NAMES.get(t, "attr%d" % t)
            if name == "NET_NS_FD":
                desc.append("%s(u32, %d bytes)" % (name, len(v)))
            elif len(v) == 4:
                desc.append("%s=%d" % (name, struct.unpack("=I", v)[0]))
            else:
                desc.append("%s(%d bytes)" % (name, len(v)))
        shape = "flags=0x%x %s" % (flags, " ".join(desc))
        print("request seq %d: %s -> error %s" % (seq, shape, errs.get(seq, "?")))
        shapes.append((shape, errs.get(seq)))
    if len(shapes) < 2:
        print("fewer than two RDMA_NLDEV_CMD_SET requests captured")
        return 1
    if len(set(shapes)) != 1:
        print("the requests differ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
