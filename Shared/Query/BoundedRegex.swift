import CPCRE2
import ParseWire
import Synchronization

/// A client's `$regex` for matching in memory (live), with PCRE2 under a match limit and a depth limit, so a
/// pattern that backtracks catastrophically (`(a+)+$` against `aaaa…!`) gives up after a bounded amount of work
/// instead of holding its thread for seconds; `exceededLimit` then says so. Foundation's `NSRegularExpression`
/// has no such bound.
///
/// Matches as PostgreSQL's `~`/`~*` do for the patterns both accept (what the SQL side runs, see `RegexPattern`):
/// `.` matches a line break, `$` only the end of the text (with `m`, `^` and `$` match at line breaks too), `x`
/// allows spaces and comments, `i` ignores case. Immutable once compiled and safe to share between threads.
public final class BoundedRegex: @unchecked Sendable {
    /// PCRE2's count of backtracking steps per match: more than ordinary patterns need on a field's text, and
    /// small enough that a pattern reaching it costs a fraction of a millisecond (a subscription that reaches it
    /// is dropped, but its client may subscribe again).
    public static let matchLimit: UInt32 = 20_000
    /// Nested backtracking points per match.
    public static let depthLimit: UInt32 = 10_000

    // Compiled once, read-only afterwards (PCRE2 documents both as shareable between threads).
    private let code: OpaquePointer
    private let context: OpaquePointer
    private let exceeded = Atomic<Bool>(false)

    /// `options` are Mongo's letters, `imxs`; a pattern PCRE2 cannot compile is parse-server's 102.
    public init(_ pattern: String, options: String = "") throws(ParseError) {
        var flags = UInt32(PCRE2_UTF) | UInt32(PCRE2_DOTALL)
        if options.contains("i") { flags |= UInt32(PCRE2_CASELESS) }
        if options.contains("m") { flags |= UInt32(PCRE2_MULTILINE) } else { flags |= UInt32(PCRE2_DOLLAR_ENDONLY) }
        if options.contains("x") { flags |= UInt32(PCRE2_EXTENDED) }
        var errorCode: Int32 = 0
        var errorOffset = 0
        let compiled = pattern.utf8CString.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UInt8.self, capacity: buffer.count) {
                pcre2_compile_8($0, buffer.count - 1, flags, &errorCode, &errorOffset, nil)
            }
        }
        guard let compiled else { throw ParseError(.invalidQuery, "Invalid regular expression: \(pattern)") }
        guard let context = pcre2_match_context_create_8(nil) else {
            pcre2_code_free_8(compiled)
            throw ParseError(.invalidQuery, "Invalid regular expression: \(pattern)")
        }
        pcre2_set_match_limit_8(context, Self.matchLimit)
        pcre2_set_depth_limit_8(context, Self.depthLimit)
        code = compiled
        self.context = context
    }

    deinit {
        pcre2_code_free_8(code)
        pcre2_match_context_free_8(context)
    }

    /// Whether `text` has a match. A match that reaches a limit counts as none and sets `exceededLimit`.
    public func matches(_ text: String) -> Bool {
        guard let data = pcre2_match_data_create_from_pattern_8(code, nil) else { return false }
        defer { pcre2_match_data_free_8(data) }
        var text = text
        let result = text.withUTF8 { bytes in
            guard let start = bytes.baseAddress else {
                return Self.empty.withUnsafeBufferPointer { pcre2_match_8(code, $0.baseAddress!, 0, 0, 0, data, context) }
            }
            return pcre2_match_8(code, start, bytes.count, 0, 0, data, context)
        }
        if result >= 0 { return true }
        if result == PCRE2_ERROR_MATCHLIMIT || result == PCRE2_ERROR_DEPTHLIMIT || result == PCRE2_ERROR_HEAPLIMIT {
            exceeded.store(true, ordering: .relaxed)
        }
        return false
    }

    /// A subject for the empty text, which has no bytes of its own to point at.
    private static let empty: [UInt8] = [0]

    /// Whether a match gave up at a limit: the pattern is too costly to match live.
    public var exceededLimit: Bool { exceeded.load(ordering: .relaxed) }
}
