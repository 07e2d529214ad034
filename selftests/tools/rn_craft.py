#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Sends one crafted Ethernet frame with AF_PACKET, as an attacker in a pod
would (test_pod_attack.sh).

  rn_craft.py IFNAME KIND [key=value ...]

KIND: udp4 (to dst, from src), arp (op, sha, spa, tpa), na (src, target,
tlla), ns (src, target, slla or none), udp6. Common keys: smac (Ethernet
source; default the interface's), dmac (default broadcast / the IPv6
multicast), vlans (comma list of 802.1Q tags, outermost first), ext
(IPv6 destination-options headers before the ICMPv6/UDP header)."""
import errno
import ipaddress
import socket
import struct
import sys


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4(src, dst, proto, payload):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0, 64, proto, 0,
                      socket.inet_aton(src), socket.inet_aton(dst))
    return hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:] + payload


def ipv6(src, dst, nxt, payload, ext):
    s, d = socket.inet_pton(socket.AF_INET6, src), socket.inet_pton(socket.AF_INET6, dst)
    if nxt == 58:
        pseudo = s + d + struct.pack("!I3xB", len(payload), 58)
        payload = payload[:2] + struct.pack("!H", csum(pseudo + payload)) + payload[4:]
    for _ in range(ext):
        # destination options: next header, length 0 (8 bytes), PadN
        payload = struct.pack("!BBBB4x", nxt, 0, 1, 4) + payload
        nxt = 60
    return struct.pack("!IHBB", 0x60000000, len(payload), nxt, 255) + s + d + payload


def solicited(addr):
    a = ipaddress.IPv6Address(addr).packed
    return str(ipaddress.IPv6Address(b"\xff\x02" + b"\0" * 9 + b"\x01\xff" + a[13:]))


def multicast_mac(addr):
    a = ipaddress.IPv6Address(addr).packed
    return b"\x33\x33" + a[12:]


def main():
    ifname, kind = sys.argv[1], sys.argv[2]
    kv = dict(a.split("=", 1) for a in sys.argv[3:])
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((ifname, 0))
    own = sock.getsockname()[4]
    smac = mac(kv["smac"]) if "smac" in kv else own
    dmac = mac(kv["dmac"]) if "dmac" in kv else b"\xff" * 6
    ext = int(kv.get("ext", "0"))
    if kind == "udp4":
        body = struct.pack("!HHHH", 40000, int(kv.get("port", "9")), 8 + 16, 0) + b"rn-craft" * 2
        etype, l3 = 0x0800, ipv4(kv["src"], kv["dst"], 17, body)
    elif kind == "arp":
        sha = mac(kv["sha"]) if "sha" in kv else smac
        etype = 0x0806
        l3 = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, int(kv.get("op", "2")), sha,
                         socket.inet_aton(kv["spa"]), b"\xff" * 6 if kv.get("op", "2") == "2"
                         else b"\0" * 6, socket.inet_aton(kv["tpa"]))
    elif kind in ("na", "ns"):
        target = socket.inet_pton(socket.AF_INET6, kv["target"])
        if kind == "na":
            lla = mac(kv["tlla"]) if "tlla" in kv else smac
            icmp = struct.pack("!BBHI", 136, 0, 0, 0x20000000) + target + \
                struct.pack("!BB6s", 2, 1, lla)
            dst = kv.get("dst", "ff02::1")
        else:
            icmp = struct.pack("!BBHI", 135, 0, 0, 0) + target
            if kv.get("slla", "own") != "none":
                icmp += struct.pack("!BB6s", 1, 1, mac(kv["slla"]) if "slla" in kv else smac)
            dst = kv.get("dst", solicited(kv["target"]))
        if "dmac" not in kv:
            dmac = multicast_mac(dst)
        etype, l3 = 0x86DD, ipv6(kv["src"], dst, 58, icmp, ext)
    elif kind == "udp6":
        body = struct.pack("!HHHH", 40000, int(kv.get("port", "9")), 8 + 16, 0) + b"rn-craft" * 2
        etype, l3 = 0x86DD, ipv6(kv["src"], kv["dst"], 17, body, ext)
    else:
        sys.exit("unknown kind " + kind)
    tags = b""
    for v in (kv["vlans"].split(",") if kv.get("vlans") else []):
        tags += struct.pack("!HH", 0x8100, int(v))
    frame = dmac + smac + tags + struct.pack("!H", etype) + l3
    try:
        sock.send(frame + b"\0" * max(0, 60 - len(frame)))
    except OSError as e:
        # a tc drop on the way out: what the tests look for
        if e.errno != errno.ENOBUFS:
            raise


if __name__ == "__main__":
    main()
