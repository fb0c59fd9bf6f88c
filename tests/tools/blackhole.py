#!/usr/bin/env python3
"""blackhole.py ADDR PORT: a TCP port on a loopback address that never answers,
as a powered-off or firewalled host does -- without iptables.

It listens with a backlog of 0 and fills its own accept queue, never accepting:
Linux then drops every further SYN to the port (no SYN-ACK, no RST), so a
client's connect() waits until its own timeout. Prints "ready ADDR:PORT" once a
probe connect has been seen to go unanswered, then runs until killed.

Only 127.0.0.0/8 is ever touched.
"""
import socket
import sys
import time


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: blackhole.py ADDR PORT")
    addr, port = sys.argv[1], int(sys.argv[2])
    if not addr.startswith("127."):
        sys.exit("blackhole.py: loopback addresses (127.0.0.0/8) only")
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(0)
    # One established connection fills a queue of backlog 0; a few more
    # sit in SYN_SENT for good measure.
    fillers = []
    for _ in range(4):
        c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        c.setblocking(False)
        try:
            c.connect((addr, port))
        except BlockingIOError:
            pass
        fillers.append(c)
    time.sleep(0.3)
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.settimeout(1.5)
    try:
        probe.connect((addr, port))
        sys.exit("blackhole.py: a connect was answered: the queue is not full")
    except socket.timeout:
        pass
    finally:
        probe.close()
    print("ready %s:%d" % (addr, port), flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
