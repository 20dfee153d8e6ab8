#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// C string copies for libpq calls that take `const char *const *` arrays.
enum CStringArray {
    /// Calls `body` with one C string per element (nil stays NULL) and, when `nullTerminated`,
    /// a trailing NULL. The pointers are valid only inside `body`. The strings are copied into one buffer with
    /// `memchr` and `memcpy`: a copy and a scan byte by byte per parameter were a few per cent of a service's CPU
    /// when it binds thousands of values a second.
    static func with<Result>(_ strings: [String?], nullTerminated: Bool = false,
                             _ body: ([UnsafePointer<CChar>?]) throws -> Result) throws -> Result {
        let total = strings.reduce(0) { $0 + ($1.map { $0.utf8.count + 1 } ?? 0) }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(total, 1))
        defer { buffer.deallocate() }
        var pointers: [UnsafePointer<CChar>?] = []
        pointers.reserveCapacity(strings.count + 1)
        var offset = 0
        for string in strings {
            guard var string else { pointers.append(nil); continue }
            let start = buffer + offset
            let copied = string.withUTF8 { bytes -> Bool in
                guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
                // A C string ends at the first NUL: refuse rather than silently truncate the value.
                guard memchr(base, 0, bytes.count) == nil else { return false }
                memcpy(start, base, bytes.count)
                return true
            }
            guard copied else { throw nulCharacter }
            let count = string.utf8.count
            start[count] = 0
            pointers.append(UnsafePointer(start))
            offset += count + 1
        }
        if nullTerminated { pointers.append(nil) }
        return try body(pointers)
    }

    static let nulCharacter = PostgresError(sqlState: "22021", message: "a parameter contains a NUL character")

    /// Throws what `with` would for `strings`, for a caller that must know before it starts (a pipeline cannot
    /// stop half-way through queuing its statements).
    static func check(_ strings: [String?]) throws {
        for case var string? in strings {
            let clean = string.withUTF8 { bytes in bytes.baseAddress.map { memchr($0, 0, bytes.count) == nil } ?? true }
            guard clean else { throw nulCharacter }
        }
    }
}
