"""The sandbox's way out: listens on 127.0.0.1:PORT inside a run's network namespace and relays every connection to
the run's egress proxy, whose Unix socket is bound into the sandbox. Clients inside only know HTTP proxies on TCP
(http_proxy=http://127.0.0.1:3128); the proxy itself sits on the host. The bwrap backend starts it before the
command (server/sandbox/bwrap-egress.ts) and it dies with the sandbox's PID namespace.

Standard library only, run with /usr/bin/python3 -I -S. One process, one thread (selectors): threads would count
against the run's RLIMIT_NPROC. A deep listen backlog, because package installers open bursts of connections.

Usage: forward.py SOCKET PORT. Prints "ready PORT" on stdout once it listens (PORT 0: one the system picks), then
closes stdout.
"""

import errno
import os
import selectors
import socket
import sys

CHUNK = 256 * 1024
# Bytes held for a side that does not read; past it the other side is not read either (back-pressure).
HIGH_WATER = 1024 * 1024


class Side:
    """One end of a relayed connection, with the bytes waiting to be written to it."""

    def __init__(self, sock):
        self.sock = sock
        self.peer = None
        self.pending = bytearray()
        self.read_done = False  # EOF (or error) read from this side
        self.write_shut = False  # SHUT_WR sent to this side
        self.closed = False


class Relay:
    def __init__(self, socket_path, port):
        self.socket_path = socket_path
        self.selector = selectors.DefaultSelector()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", port))
        self.listener.listen(1024)
        self.listener.setblocking(False)
        self.selector.register(self.listener, selectors.EVENT_READ, None)

    def accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                # Blocking, with a bound: a Unix connect only waits when the proxy's backlog is full.
                upstream.settimeout(10)
                upstream.connect(self.socket_path)
            except OSError:
                client.close()
                upstream.close()
                continue
            client.setblocking(False)
            upstream.setblocking(False)
            a, b = Side(client), Side(upstream)
            a.peer, b.peer = b, a
            for side in (a, b):
                self.selector.register(side.sock, selectors.EVENT_READ, side)

    def close(self, side):
        for s in (side, side.peer):
            if s.closed:
                continue
            s.closed = True
            try:
                self.selector.unregister(s.sock)
            except (KeyError, ValueError):
                pass
            s.sock.close()

    def on_read(self, side):
        try:
            data = side.sock.recv(CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self.close(side)
            return
        if data:
            peer = side.peer
            if peer.pending or peer.closed:
                peer.pending += data
                self.flush(peer)
                return
            # Nothing queued for the peer: send straight from what was read, keeping only what did not fit.
            try:
                sent = peer.sock.send(data)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError:
                self.close(peer)
                return
            if sent < len(data):
                peer.pending += memoryview(data)[sent:]
            return
        side.read_done = True
        if not side.peer.pending:
            self.shut_write(side.peer)

    def shut_write(self, side):
        if side.write_shut or side.closed:
            return
        side.write_shut = True
        try:
            side.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        if side.read_done and side.peer.write_shut:
            self.close(side)

    def flush(self, side):
        if side.closed:
            return
        while side.pending:
            try:
                sent = side.sock.send(side.pending)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as e:
                if e.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                    break
                self.close(side)
                return
            del side.pending[:sent]
        if not side.pending and side.peer.read_done:
            self.shut_write(side)

    def update(self, side):
        for s in (side, side.peer):
            if s.closed:
                continue
            events = 0
            if not s.read_done and len(s.peer.pending) < HIGH_WATER:
                events |= selectors.EVENT_READ
            if s.pending:
                events |= selectors.EVENT_WRITE
            key = self.selector.get_map().get(s.sock)
            if events == 0:
                if key is not None:
                    self.selector.unregister(s.sock)
            elif key is None:
                self.selector.register(s.sock, events, s)
            elif key.events != events:
                self.selector.modify(s.sock, events, s)

    def serve(self):
        while True:
            for key, events in self.selector.select():
                side = key.data
                if side is None:
                    self.accept()
                    continue
                if side.closed:
                    continue
                if events & selectors.EVENT_WRITE:
                    self.flush(side)
                if events & selectors.EVENT_READ and not side.closed:
                    self.on_read(side)
                if not side.closed:
                    self.update(side)


def main():
    socket_path, port = sys.argv[1], int(sys.argv[2])
    relay = Relay(socket_path, port)
    sys.stdout.write("ready %d\n" % relay.listener.getsockname()[1])
    sys.stdout.flush()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    relay.serve()


if __name__ == "__main__":
    main()
