import Foundation

/// A single `Range: bytes=...` request against a file of known size (RFC 9110 section 14.1.2). Several ranges
/// in one header are served as the whole file, which the RFC allows.
enum FileByteRange: Equatable {
    /// No usable range: send everything with 200.
    case whole
    /// Bytes `lowerBound...upperBound` with 206.
    case part(ClosedRange<Int>)
    /// 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    init(header: String?, size: Int) {
        guard let header = header?.trimmingCharacters(in: .whitespaces), header.lowercased().hasPrefix("bytes="),
              !header.contains(",") else {
            self = .whole
            return
        }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            // A suffix: the last N bytes.
            guard let count = Int(last), count >= 0 else {   // `bytes=--3` is garbage, not a suffix
                self = .whole
                return
            }
            self = count == 0 || size == 0 ? .unsatisfiable : .part(max(0, size - count)...(size - 1))
            return
        }
        guard let start = Int(first), start >= 0, last.isEmpty || Int(last) != nil else {
            self = .whole
            return
        }
        if let end = Int(last), end < start {
            self = .whole
            return
        }
        guard start < size else {
            self = .unsatisfiable
            return
        }
        let end = min(Int(last) ?? (size - 1), size - 1)
        self = .part(start...end)
    }
}
