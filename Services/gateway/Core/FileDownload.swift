import Contracts
import Foundation
import HTTPServer
import Messaging
import ParseWire

/// Serves a stored file: its type, length, ETag (stored names never change content, so it is strong and the
/// response may be cached for a year), `Range` (206/416) and `If-None-Match` (304).
struct FileDownload {
    let calls: FileServiceCalls

    static let cacheControl = "public, max-age=31536000, immutable"

    func respond(to request: HTTPRequest, name: String) async throws -> HTTPResponse {
        let conditional = request.headers.contains("Range") || request.headers.contains("If-None-Match")
        if !conditional, request.method == "GET" { return try await whole(name) }
        let info: FileInfo
        do {
            info = try await calls.send(FileCommands.info, FileNameReference(name: name), identity: .anonymous)
        } catch is ParseError {
            return FileResponses.notFound
        }
        var headers = Self.headers(info)
        if let tags = request.headers["If-None-Match"], Self.matches(tags, etag: info.etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        switch FileByteRange(header: request.headers["Range"], size: info.size) {
        case .whole:
            return try await answer(200, headers, name, 0..<info.size)
        case .part(let range):
            headers.add("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound)/\(info.size)")
            return try await answer(206, headers, name, range.lowerBound..<(range.upperBound + 1))
        case .unsatisfiable:
            headers.set("Content-Type", "text/plain")
            headers.add("Content-Range", "bytes */\(info.size)")
            return HTTPResponse(status: 416, headers: headers, body: Array("Range Not Satisfiable".utf8))
        }
    }

    private static func headers(_ info: FileInfo) -> HTTPHeaders {
        HTTPHeaders(ParseResponses.corsHeaders + [
            ("Content-Type", info.contentType), ("ETag", info.etag), ("Cache-Control", cacheControl),
            ("Accept-Ranges", "bytes"), ("X-Content-Type-Options", "nosniff"),
        ])
    }

    /// A plain GET: the description and the first part come in one round trip; the rest, if any, is streamed.
    private func whole(_ name: String) async throws -> HTTPResponse {
        let opening: RawMessage
        do {
            opening = try await calls.call(raw: FileCommands.open, headers: FileHeaders.naming(name),
                                           identity: .anonymous)
        } catch is ParseError {
            return FileResponses.notFound
        }
        guard let info = FileInfo(headers: opening.headers),
              opening.body.count == min(info.size, FileCommands.partBytes) else {
            throw ParseError(.internalServerError, "Internal server error.")
        }
        let first = opening.body
        var response = HTTPResponse(status: 200, headers: Self.headers(info), body: first)
        guard info.size > first.count else { return response }
        let calls = calls
        response.stream = HTTPResponseStream(length: info.size, bufferLimit: FileCommands.partBytes) { writer in
            try await FileDownload(calls: calls).produce(name, first.count..<info.size, after: first, into: writer)
        }
        response.body = []
        return response
    }

    /// A body of one part is read at once; a larger one is streamed part by part as the client takes it.
    private func answer(_ status: Int, _ headers: HTTPHeaders, _ name: String, _ range: Range<Int>) async throws
        -> HTTPResponse {
        guard range.count > FileCommands.partBytes else {
            return HTTPResponse(status: status, headers: headers, body: try await read(name, range))
        }
        var response = HTTPResponse(status: status, headers: headers)
        let calls = calls
        response.stream = HTTPResponseStream(length: range.count, bufferLimit: FileCommands.partBytes) { writer in
            try await FileDownload(calls: calls).produce(name, range, after: [], into: writer)
        }
        return response
    }

    /// Writes `before`, then the bytes of `range` part by part in order, the next `FileCommands.partsInFlight`
    /// parts already asked for while the current one is written.
    private func produce(_ name: String, _ range: Range<Int>, after before: [UInt8],
                         into writer: HTTPResponseStream.Writer) async throws {
        var inFlight = PartsInFlight<[UInt8]>()
        var next = range.lowerBound
        func askAhead() {
            while inFlight.count < FileCommands.partsInFlight, next < range.upperBound {
                let part = next..<min(next + FileCommands.partBytes, range.upperBound)
                inFlight.add { try await read(name, part) }
                next = part.upperBound
            }
        }
        askAhead()
        do {
            if !before.isEmpty { try await writer.write(before) }
            while let bytes = try await inFlight.takeOldest() {
                askAhead()
                try await writer.write(bytes)
            }
        } catch {
            await inFlight.settle()
            throw error
        }
    }

    /// Bytes of `range`, at most `FileCommands.partBytes` of them, in one call.
    private func read(_ name: String, _ range: Range<Int>) async throws -> [UInt8] {
        let request = FileReadRequest(name: name, offset: range.lowerBound, length: range.count)
        let part = try await calls.call(raw: FileCommands.read, headers: request.headers, identity: .anonymous)
        guard part.body.count == range.count else { throw ParseError(.internalServerError, "Internal server error.") }
        return part.body
    }

    /// `If-None-Match`: `*` or a list of tags, compared weakly (a `W/` prefix is ignored), as RFC 9110 asks.
    static func matches(_ header: String, etag: String) -> Bool {
        let tags = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return tags.contains { tag in
            tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == etag
        }
    }
}
