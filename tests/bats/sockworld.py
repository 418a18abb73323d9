#!/usr/bin/env python3
"""Hold a world of sockets across network namespaces for the guest tests.

sockworld.py OUTDIR NETNS...

In each named namespace (/run/netns/NAME) it opens, from this one process
(setns() between namespaces, back to its own after each):
  backend X  = 127.0.0.1:8080 (TCP) and 127.0.0.1:5353 (UDP)
  backend Y  = [::1]:8081 (TCP, IPv6 only)
  other      = 127.0.0.2:8082 (TCP), which no test destroys
  deferred   = 127.0.0.1:8083 (TCP, TCP_DEFER_ACCEPT), which no test destroys
  TCP: the four listeners; clients to X over IPv4 and IPv4-mapped IPv6, to
       Y and to other, with their accepted peers; one TIME_WAIT socket; a
       client of deferred, whose data-less ACK the listener ignores, so its
       server side stays a request socket (TCP_NEW_SYN_RECV, ss: SYN-RECV)
  UDP: an unconnected server on X, clients connected to X (IPv4 and
       IPv4-mapped IPv6) and to [::1]:5354, one unconnected bound socket
It writes OUTDIR/world (one line per client socket: NETNS ROLE FD) and
OUTDIR/ready, then serves "check" requests: on SIGUSR1 it probes every
client socket with a non-blocking recv() and writes OUTDIR/status lines
"NETNS ROLE alive|ECONNABORTED|errno-name", then OUTDIR/checked.
"""
import ctypes
import errno
import os
import signal
import socket
import sys
import time

CLONE_NEWNET = 0x40000000
libc = ctypes.CDLL(None, use_errno=True)


def setns(fd):
    if libc.setns(fd, CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "setns: " + os.strerror(e))


def tcp_listen(fam, addr, port, v6only=False):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if v6only:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.bind((addr, port))
    s.listen(64)
    return s


def tcp_pair(fam, lst, addr, port):
    c = socket.socket(fam, socket.SOCK_STREAM)
    c.connect((addr, port))
    p, _ = lst.accept()
    return c, p


def build(ns):
    held, clients = [], []
    os.system("ip -n %s link set lo up" % ns)
    os.system("ip -n %s addr add 127.0.0.2/8 dev lo 2>/dev/null" % ns)
    time.sleep(0.05)
    lx = tcp_listen(socket.AF_INET6, "::", 8080)   # dual stack: X
    ly = tcp_listen(socket.AF_INET6, "::1", 8081, v6only=True)
    lo = tcp_listen(socket.AF_INET, "127.0.0.2", 8082)
    ld = tcp_listen(socket.AF_INET, "127.0.0.1", 8083)
    ld.setsockopt(socket.IPPROTO_TCP, socket.TCP_DEFER_ACCEPT, 3600)
    held += [lx, ly, lo, ld]
    for role, fam, addr, lst, port in (
            ("tcp-x-v4", socket.AF_INET, "127.0.0.1", lx, 8080),
            ("tcp-x-mapped", socket.AF_INET6, "::ffff:127.0.0.1", lx, 8080),
            ("tcp-y-v6", socket.AF_INET6, "::1", ly, 8081),
            ("tcp-other", socket.AF_INET, "127.0.0.2", lo, 8082)):
        c, p = tcp_pair(fam, lst, addr, port)
        clients.append((role, c))
        held.append(p)
    # TIME_WAIT: the client closes first, then its peer.
    c, p = tcp_pair(socket.AF_INET, lx, "127.0.0.1", 8080)
    c.close()
    time.sleep(0.02)
    p.close()
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    c.connect(("127.0.0.1", 8083))
    clients.append(("tcp-req", c))
    us = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    us.bind(("::", 5353))                             # unconnected, on X
    held.append(us)
    for role, fam, addr, port in (
            ("udp-x-v4", socket.AF_INET, "127.0.0.1", 5353),
            ("udp-x-mapped", socket.AF_INET6, "::ffff:127.0.0.1", 5353),
            ("udp-y-v6", socket.AF_INET6, "::1", 5354)):
        u = socket.socket(fam, socket.SOCK_DGRAM)
        u.connect((addr, port))
        clients.append((role, u))
    ub = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ub.bind(("0.0.0.0", 6000))
    clients.append(("udp-unconnected", ub))
    return held, clients


def probe(s):
    try:
        s.recv(1, socket.MSG_DONTWAIT)
        return "alive"
    except BlockingIOError:
        return "alive"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))


def main():
    out, names = sys.argv[1], sys.argv[2:]
    self_fd = os.open("/proc/self/ns/net", os.O_RDONLY)
    world = []
    keep = []
    for ns in names:
        fd = os.open("/run/netns/" + ns, os.O_RDONLY)
        setns(fd)
        try:
            held, clients = build(ns)
        finally:
            setns(self_fd)
            os.close(fd)
        keep += held
        world += [(ns, role, s) for role, s in clients]
    with open(os.path.join(out, "world"), "w") as f:
        for ns, role, s in world:
            f.write("%s %s %d\n" % (ns, role, s.fileno()))
    checks = []
    signal.signal(signal.SIGUSR1, lambda *_: checks.append(1))
    open(os.path.join(out, "ready"), "w").close()
    while True:
        signal.pause()
        while checks:
            checks.pop()
            with open(os.path.join(out, "status.tmp"), "w") as f:
                for ns, role, s in world:
                    f.write("%s %s %s\n" % (ns, role, probe(s)))
            os.rename(os.path.join(out, "status.tmp"),
                      os.path.join(out, "status"))
            open(os.path.join(out, "checked"), "w").close()


if __name__ == "__main__":
    main()
