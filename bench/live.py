#!/usr/bin/env python3
"""The client side of bench/live.sh (asyncio, raw sockets, PyPI's websockets for the baseline server).

    live.py idle URL COUNT HOLD_SECONDS            open COUNT WebSocket connections, connect each, hold them
    live.py fanout URL CLASS SUBSCRIBERS RATE SECONDS REST_BASE APP_ID OBJECT_IDS [CONTROL_URL]
        SUBSCRIBERS clients subscribe to CLASS on URL; votes go to REST_BASE at RATE per second over the objects;
        with CONTROL_URL each vote's answer is also sent there as the frame the baseline server broadcasts.
        A vote increments the field LIVE_WRITE_FIELD names ("votes", a vote field: through the votes service;
        another field is a save through posts).
        With LIVE_EVENTS_AMQP_URL (and no CONTROL_URL) a downstream consumer also takes the writes' events from the
        events exchange (LIVE_EVENTS_EXCHANGE, "parse.events").
        Prints one JSON line: frames, frames_per_second, p50_ms, p99_ms, votes, vote_errors, and events,
        events_p50_ms, events_p99_ms for the consumer.
    live.py broadcast-server PORT                   the baseline: a websockets server that sends every message
                                                    received on /control to every other connection
    live.py hostile URL CLASS COUNT HOLD_SECONDS    one client holding COUNT subscriptions to CLASS whose $regex
                                                    backtracks catastrophically on the cats' names, subscribing
                                                    again whenever the server drops one; prints the drops each second
"""
import asyncio
import base64
import json
import os
import struct
import sys
import threading
import time
import urllib.parse

FIELD = os.environ.get("LIVE_WRITE_FIELD", "votes")
EVENTS_EXCHANGE = os.environ.get("LIVE_EVENTS_EXCHANGE", "parse.events")


