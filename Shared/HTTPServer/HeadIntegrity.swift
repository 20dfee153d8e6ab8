#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CMicroHTTPD

/// Finds what MHD's C strings hide: MHD ends the request target and each header value at the first NUL byte
/// and passes on the rest of the line as if it were not there (so `X-Parse-Master-Key: <key>\0junk` would read
/// as the key, and `/classes/Probe%00evil` as `/classes/Probe`). RFC 9110 forbids NUL in both; such a request
/// gets 400.
///
/// MHD parses the head in place, in one buffer: the request line and each header line stay where they arrived,
/// their line ends replaced by NULs. So each line must end exactly where its value's reported length says, one or
/// two bytes (LF or CRLF) before the next line starts; anything in between was cut off at a NUL. A continuation
/// line (obsolete folding, which RFC 9112 lets a server refuse) moves a value out of the buffer and is refused
/// the same way.
enum HeadIntegrity {
    static func isIntact(_ connection: OpaquePointer, method: UnsafePointer<CChar>, url: UnsafePointer<CChar>,
                         version: UnsafePointer<CChar>?, target: RawTarget?) -> Bool {
        if target?.encodesNUL == true { return false }
        let headSize = CMHD_connection_header_size(connection)
        guard headSize > 0, let version else { return true }
        let start = Int(bitPattern: method), end = start + headSize
        let versionStart = Int(bitPattern: version), urlStart = Int(bitPattern: url)
        // HTTP/0.9-style lines have no version in the buffer; MHD refuses those without a Host anyway.
        guard (start..<end).contains(versionStart), (start..<versionStart).contains(urlStart) else { return true }
        if let target, versionStart - 1 - urlStart != target.length { return false }
        var lineEnd = versionStart + strlen(version)
        var intact = true
        forEachHeader(of: connection) { key, value, valueSize in
            let keyStart = Int(bitPattern: key), valueStart = Int(bitPattern: value)
            guard (1...2).contains(keyStart - lineEnd), valueStart > keyStart, valueStart < end else {
                intact = false
                return false
            }
            lineEnd = valueStart + valueSize
            return true
        }
        // The last line's end, then the empty line that ends the head (each LF or CRLF).
        return intact && (2...4).contains(end - lineEnd)
    }

    private static func forEachHeader(of connection: OpaquePointer,
                                      _ body: (UnsafePointer<CChar>, UnsafePointer<CChar>, Int) -> Bool) {
        withoutActuallyEscaping(body) { body in
            var visit = body
            withUnsafeMutablePointer(to: &visit) { pointer in
                _ = MHD_get_connection_values_n(connection, .HEADER_KIND, visitHeader, pointer)
            }
        }
    }
}

private typealias HeaderVisitor = (UnsafePointer<CChar>, UnsafePointer<CChar>, Int) -> Bool

private let visitHeader: MHD_KeyValueIteratorN = { cls, _, key, _, value, valueSize in
    guard let cls, let key, let value else { return .NO }
    let visit = cls.assumingMemoryBound(to: HeaderVisitor.self)
    return visit.pointee(key, value, valueSize) ? .YES : .NO
}
