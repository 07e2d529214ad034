#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Compare the RDMA_NLDEV_CMD_SET requests two programs sent.

Usage: nl_rdma_set.py OURS.strace THEIRS.strace

Each file is `strace -f -e trace=sendto,sendmsg -e write=all` output: the
bytes of every netlink message sent, as hex dump lines. (An nlmon device
cannot show them: the kernel taps only some netlink families for nlmon,
and NETLINK_RDMA is not one of them.) Every message of type
RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SET) = 0x1402 is printed
with its flags and attributes; exit 0 only if each file has one and all of
them have the same flags and the same attributes: RDMA_NLDEV_ATTR_DEV_INDEX
with the same value, RDMA_NLDEV_NET_NS_FD a u32 (its value is a file
descriptor of each process, so only its presence and size count)."""
import re
import struct
import sys

NLDEV_SET = (5 << 10) | 2
NAMES = {1: "DEV_INDEX", 2: "DEV_NAME", 68: "NET_NS_FD"}
DUMP = re.compile(r"^ \| [0-9a-f]{5}  ((?:[0-9a-f]{2} {1,2}){1,16})")


def buffers(path):
    buf = bytearray()
    with open(path) as f:
        for line in f:
            m = DUMP.match(line)
            if m:
                buf += bytes.fromhex(m.group(1).replace(" ", ""))
            elif buf and not line.startswith(" * "):
                yield bytes(buf)
                buf = bytearray()
    if buf:
        yield bytes(buf)


def requests(path):
    for b in buffers(path):
        while len(b) >= 16:
            ln, typ, flags = struct.unpack_from("=IHH", b, 0)
            if ln < 16 or ln > len(b):
                break
            if typ == NLDEV_SET:
                yield flags, b[16:ln]
            b = b[(ln + 3) & ~3:]


def shape(flags, payload):
    desc = []
    while len(payload) >= 4:
        ln, typ = struct.unpack_from("=HH", payload, 0)
        if ln < 4:
            break
        val, name = payload[4:ln], NAMES.get(typ & 0x3FFF, "attr%d" % (typ & 0x3FFF))
        if name == "NET_NS_FD":
            desc.append("%s(%d bytes)" % (name, len(val)))
        elif len(val) == 4:
            desc.append("%s=%d" % (name, struct.unpack("=I", val)[0]))
        else:
            desc.append("%s(%d bytes)" % (name, len(val)))
        payload = payload[(ln + 3) & ~3:]
    return "flags=0x%x %s" % (flags, " ".join(desc))


def main():
    seen = []
    for path in sys.argv[1:3]:
        found = [shape(f, p) for f, p in requests(path)]
        for s in found:
            print("%s: RDMA_NLDEV_CMD_SET %s" % (path, s))
        if not found:
            print("%s: no RDMA_NLDEV_CMD_SET request" % path)
            return 1
        seen += found
    if len(set(seen)) != 1:
        print("the requests differ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
