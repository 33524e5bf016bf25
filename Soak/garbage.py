"""Garbage connections for courier-mock's soak, for a number of seconds.

Each round opens a connection and misbehaves in one of these ways, in turn:
random bytes then close; half a request head then close; a head with an
endless header line cut off; a request with a Content-Length larger than the
body sent, then close; a valid request then a reset (SO_LINGER 0) before
reading the answer; connect and close at once. Prints how many rounds ran
and how many connections the server refused (it must refuse none).

Usage: python3 garbage.py <port> <seconds>
"""

import os
import socket
import struct
import sys
import time


def misbehave(port: int, kind: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        if kind == 0:
            s.sendall(os.urandom(1 + os.urandom(1)[0] * 8))
        elif kind == 1:
            s.sendall(b"GET /soak/ok HTTP/1.1\r\nHost: x\r\nX-Half: ")
        elif kind == 2:
            s.sendall(b"GET /soak/ok HTTP/1.1\r\nX-Long: " + b"a" * 20000)
        elif kind == 3:
            s.sendall(b"POST /anything HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + b"x" * 1000)
        elif kind == 4:
            s.sendall(b"GET /soak/ok HTTP/1.1\r\nHost: x\r\n\r\n")
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        # kind 5: connect and close.


def main() -> None:
    port, seconds = int(sys.argv[1]), float(sys.argv[2])
    deadline = time.monotonic() + seconds
    rounds = refused = 0
    while time.monotonic() < deadline:
        try:
            misbehave(port, rounds % 6)
        except ConnectionRefusedError:
            refused += 1
        except OSError:
            pass  # a reset or a timeout from the server's side is its right
        rounds += 1
    print(f"garbage: {rounds} connections, {refused} refused")
    sys.exit(1 if refused else 0)


if __name__ == "__main__":
    main()
