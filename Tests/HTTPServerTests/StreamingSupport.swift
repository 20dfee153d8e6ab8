import HTTPServer
import Synchronization

/// What a `StreamingTestResponder` saw, for the tests to inspect after (or while) the client talks to it.
final class StreamingEvents: Sendable {
    private struct State {
        var partSizes: [Int] = []
        var received: [UInt8] = []
        var failure: HTTPBodyStream.Failure?
        var bodyEnded = false
        var writerCancelled = false
    }

    private let state = Mutex(State())

    var partSizes: [Int] { state.withLock { $0.partSizes } }
    var received: [UInt8] { state.withLock { $0.received } }
    var failure: HTTPBodyStream.Failure? { state.withLock { $0.failure } }
    var bodyEnded: Bool { state.withLock { $0.bodyEnded } }
    var writerCancelled: Bool { state.withLock { $0.writerCancelled } }

    func took(_ part: [UInt8]) {
        state.withLock { state in
            state.partSizes.append(part.count)
            state.received += part
        }
    }

    func failed(_ failure: HTTPBodyStream.Failure) { state.withLock { $0.failure = failure } }
    func ended() { state.withLock { $0.bodyEnded = true } }
    func cancelled() { state.withLock { $0.writerCancelled = true } }
}

/// Routes used by the streaming tests:
/// - `/upload?delayMs=N`: body streamed, every part recorded (sleeping N ms after each); answers the byte count;
/// - `/upload/first-part`: body streamed, answered after the first part, the rest left unread;
/// - `/download?bytes=N`: a streamed response of N pattern bytes;
/// - `/download/failing`: a streamed response whose producer throws part way;
/// - `/download/endless`: a streamed response written until the writer reports the client gone;
/// - `/echo` and `/immediate`: plain routes, as in `TestResponder`.
struct StreamingTestResponder: HTTPStreamingResponder {
    struct ProducerFailure: Error {}

    let events = StreamingEvents()

    func streamsBody(of head: HTTPRequest) -> Bool {
        head.path.hasPrefix("/upload")
    }

    func immediateResponse(to request: HTTPRequest) -> HTTPResponse? {
        guard request.path == "/immediate" else { return nil }
        return HTTPResponse(status: 200, body: Array("immediate".utf8))
    }

    func respond(to head: HTTPRequest, body: HTTPBodyStream) async -> HTTPResponse {
        if head.path == "/upload/first-part" {
            let first = (try? await body.next()) ?? nil
            return HTTPResponse(status: 200, body: Array("first \(first?.count ?? 0)".utf8))
        }
        let delay = Int(head.queryValue("delayMs") ?? "") ?? 0
        var total = 0
        do throws(HTTPBodyStream.Failure) {
            while let part = try await body.next() {
                events.took(part)
                total += part.count
                if delay > 0 { try? await Task.sleep(for: .milliseconds(delay)) }
            }
            events.ended()
            return HTTPResponse(status: 200, body: Array("\(total)".utf8))
        } catch {
            events.failed(error)
            return HTTPResponse(status: error == .tooLarge ? 413 : 400, body: Array("\(error)".utf8))
        }
    }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch request.path {
        case "/echo":
            return HTTPResponse(status: 200, headers: ["X-Method": request.method], body: request.body)
        case "/download":
            let count = Int(request.queryValue("bytes") ?? "") ?? 0
            return streamed(length: count) { writer in
                let bytes = testPattern(count)
                var offset = 0
                while offset < count {
                    let end = min(offset + 100_000, count)
                    try await writer.write(Array(bytes[offset..<end]))
                    offset = end
                }
            }
        case "/download/failing":
            return streamed(length: 4 << 20) { writer in
                try await writer.write(testPattern(300_000))
                throw ProducerFailure()
            }
        case "/download/endless":
            let events = events
            return streamed(length: 1 << 40) { writer in
                let chunk = testPattern(64 * 1024)
                do {
                    while true { try await writer.write(chunk) }
                } catch {
                    events.cancelled()
                    throw error
                }
            }
        default:
            return HTTPResponse(status: 404, body: Array("not found".utf8))
        }
    }

    private func streamed(length: Int, _ producer: @escaping HTTPResponseStream.Producer) -> HTTPResponse {
        var response = HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"])
        response.stream = HTTPResponseStream(length: length, bufferLimit: 256 * 1024, producer: producer)
        return response
    }
}

/// Deterministic bytes without a short period, so a part lost, repeated or out of order changes the content.
func testPattern(_ count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var state: UInt32 = 0x9E37_79B9
    for index in 0..<count {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        bytes[index] = UInt8(truncatingIfNeeded: state)
    }
    return bytes
}

/// Like `withServer`, with a `StreamingTestResponder`.
func withStreamingServer<T>(configure: (inout HTTPServerConfiguration) -> Void = { _ in },
                            _ body: (HTTPServer, StreamingTestResponder) async throws -> T) async throws -> T {
    var configuration = HTTPServerConfiguration(port: 0)
    // Clients leaving mid-transfer are expected here; MHD's messages about them are noise.
    configuration.errorLog = { _ in }
    configure(&configuration)
    return try await runServer(configuration, responder: StreamingTestResponder(), body)
}

extension [UInt8] {
    /// The bytes as a chunked transfer coding, in chunks of `chunkBytes`.
    func chunked(chunkBytes: Int) -> [UInt8] {
        var encoded: [UInt8] = []
        var offset = 0
        while offset < count {
            let end = Swift.min(offset + chunkBytes, count)
            encoded.append(contentsOf: String(end - offset, radix: 16).utf8)
            encoded.append(contentsOf: [13, 10])
            encoded.append(contentsOf: self[offset..<end])
            encoded.append(contentsOf: [13, 10])
            offset = end
        }
        return encoded + Array("0\r\n\r\n".utf8)
    }
}
