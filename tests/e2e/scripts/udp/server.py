"""A datagram echo server for tests/e2e/udp.sh: each datagram back as it
came, but "silent" gets no answer and "twice" two; on SIGTERM it writes
"DATAGRAMS_IN BYTES_IN DATAGRAMS_OUT BYTES_OUT PEER_ADDRESSES" (the
addresses it heard from, comma-separated) to the file named second,
so that the test holds quern's counts against the server's."""
import signal
import socket
import sys

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
n_in = b_in = n_out = b_out = 0
peers = set()


def done(*_):
    with open(sys.argv[2], "w") as f:
        f.write(f"{n_in} {b_in} {n_out} {b_out} {','.join(sorted(peers))}\n")
    sys.exit(0)


signal.signal(signal.SIGTERM, done)
while True:
    data, peer = s.recvfrom(65535)
    n_in += 1
    peers.add(peer[0])
    b_in += len(data)
    if data == b"silent":
        continue
    for _ in range(2 if data == b"twice" else 1):
        s.sendto(data, peer)
        n_out += 1
        b_out += len(data)
