/// Decides, from the head alone, whether a request may go on to its body. MHD accepts several
/// `Content-Length` lines (it keeps the first, leaving the rest of the body in the stream as a next request) and
/// lets `Transfer-Encoding` silently win over `Content-Length`; both are classic request-smuggling shapes, so
/// they are refused here before any body byte is read.
struct RequestHeadPolicy: Sendable {
    enum Verdict: Equatable, Sendable {
        /// Go on; `declaredLength` is the `Content-Length`, if any, to size the body buffer.
        case accept(declaredLength: Int?)
        case badRequest
        /// The declared length, when it is a number at all.
        case payloadTooLarge(declaredLength: Int?)
    }

    let maxBodyBytes: Int

    func verdict(for headers: HTTPHeaders) -> Verdict {
        // MHD keeps a name with whitespace before its colon (`Transfer-Encoding : chunked`) as a different
        // header, so the framing it implies would be ignored; RFC 9112 requires 400 for it.
        guard headers.allSatisfy({ Self.isToken($0.name) }) else { return .badRequest }
        let lengths = headers.values("Content-Length")
        let encodings = headers.values("Transfer-Encoding")
        if lengths.count > 1 { return .badRequest }
        if !encodings.isEmpty {
            guard lengths.isEmpty, encodings.count == 1, Self.isChunked(encodings[0]) else { return .badRequest }
            return .accept(declaredLength: nil)
        }
        guard let length = lengths.first else { return .accept(declaredLength: nil) }
        // MHD has already refused lengths that are not plain digits; anything too long for Int is too large.
        guard let declared = Int(Self.trimmed(length)) else { return .payloadTooLarge(declaredLength: nil) }
        return declared > maxBodyBytes ? .payloadTooLarge(declaredLength: declared) : .accept(declaredLength: declared)
    }

    /// RFC 9110's `token`: what a field name must be.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
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
