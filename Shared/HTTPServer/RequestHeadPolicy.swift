/// Decides, from the head alone, whether a request may go on to its body. MHD accepts several
/// `Content-Length` lines (it keeps the first, leaving the rest of the body in the stream as a next request) and
/// lets `Transfer-Encoding` silently win over `Content-Length`; both are classic request-smuggling shapes, so
/// they are refused here before any body byte is read.
struct RequestHeadPolicy: Sendable {
    enum Verdict: Equatable, Sendable {
        /// Go on; `declaredLength` is the `Content-Length`, if any, to size the body buffer.
        case accept(declaredLength: Int?)
        case badRequest
        case payloadTooLarge
    }

    let maxBodyBytes: Int

    func verdict(for headers: HTTPHeaders) -> Verdict {
        let lengths = headers.values("Content-Length")
        let encodings = headers.values("Transfer-Encoding")
        if lengths.count > 1 { return .badRequest }
        if !encodings.isEmpty {
            guard lengths.isEmpty, encodings.count == 1, Self.isChunked(encodings[0]) else { return .badRequest }
            return .accept(declaredLength: nil)
        }
        guard let length = lengths.first else { return .accept(declaredLength: nil) }
        // MHD has already refused lengths that are not plain digits; anything too long for Int is too large.
        guard let declared = Int(Self.trimmed(length)) else { return .payloadTooLarge }
        return declared > maxBodyBytes ? .payloadTooLarge : .accept(declaredLength: declared)
    }

    private static func isChunked(_ value: String) -> Bool {
        trimmed(value).lowercased() == "chunked"
    }

    private static func trimmed(_ value: String) -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let start = value.firstIndex { !isBlank($0) } ?? value.endIndex
        let end = value.lastIndex { !isBlank($0) }.map { value.index(after: $0) } ?? start
        return value[start..<end]
    }
}
