"""An independent WebSocket server for the contract suite: Debian's
python3-websockets, which masks nothing, refuses unmasked client frames and
speaks RFC 6455 as its authors read it, not as courier-mock does.

Usage: /usr/bin/python3 independent_server.py [--tls CERT KEY]
Prints "ready PORT" on standard error once it listens on 127.0.0.1; with
--tls, it speaks wss with that certificate and key.

Paths:
  /echo          every message back, text as text and binary as binary
  /fragmented    one text message in three fragments, a ping between each two
  /binary        the bytes 0..255 as one binary message
  /close/CODE    closes at once with CODE and the reason "bye"
  /ping          pings the client, then says "pong received" when it answered
  /flood-status  where /flood reports (open it first)
  /flood/N/SIZE  after the client's first message, N binary messages of SIZE
                 bytes (the first four bytes: the index), as fast as the
                 client takes them; while it waits for
                 the client, it says "held I" on /flood-status once the
                 client's TCP receive window is closed (I messages written by
                 then), and "done N" when all were written
"""
import asyncio
import socket
import ssl
import struct
import sys

import websockets
from websockets.frames import Opcode


async def fragments(socket):
    for number, part in enumerate(("frag1-", "frag2-", "frag3")):
        yield part
        if part != "frag3":
            # RFC 6455 §5.4: control frames may come between fragments.
            await socket.ping(f"between {number}".encode())


flood_status = []
flood_status_ready = asyncio.Event()


def receive_window_closed(connection):
    """Whether the peer advertises a zero receive window (Linux TCP_INFO's
    tcpi_snd_wnd): the client has stopped reading the socket."""
    raw = connection.transport.get_extra_info("socket")
    info = raw.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 512)
    return len(info) >= 232 and struct.unpack_from("I", info, 228)[0] == 0


async def flood(connection, count, size):
    await flood_status_ready.wait()
    # The client says when its handshake is done: what is measured is the
    # open connection's reading, not how its library reads an answer.
    await connection.recv()
    transport = connection.transport
    high = transport.get_write_buffer_limits()[1]
    held = False
    for index in range(count):
        if transport.is_closing():
            for status in flood_status:
                await status.send(f"lost {index} {connection.close_code} {connection.close_reason}")
            return
        connection.write_frame_sync(True, Opcode.BINARY, index.to_bytes(4, "big") + bytes(size - 4))
        # The transport holds more than it should: the client is not taking
        # it. Held means the window stays closed and nothing moves for five
        # looks in a row: a client only slower than this server reopens it.
        stalled, before = 0, None
        while (pending := transport.get_write_buffer_size()) > high:
            closed = receive_window_closed(connection)
            stalled = stalled + 1 if closed and pending == before else 0
            before = pending
            if not held and stalled >= 5:
                held = True
                for status in flood_status:
                    await status.send(f"held {index + 1}")
            await asyncio.sleep(0.01)
    for status in flood_status:
        await status.send(f"done {count}")
    await connection.wait_closed()


async def handle(socket, path=None):
    path = path or socket.path
    if path == "/flood-status":
        flood_status.append(socket)
        flood_status_ready.set()
        await socket.wait_closed()
    elif path.startswith("/flood/"):
        _, _, count, size = path.split("/")
        await flood(socket, int(count), int(size))
    elif path == "/echo":
        async for message in socket:
            await socket.send(message)
    elif path == "/fragmented":
        await socket.send(fragments(socket))
        await socket.wait_closed()
    elif path == "/binary":
        await socket.send(bytes(range(256)))
        await socket.wait_closed()
    elif path.startswith("/close/"):
        await socket.close(code=int(path.split("/")[2]), reason="bye")
    elif path == "/ping":
        pong = await socket.ping(b"are you there")
        await asyncio.wait_for(pong, timeout=600)
        await socket.send("pong received")
        await socket.wait_closed()
    else:
        await socket.close(code=1008, reason="unknown path")


async def main():
    tls = None
    if sys.argv[1:2] == ["--tls"]:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(sys.argv[2], sys.argv[3])
    async with websockets.serve(
        handle, "127.0.0.1", 0, subprotocols=["chat.v1"], ping_interval=None, max_size=1 << 20, ssl=tls
    ) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"ready {port}", file=sys.stderr, flush=True)
        await asyncio.Future()


asyncio.run(main())
