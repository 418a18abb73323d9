#!/usr/bin/env python3
"""The moving parts of the demo scene, run by scripts/demo.sh in the guest.

demo-scene.py serve ADDR...
    In the current namespace: for every ADDR, a TCP server on port 80 that
    answers every line with "pong", and a UDP server on port 53 that
    answers every datagram; one process, no fork per client or packet.

demo-scene.py clients OUTDIR BACKEND... -- NSPATH...
    In every namespace NSPATH (setns() in, back out after), a TCP and a
    connected UDP client to every BACKEND.  OUTDIR/ready once connected;
    then every 0.5 s each live client sends "ping" and counts the replies.
    OUTDIR/pod-N-PROTO-B gets a line per reply (N: position of NSPATH from
    1, B: position of BACKEND from 1), and OUTDIR/pod-N-PROTO-B.err the
    error that ended the client, as "[Errno 103] Software caused
    connection abort" for a destroyed socket.

Under TCG a shell loop per client (fork and exec every half second, times
300 clients) starves the guest, hence one process for each side.
"""
import ctypes
import errno
import os
import selectors
import socket
import sys
import time

CLONE_NEWNET = 0x40000000
TRANSIENT = (errno.EHOSTUNREACH, errno.ENETUNREACH, errno.ECONNREFUSED)
libc = ctypes.CDLL(None, use_errno=True)


def setns(fd):
    if libc.setns(fd, CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "setns: " + os.strerror(e))


def serve(addrs):
    sel = selectors.DefaultSelector()
    for a in addrs:
        t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        t.bind((a, 80))
        t.listen(512)
        sel.register(t, selectors.EVENT_READ, "listen")
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind((a, 53))
        sel.register(u, selectors.EVENT_READ, "udp")
    while True:
        for key, _ in sel.select():
            s = key.fileobj
            try:
                if key.data == "listen":
                    c, _ = s.accept()
                    c.setblocking(False)
                    sel.register(c, selectors.EVENT_READ, "tcp")
                elif key.data == "udp":
                    _, peer = s.recvfrom(512)
                    s.sendto(b"pong\n", peer)
                else:
                    d = s.recv(4096)
                    if not d:
                        raise OSError("closed")
                    s.send(b"pong\n" * d.count(b"\n"))
            except OSError:
                if key.data == "tcp":
                    sel.unregister(s)
                    s.close()


def clients(out, backends, nspaths):
    self_fd = os.open("/proc/self/ns/net", os.O_RDONLY)
    live = []
    for n, path in enumerate(nspaths, 1):
        fd = os.open(path, os.O_RDONLY)
        setns(fd)
        try:
            for b, addr in enumerate(backends, 1):
                t = socket.create_connection((addr, 80), timeout=30)
                u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                u.connect((addr, 53))
                for proto, s in (("tcp", t), ("udp", u)):
                    s.setblocking(False)
                    name = os.path.join(out, "pod-%d-%s-%d" % (n, proto, b))
                    live.append([s, open(name, "a"), name + ".err"])
        finally:
            setns(self_fd)
            os.close(fd)
    open(os.path.join(out, "ready"), "w").close()
    while True:
        for c in live:
            s, log, err = c
            if s is None:
                continue
            try:
                while True:
                    try:
                        d = s.recv(4096)
                    except BlockingIOError:
                        break
                    if not d:
                        raise OSError("connection closed by the backend")
                    log.write("pong\n" * max(1, d.count(b"\n")))
                s.send(b"ping\n")
            except OSError as e:
                # ICMP from the backends' side (the removed address is no
                # longer routed) is a transient error on UDP, not the end.
                if e.errno in TRANSIENT:
                    continue
                with open(err, "w") as f:
                    f.write("%s\n" % e)
                s.close()
                c[0] = None
            log.flush()
        time.sleep(0.5)


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "serve":
        serve(sys.argv[2:])
    elif len(sys.argv) > 4 and sys.argv[1] == "clients" and "--" in sys.argv:
        i = sys.argv.index("--")
        clients(sys.argv[2], sys.argv[3:i], sys.argv[i + 1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
