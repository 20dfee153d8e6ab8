import ParseWire

/// A client's `$regex` as the pattern PostgreSQL runs, under a policy that keeps every match bounded.
///
/// The SDKs quote literal text the Perl way (`startsWith("a.b")` sends `^\Qa.b\E`); PostgreSQL has no `\Q...\E`,
/// so the quoted text is escaped character by character here, as parse-server does. PostgreSQL matches most
/// patterns in time linear in the text, but a back-reference makes it backtrack, and one pattern could hold a
/// database connection for minutes: back-references are refused, as are patterns longer than `maximumLength`.
public struct RegexPattern: Sendable, Equatable {
    /// Characters of a client's pattern at most (MongoDB, parse-server's other store, stops at 32,764; a pattern
    /// this long already costs PostgreSQL more to compile than most matches take).
    public static let maximumLength = 1024

    /// The pattern in PostgreSQL's advanced syntax, embedded options included.
    public let postgresPattern: String
    /// `~*` rather than `~`.
    public let caseInsensitive: Bool

    /// `options` are Mongo's letters, `imxs`.
    public init(_ pattern: String, options: String = "") throws(ParseError) {
        guard options.allSatisfy({ "imxs".contains($0) }) else {
            throw ParseError(.invalidQuery, "Bad $options value for query: \(options)")
        }
        guard pattern.unicodeScalars.count <= Self.maximumLength else {
            throw ParseError(.invalidQuery, "$regex is too long: at most \(Self.maximumLength) characters are allowed.")
        }
        guard !pattern.unicodeScalars.contains("\0") else {
            throw ParseError(.invalidQuery, "$regex may not contain the NUL character.")
        }
        let translated = try Self.translate(pattern)
        // PostgreSQL's embedded options: `w` makes ^ and $ match at line breaks (Mongo's `m`), `x` is the same.
        // `.` matches a line break in PostgreSQL by default, as with Mongo's `s`.
        var embedded = ""
        if options.contains("m") { embedded += "w" }
        if options.contains("x") { embedded += "x" }
        postgresPattern = embedded.isEmpty ? translated : "(?\(embedded))" + translated
        caseInsensitive = options.contains("i")
    }

    /// The SQL operator that matches text with this pattern.
    public var sqlOperator: String { caseInsensitive ? "~*" : "~" }

    /// `\Q...\E` quoted literally, everything else passed on as written (PostgreSQL's advanced syntax reads
    /// Perl's classes and escapes); a back-reference is refused.
    private static func translate(_ pattern: String) throws(ParseError) -> String {
        let scalars = Array(pattern.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "\\", index + 1 < scalars.count else {
                result.append(scalar)
                index += 1
                continue
            }
            let escaped = scalars[index + 1]
            index += 2
            switch escaped {
            case "Q":
                // Literal up to the next `\E`, or to the end of the pattern.
                while index < scalars.count, !(scalars[index] == "\\" && index + 1 < scalars.count && scalars[index + 1] == "E") {
                    appendLiteral(scalars[index], to: &result)
                    index += 1
                }
                index += 2
            case "E":
                break // an `\E` that closes nothing, ignored as Perl does
            case "1"..."9":
                throw ParseError(.invalidQuery, "$regex back-references (\\\(escaped)) are not supported.")
            default:
                result.append(scalar)
                result.append(escaped)
            }
        }
        return String(result)
    }

    /// ASCII letters and digits stand for themselves; any other ASCII character is escaped (a backslash before a
    /// character that is not a letter or digit makes it literal, in brackets too). Characters beyond ASCII are
    /// never special, and escaping a non-ASCII letter or digit would make an unknown escape.
    private static func appendLiteral(_ scalar: Unicode.Scalar, to result: inout String.UnicodeScalarView) {
        if scalar.isASCII && !(scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) {
            result.append("\\")
        }
        result.append(scalar)
    }
}
