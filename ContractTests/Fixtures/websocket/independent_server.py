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
"""
import asyncio
import ssl
import sys

import websockets


async def fragments(socket):
    for number, part in enumerate(("frag1-", "frag2-", "frag3")):
        yield part
        if part != "frag3":
            # RFC 6455 §5.4: control frames may come between fragments.
            await socket.ping(f"between {number}".encode())


async def handle(socket, path=None):
    path = path or socket.path
    if path == "/echo":
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
