#!/usr/bin/env python3
"""stall-sshd.py MODE ADDR HOSTKEY: a scripted SSH server that stalls on purpose,
for what real OpenSSH will not do on request.

MODE says where it stops answering, forever:
  auth     the public-key login (the server never says yes or no)
  channel  after a successful login, the session channel open
  exec     after the channel opened, the exec request
It accepts any public key. HOSTKEY is an OpenSSH private key file (ssh-keygen
-t ed25519). It binds ADDR (loopback only) on a free port, prints
"ready PORT", and serves until killed.
"""
import socket
import sys
import threading
import time

import paramiko

FOREVER = 24 * 3600


class Server(paramiko.ServerInterface):
    def __init__(self, mode):
        self.mode = mode

    def get_allowed_auths(self, username):
        return "publickey"

    def check_auth_publickey(self, username, key):
        if self.mode == "auth":
            time.sleep(FOREVER)
        return paramiko.AUTH_SUCCESSFUL

    def check_channel_request(self, kind, chanid):
        if self.mode == "channel":
            time.sleep(FOREVER)
        return paramiko.OPEN_SUCCEEDED

    def check_channel_exec_request(self, channel, command):
        if self.mode == "exec":
            time.sleep(FOREVER)
        channel.send_exit_status(0)
        return True


def serve(conn, mode, key):
    t = paramiko.Transport(conn)
    t.add_server_key(key)
    try:
        t.start_server(server=Server(mode))
    except (paramiko.SSHException, EOFError, OSError):
        return
    while t.is_active():
        t.accept(1)


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("auth", "channel", "exec"):
        sys.exit("usage: stall-sshd.py auth|channel|exec ADDR HOSTKEY")
    mode, addr, keyfile = sys.argv[1:]
    if not addr.startswith("127."):
        sys.exit("stall-sshd.py: loopback addresses (127.0.0.0/8) only")
    key = paramiko.Ed25519Key.from_private_key_file(keyfile)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, 0))
    ls.listen(16)
    print("ready %d" % ls.getsockname()[1], flush=True)
    while True:
        conn, _ = ls.accept()
        threading.Thread(target=serve, args=(conn, mode, key), daemon=True).start()


if __name__ == "__main__":
    main()
