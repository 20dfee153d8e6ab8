#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// C string copies for libpq calls that take `const char *const *` arrays.
enum CStringArray {
    /// Calls `body` with one C string per element (nil stays NULL) and, when `nullTerminated`,
    /// a trailing NULL. The pointers are valid only inside `body`.
    static func with<Result>(_ strings: [String?], nullTerminated: Bool = false,
                             _ body: ([UnsafePointer<CChar>?]) throws -> Result) throws -> Result {
        var copies: [UnsafeMutablePointer<CChar>?] = []
        copies.reserveCapacity(strings.count + 1)
        defer { copies.forEach { free($0) } }
        for string in strings {
            guard let string else { copies.append(nil); continue }
            // A C string ends at the first NUL: refuse rather than silently truncate the value.
            guard !string.utf8.contains(0) else {
                throw PostgresError(sqlState: "22021", message: "a parameter contains a NUL character")
            }
            copies.append(strdup(string))
        }
        if nullTerminated { copies.append(nil) }
        return try body(copies.map { $0.map { UnsafePointer($0) } })
    }
}
