"""A line server for tests/e2e/tcp.sh: one command a line, and a log line a
connection ("conn RECEIVED SENT" bytes) when it closes, so that the test
holds quern's counts against the server's.

  echo X    -> X CRLF             lf X     -> X LF
  bytes N   -> N bytes "a"        until    -> "one::two::"
  big       -> 2 MiB without LF   silent   -> nothing
  bye       -> "last words", then the server closes
"""
import asyncio
import sys

LOG = sys.argv[2]


async def serve(reader, writer):
    got = sent = 0

    def send(b):
        nonlocal sent
        writer.write(b)
        sent += len(b)

    try:
        while True:
            line = await reader.readline()
            if not line:
                break
            got += len(line)
            cmd, _, arg = line.decode().rstrip("\r\n").partition(" ")
            if cmd == "echo":
                send(arg.encode() + b"\r\n")
            elif cmd == "lf":
                send(arg.encode() + b"\n")
            elif cmd == "bytes":
                send(b"a" * int(arg))
            elif cmd == "until":
                send(b"one::two::")
            elif cmd == "big":
                send(b"b" * (2 << 20))
            elif cmd == "bye":
                send(b"last words")
                await writer.drain()
                break
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        with open(LOG, "a") as f:
            f.write(f"conn {got} {sent}\n")
        writer.close()


async def main():
    srv = await asyncio.start_server(serve, "127.0.0.1", int(sys.argv[1]), limit=1 << 16)
    async with srv:
        await srv.serve_forever()


asyncio.run(main())
