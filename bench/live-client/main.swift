import CEpoll
import Foundation
import ParseWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// The fan-out client of bench/live.sh, in place of `live.py fanout` (same arguments, same JSON line): SUBSCRIBERS
// WebSocket clients of CLASS read on one thread with epoll, and votes sent over 16 keep-alive HTTP connections at
// RATE per second. Python's asyncio reading a thousand sockets fell behind by hundreds of milliseconds at a few
// thousand frames per second, so the delays it measured were its own backlog; this one reads every frame as it
// comes. The delay of a frame is from its vote's answer (or 0 when the frame came first) to its arrival, on 50 of
// the subscribers, on the system's monotonic clock.
//
//     live-fanout-client URL CLASS SUBSCRIBERS RATE SECONDS REST_BASE APP_ID OBJECT_IDS [CONTROL_URL]

let arguments = CommandLine.arguments
guard arguments.count >= 9 else {
    let usage = "usage: live-fanout-client URL CLASS SUBSCRIBERS RATE SECONDS REST_BASE APP_ID OBJECT_IDS [CONTROL_URL]\n"
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}
let liveURL = URL(string: arguments[1])!
let className = arguments[2]
let subscriberCount = Int(arguments[3])!
let rate = Double(arguments[4])!
let seconds = Double(arguments[5])!
let restURL = URL(string: arguments[6])!
let appId = arguments[7]
let objectIds = arguments[8].split(separator: ",").map(String.init)
let controlURL = arguments.count > 9 ? URL(string: arguments[9]) : nil
let field = ProcessInfo.processInfo.environment["LIVE_WRITE_FIELD"] ?? "votes"
let sampled = 50

/// Sockets and WebSocket frames, on blocking sockets but for `takeFrames`.
enum Net {
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("live-fanout-client: \(message)\n".utf8))
        exit(1)
    }

    /// A connected, blocking TCP socket to 127.0.0.1.
    static func connectTo(_ url: URL) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(url.port ?? 80).bigEndian)
        address.sin_addr.s_addr = inet_addr(url.host ?? "127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { Net.fail("cannot connect to \(url): errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { Net.fail("send: errno \(errno)") }
            sent += count
        }
    }

    /// Reads until `\r\n\r\n` on a blocking socket; what came after it is returned too.
    static func readHead(_ fd: Int32) -> (head: String, rest: [UInt8]) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { Net.fail("connection closed during a head") }
            buffer += chunk[..<count]
            let ending: [UInt8] = [13, 10, 13, 10]
            if let end = buffer.indices.dropLast(3).first(where: { buffer[$0..<($0 + 4)].elementsEqual(ending) }) {
                return (String(decoding: buffer[..<end], as: UTF8.self), Array(buffer[(end + 4)...]))
            }
        }
    }

    /// A client's frame: masked, as RFC 6455 requires of clients.
    static func maskedFrame(_ text: String, opcode: UInt8 = 1) -> [UInt8] {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask: [UInt8] = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    static func openWebSocket(_ url: URL) -> (fd: Int32, rest: [UInt8]) {
        let fd = Net.connectTo(url)
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let path = url.path.isEmpty ? "/" : url.path
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(url.port ?? 80)\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        Net.sendAll(fd, Array(request.utf8))
        let (head, rest) = Net.readHead(fd)
        guard head.hasPrefix("HTTP/1.1 101") else { Net.fail("no upgrade: \(head.prefix(80))") }
        return (fd, rest)
    }

    /// The frames in `buffer` as (opcode, payload), removing them; a partial frame stays.
    static func takeFrames(_ buffer: inout [UInt8]) -> [(UInt8, ArraySlice<UInt8>)] {
        var frames: [(UInt8, ArraySlice<UInt8>)] = []
        var at = 0
        while buffer.count - at >= 2 {
            let opcode = buffer[at] & 0x0F
            var length = Int(buffer[at + 1] & 0x7F)
            var start = at + 2
            if length == 126 {
                guard buffer.count - at >= 4 else { break }
                length = Int(buffer[at + 2]) << 8 | Int(buffer[at + 3])
                start = at + 4
            } else if length == 127 {
                guard buffer.count - at >= 10 else { break }
                length = (0..<8).reduce(0) { $0 << 8 | Int(buffer[at + 2 + $1]) }
                start = at + 10
            }
            guard buffer.count - start >= length else { break }
            frames.append((opcode, buffer[start..<(start + length)]))
            at = start + length
        }
        if at > 0 { buffer.removeFirst(at) }
        return frames
    }
}

/// One subscriber's bytes not yet read as frames, and how many frames it has had.
struct Subscriber {
    var fd: Int32
    var buffer: [UInt8]
    var frames = 0
}

/// The subscribers, read on this thread alone.
struct Reader {
    var subscribers: [Subscriber] = []
    let epoll = epoll_create1(0)
    /// Arrivals on the sampled subscribers: "objectId total" and when.
    var arrivals: [(key: String, at: UInt64)] = []
    var frameCount = 0
    var readyCount = 0
    private var chunk = [UInt8](repeating: 0, count: 65536)
    private var events = [epoll_event](repeating: epoll_event(), count: 256)