def handshake_request(url):
    parts = urllib.parse.urlsplit(url)
    key = base64.b64encode(os.urandom(16)).decode()
    return parts.hostname, parts.port, (
        f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()


def masked(text):
    payload = text.encode()
    mask = os.urandom(4)
    header = bytes([0x81])
    header += bytes([0x80 | len(payload)]) if len(payload) < 126 else bytes([0x80 | 126]) + struct.pack("!H", len(payload))
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def open_socket(url):
    host, port, request = handshake_request(url)
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(request)
    await reader.readuntil(b"\r\n\r\n")
    return reader, writer


async def read_frame(reader):
    first, second = await reader.readexactly(2)
    length = second & 0x7F
    if length == 126:
        length = struct.unpack("!H", await reader.readexactly(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", await reader.readexactly(8))[0]
    return first & 0x0F, await reader.readexactly(length)


async def pong_if_ping(opcode, payload, writer):
    if opcode == 9:
        mask = os.urandom(4)
        writer.write(bytes([0x8A, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        return True
    return False


async def idle(url, count, hold):
    """Idle clients as SDKs keep them: connected, answering the server's pings, sending nothing else."""
    connected = 0

    async def hold_one(reader, writer):
        nonlocal connected
        writer.write(masked(json.dumps({"op": "connect", "applicationId": "myAppId"})))
        while True:
            opcode, payload = await read_frame(reader)
            if not await pong_if_ping(opcode, payload, writer) and b'"connected"' in payload:
                connected += 1

    tasks = []
    for start in range(0, count, 500):
        batch = await asyncio.gather(*(open_socket(url) for _ in range(start, min(count, start + 500))))
        tasks += [asyncio.ensure_future(hold_one(reader, writer)) for reader, writer in batch]
    deadline = time.monotonic() + 60
    while connected < count and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    print(json.dumps({"open": len(tasks), "connected": connected}), flush=True)
    await asyncio.sleep(hold)
    for task in tasks:
        task.cancel()


async def hostile(url, class_name, count, hold):
    """An adversary: COUNT subscriptions with a catastrophic $regex, renewed each time the server drops one."""
    reader, writer = await open_socket(url)
    writer.write(masked(json.dumps({"op": "connect", "applicationId": "myAppId"})))

    def subscribe(request_id):
        writer.write(masked(json.dumps({"op": "subscribe", "requestId": request_id,
                                        "query": {"className": class_name, "where": {"name": {"$regex": "(a+)+$"}}}})))

    for request_id in range(1, count + 1):
        subscribe(request_id)
    drops = 0
    subscribed = 0

    async def read():
        nonlocal drops, subscribed
        while True:
            opcode, payload = await read_frame(reader)
            if await pong_if_ping(opcode, payload, writer):
                continue
            message = json.loads(payload)
            if message.get("op") == "subscribed":
                subscribed += 1
            elif message.get("op") == "error" and message.get("requestId"):
                drops += 1
                subscribe(message["requestId"])

    task = asyncio.ensure_future(read())
    print(json.dumps({"holding": count}), flush=True)
    deadline = time.monotonic() + hold
    while time.monotonic() < deadline:
        await asyncio.sleep(1)
        print(json.dumps({"subscribed": subscribed, "drops": drops}), flush=True)
    task.cancel()


class Stats:
    def __init__(self):
        self.frames = 0
        self.delays = []
        self.answers = {}
        # (objectId, value) -> when a downstream consumer got the write's event (LIVE_EVENTS_AMQP_URL)
        self.events = {}


def consume_events(amqp_url, class_name, stats, ready, stop):
    """A downstream consumer, as a system fed by the events exchange has one (PyPI's pika): a queue of its own bound
    to the class's object updates and votes, each event's arrival kept by the object and value it carries."""
    import pika

    connection = pika.BlockingConnection(pika.URLParameters(amqp_url))
    channel = connection.channel()
    queue = channel.queue_declare("", exclusive=True, auto_delete=True).method.queue
    for key in (f"object.updated.{class_name}", f"vote.cast.{class_name}"):
        channel.queue_bind(queue, EVENTS_EXCHANGE, routing_key=key)
    ready.set()
    for _, _, body in channel.consume(queue, auto_ack=True, inactivity_timeout=0.2):
        if stop.is_set():
            break
        if body is None:
            continue
        now = time.monotonic()
        data = json.loads(body).get("data", {})
        value = data["total"] if "total" in data else (data.get("object") or {}).get(FIELD)
        stats.events.setdefault((data.get("objectId"), value), now)
    connection.close()


async def subscriber(url, class_name, stats, sample, ready, app_id):
    reader, writer = await open_socket(url)
    writer.write(masked(json.dumps({"op": "connect", "applicationId": app_id})))
    writer.write(masked(json.dumps({"op": "subscribe", "requestId": 1, "query": {"className": class_name, "where": {}}})))
    seen = 0
    while True:
        opcode, payload = await read_frame(reader)
        if await pong_if_ping(opcode, payload, writer):
            continue
        seen += 1
        if seen == 2:
            ready.release()
            continue
        if seen < 2:
            continue
        stats.frames += 1
        if sample:
            now = time.monotonic()
            message = json.loads(payload)
            obj = message.get("object", {})
            answered = stats.answers.get((obj.get("objectId"), obj.get(FIELD)))
            if answered is not None:
                stats.delays.append(now - answered)


async def voter(rest, app_id, object_ids, rate, seconds, stats, control_writer, class_name):
    parts = urllib.parse.urlsplit(rest)
    workers = 16
    errors = 0
    votes = 0
    # One schedule for all workers, once their connections are open.
    start = time.monotonic() + 0.1

    async def worker(index):
        nonlocal errors, votes
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        body = json.dumps({FIELD: {"__op": "Increment", "amount": 1}}).encode()
        sent = 0
        while True:
            # The workers take turns: one vote every 1/RATE s, not sixteen at once every 16/RATE s.
            due = start + (sent * workers + index) / rate
            if due - start >= seconds:
                break
            delay = due - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            object_id = object_ids[(index + sent * workers) % len(object_ids)]
            writer.write((f"PUT {parts.path}/classes/{class_name}/{object_id} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                          f"X-Parse-Application-Id: {app_id}\r\nContent-Type: application/json\r\n"
                          f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
            head = await reader.readuntil(b"\r\n\r\n")
            length = int([line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")][0])
            answer = json.loads(await reader.readexactly(length))
            sent += 1
            if b" 200 " not in head.split(b"\r\n")[0]:
                errors += 1
                continue
            votes += 1
            stats.answers[(object_id, answer[FIELD])] = time.monotonic()
            if control_writer is not None:
                frame = json.dumps({"op": "update", "clientId": "baseline", "requestId": 1,
                                    "object": {"className": class_name, "objectId": object_id, FIELD: answer[FIELD],
                                               "updatedAt": answer["updatedAt"]}})
                control_writer.write(masked(frame))
        writer.close()

    await asyncio.gather(*(worker(i) for i in range(workers)))
    return votes, errors


async def fanout(url, class_name, subscribers, rate, seconds, rest, app_id, object_ids, control_url=None):
    stats = Stats()
    consumer_ready, consumer_stop = threading.Event(), threading.Event()
    amqp_url = os.environ.get("LIVE_EVENTS_AMQP_URL")
    if amqp_url and not control_url:
        threading.Thread(target=consume_events, args=(amqp_url, class_name, stats, consumer_ready, consumer_stop),
                         daemon=True).start()
        consumer_ready.wait(10)
    ready = asyncio.Semaphore(0)
    tasks = [asyncio.ensure_future(subscriber(url, class_name, stats, index < 50, ready, app_id)) for index in range(subscribers)]
    for _ in range(subscribers):
        await ready.acquire()
    control_writer = None
    if control_url:
        _, control_writer = await open_socket(control_url)
    started = time.monotonic()
    votes, errors = await voter(rest, app_id, object_ids, rate, seconds, stats, control_writer, class_name)
    await asyncio.sleep(1)
    elapsed = time.monotonic() - started
    for task in tasks:
        task.cancel()
    consumer_stop.set()

    def pick(delays, q):
        delays = sorted(delays)
        return round(delays[min(len(delays) - 1, int(q * len(delays)))] * 1000, 2) if delays else None
    # An event can reach the consumer before its write's answer reaches the client: counted as no delay.
    event_delays = [max(0.0, stats.events[key] - answered) for key, answered in stats.answers.items() if key in stats.events]
    print(json.dumps({"frames": stats.frames, "frames_per_second": round(stats.frames / elapsed),
                      "p50_ms": pick(stats.delays, 0.5), "p99_ms": pick(stats.delays, 0.99), "votes": votes,
                      "vote_errors": errors, "expected_frames": votes * subscribers,
                      "events": len(event_delays), "events_p50_ms": pick(event_delays, 0.5),
                      "events_p99_ms": pick(event_delays, 0.99)}), flush=True)


async def broadcast_server(port):
    from websockets.asyncio.server import broadcast, serve
    clients = set()

    async def handler(connection):
        if connection.request.path == "/control":
            async for message in connection:
                broadcast(clients, message)
            return
        clients.add(connection)
        try:
            async for message in connection:
                request = json.loads(message)
                if request.get("op") == "connect":
                    await connection.send(json.dumps({"op": "connected", "clientId": "baseline"}))
                elif request.get("op") == "subscribe":
                    await connection.send(json.dumps({"op": "subscribed", "clientId": "baseline", "requestId": 1}))
        finally:
            clients.discard(connection)

    async with serve(handler, "127.0.0.1", port, compression=None, max_queue=None):
        print(json.dumps({"listening": port}), flush=True)
        await asyncio.Future()


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "idle":
        asyncio.run(idle(args[0], int(args[1]), float(args[2])))
    elif command == "fanout":
        asyncio.run(fanout(args[0], args[1], int(args[2]), float(args[3]), float(args[4]), args[5], args[6],
                           args[7].split(","), args[8] if len(args) > 8 else None))
    elif command == "broadcast-server":
        asyncio.run(broadcast_server(int(args[0])))
    elif command == "hostile":
        asyncio.run(hostile(args[0], args[1], int(args[2]), float(args[3])))


if __name__ == "__main__":
    main()
