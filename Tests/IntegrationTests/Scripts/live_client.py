#!/usr/bin/env python3
"""A WebSocket client the LiveQuery tests drive line by line over stdin/stdout.

    live_client.py URL          a client of PyPI's `websockets` (what a real SDK does: masking, ping/pong, close)
    live_client.py --subprotocol NAME URL   the same, offering that subprotocol (graphql-transport-ws)
    live_client.py --raw URL    a bare socket after a hand-made handshake, to send broken frames or to read nothing

Commands, one per line; every command answers one JSON line:
    send TEXT          send a text message                              -> {"sent": true}
    recv SECONDS       the next message, or {"timeout": true}, or {"closed": CODE}
    close              close normally                                   -> {"closed": CODE}
    (raw only) bytes HEX   send these bytes as they are                 -> {"sent": true}
    (raw only) frame SECONDS   the next frame: {"opcode": N, "text": ..., "code": N} or {"eof": true} or {"timeout": true}
"""
import base64
import json
import os
import socket
import struct
import sys
import urllib.parse


def answer(value):
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


def run_library(url, subprotocol=None):
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with connect(url, open_timeout=10, max_size=None, compression=None,
                 subprotocols=[subprotocol] if subprotocol else None) as ws:
        answer({"open": True, "subprotocol": ws.subprotocol})
        serve(ws, ConnectionClosed)


def serve(ws, ConnectionClosed):
    for line in sys.stdin:
        command, _, argument = line.rstrip("\n").partition(" ")
        try:
            if command == "send":
                ws.send(argument)
                answer({"sent": True})
            elif command == "recv":
                try:
                    answer({"message": ws.recv(timeout=float(argument))})
                except TimeoutError:
                    answer({"timeout": True})
            elif command == "close":
                ws.close()
                answer({"closed": ws.close_code})
            else:
                answer({"error": "unknown command " + command})
        except ConnectionClosed as closed:
            answer({"closed": closed.rcvd.code if closed.rcvd else None})


def masked_frame(opcode, payload):
    mask = os.urandom(4)
    header = bytes([0x80 | opcode])
    if len(payload) < 126:
        header += bytes([0x80 | len(payload)])
    elif len(payload) < 65536:
        header += bytes([0x80 | 126]) + struct.pack("!H", len(payload))
    else:
        header += bytes([0x80 | 127]) + struct.pack("!Q", len(payload))
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def read_exactly(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def run_raw(url):
    parts = urllib.parse.urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
    sock.sendall(request.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    answer({"open": head.startswith(b"HTTP/1.1 101")})
    for line in sys.stdin:
        command, _, argument = line.rstrip("\n").partition(" ")
        try:
            if command == "send":
                sock.sendall(masked_frame(1, argument.encode()))
                answer({"sent": True})
            elif command == "bytes":
                sock.sendall(bytes.fromhex(argument))
                answer({"sent": True})
            elif command == "frame":
                sock.settimeout(float(argument))
                first, second = read_exactly(sock, 2)
                length = second & 0x7F
                if length == 126:
                    length = struct.unpack("!H", read_exactly(sock, 2))[0]
                elif length == 127:
                    length = struct.unpack("!Q", read_exactly(sock, 8))[0]
                payload = read_exactly(sock, length)
                frame = {"opcode": first & 0x0F}
                if frame["opcode"] == 8 and len(payload) >= 2:
                    frame["code"] = struct.unpack("!H", payload[:2])[0]
                    frame["text"] = payload[2:].decode("utf-8", "replace")
                else:
                    frame["text"] = payload.decode("utf-8", "replace")
                answer(frame)
            elif command == "close":
                sock.close()
                answer({"closed": None})
            else:
                answer({"error": "unknown command " + command})
        except socket.timeout:
            answer({"timeout": True})
        except (EOFError, ConnectionResetError, BrokenPipeError):
            answer({"eof": True})


if __name__ == "__main__":
    if sys.argv[1] == "--raw":
        run_raw(sys.argv[2])
    elif sys.argv[1] == "--subprotocol":
        run_library(sys.argv[3], subprotocol=sys.argv[2])
    else:
        run_library(sys.argv[1])
