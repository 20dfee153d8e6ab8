import Contracts
import HTTPServer

/// Where an upload's bytes come from, part by part (each at most `FileCommands.partBytes`).
protocol FileUploadSource {
    /// The next part, or nil at the end.
    mutating func nextPart() async throws -> [UInt8]?
}

/// A body already in memory (the JavaScript SDK's base64 form).
struct BufferedUploadSource: FileUploadSource {
    let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func nextPart() async throws -> [UInt8]? {
        guard offset < bytes.count else { return nil }
        let end = min(offset + FileCommands.partBytes, bytes.count)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }
}

/// A body read from the client as it arrives, regrouped into full parts of `FileCommands.partBytes` (only the
/// last one is shorter, which is how the upload knows it is the last).
struct StreamedUploadSource: FileUploadSource {
    let stream: HTTPBodyStream
    private var pending: [UInt8] = []
    private var ended = false

    init(_ stream: HTTPBodyStream) { self.stream = stream }

    mutating func nextPart() async throws -> [UInt8]? {
        while !ended && pending.count < FileCommands.partBytes {
            if let part = try await stream.next() {
                // The stream's parts usually have the size wanted already: pass them on without a copy.
                if pending.isEmpty && part.count == FileCommands.partBytes { return part }
                pending += part
            } else {
                ended = true
            }
        }
        guard !pending.isEmpty else { return nil }
        if pending.count <= FileCommands.partBytes {
            defer { pending = [] }
            return pending
        }
        let part = Array(pending[..<FileCommands.partBytes])
        pending.removeFirst(FileCommands.partBytes)
        return part
    }
}