    /// Connects and subscribes `count` clients.
    init(count: Int) {
        for index in 0..<count {
            let (fd, rest) = Net.openWebSocket(liveURL)
            Net.sendAll(fd, Net.maskedFrame(#"{"op":"connect","applicationId":"\#(appId)"}"#))
            let subscribe = #"{"op":"subscribe","requestId":1,"query":{"className":"\#(className)","where":{}}}"#
            Net.sendAll(fd, Net.maskedFrame(subscribe))
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.u64 = UInt64(index)
            epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event)
            subscribers.append(Subscriber(fd: fd, buffer: rest))
        }
    }

    /// Reads what the sockets have until `deadline` (monotonic nanoseconds), or until every subscriber has its
    /// `connected` and `subscribed` frames when `untilReady`.
    mutating func read(until deadline: UInt64, untilReady: Bool) {
        while Net.now() < deadline, !(untilReady && readyCount == subscribers.count) {
            let ready = events.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress, Int32($0.count), 50) }
            guard ready > 0 else { continue }
            for slot in 0..<Int(ready) { readSocket(Int(events[slot].data.u64)) }
        }
    }

    private mutating func readSocket(_ index: Int) {
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(subscribers[index].fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            subscribers[index].buffer += chunk[..<count]
        }
        let arrived = Net.now()
        for (opcode, payload) in Net.takeFrames(&subscribers[index].buffer) {
            if opcode == 9 {
                Net.sendAll(subscribers[index].fd, Net.maskedFrame(String(decoding: payload, as: UTF8.self), opcode: 0xA))
                continue
            }
            subscribers[index].frames += 1
            if subscribers[index].frames == 2 { readyCount += 1 }
            guard subscribers[index].frames > 2 else { continue }
            frameCount += 1
            guard index < sampled, let object = JSONValue.parse(Array(payload))?["object"],
                  let objectId = object["objectId"]?.stringValue, let total = object[field]?.numberValue else { continue }
            arrivals.append(("\(objectId) \(total)", arrived))
        }
    }
}

/// When each vote's answer arrived, by "objectId total".
let answers = Mutex<[String: UInt64]>([:])
let voteCounts = Mutex((votes: 0, errors: 0))
let votersDone = Atomic<Int>(0)

var reader = Reader(count: subscriberCount)
reader.read(until: Net.now() + 60_000_000_000, untilReady: true)
guard reader.readyCount == subscriberCount else {
    Net.fail("only \(reader.readyCount) of \(subscriberCount) subscribers were ready")
}

// The control connection of the baseline server: each vote's answer is sent there as the frame it broadcasts.
let control = controlURL.map { Net.openWebSocket($0).fd }
let controlLock = Mutex(())

let workers = 16
let started = Net.now()
let voters = (0..<workers).map { worker in
    Thread {
        let fd = Net.connectTo(restURL)
        let body = #"{"\#(field)":{"__op":"Increment","amount":1}}"#
        var sent = 0
        while true {
            // The workers take turns: one vote every 1/RATE s, not sixteen at once every 16/RATE s.
            let due = started + UInt64(Double(sent * workers + worker) / rate * 1e9)
            guard Double(due - started) / 1e9 < seconds else { break }
            let wait = Int64(bitPattern: due &- Net.now())
            if wait > 0 { usleep(UInt32(wait / 1000)) }
            let objectId = objectIds[(worker + sent * workers) % objectIds.count]
            let request = "PUT \(restURL.path)/classes/\(className)/\(objectId) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "X-Parse-Application-Id: \(appId)\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
            Net.sendAll(fd, Array(request.utf8))
            var (head, answer) = Net.readHead(fd)
            let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            var chunk = [UInt8](repeating: 0, count: 4096)
            while answer.count < length {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { Net.fail("vote connection closed") }
                answer += chunk[..<count]
            }
            sent += 1
            guard head.hasPrefix("HTTP/1.1 200"), let total = JSONValue.parse(answer)?[field]?.numberValue else {
                voteCounts.withLock { $0.errors += 1 }
                continue
            }
            answers.withLock { $0["\(objectId) \(total)"] = Net.now() }
            voteCounts.withLock { $0.votes += 1 }
            if let control {
                let updatedAt = JSONValue.parse(answer)?["updatedAt"]?.stringValue ?? ""
                let object = JSONValue.object(["className": .string(className), "objectId": .string(objectId),
                                               field: .number(total), "updatedAt": .string(updatedAt)])
                let frame = #"{"op":"update","clientId":"baseline","requestId":1,"object":\#(object.compactText)}"#
                controlLock.withLock { _ in Net.sendAll(control, Net.maskedFrame(frame)) }
            }
        }
        close(fd)
        votersDone.add(1, ordering: .releasing)
    }
}
voters.forEach { $0.start() }
// Until every vote is answered, then a second more for the last frames.
while votersDone.load(ordering: .acquiring) < workers { reader.read(until: Net.now() + 100_000_000, untilReady: false) }
reader.read(until: Net.now() + 1_000_000_000, untilReady: false)
let elapsed = Double(Net.now() - started) / 1e9

let answered = answers.withLock { $0 }
let delays = reader.arrivals.compactMap { arrival in
    answered[arrival.key].map { arrival.at > $0 ? Double(arrival.at - $0) / 1e6 : 0 }
}.sorted()
func pick(_ q: Double) -> JSONValue {
    delays.isEmpty ? .null : .number((delays[min(delays.count - 1, Int(q * Double(delays.count)))] * 100).rounded() / 100)
}
let counts = voteCounts.withLock { $0 }
let result: JSONValue = .object([
    "frames": .number(Double(reader.frameCount)),
    "frames_per_second": .number((Double(reader.frameCount) / elapsed).rounded()),
    "p50_ms": pick(0.5), "p99_ms": pick(0.99), "votes": .number(Double(counts.votes)),
    "vote_errors": .number(Double(counts.errors)), "expected_frames": .number(Double(counts.votes * subscriberCount)),
    "client": .string("swift"),
])
print(result.compactText)
