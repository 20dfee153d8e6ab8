import ParseWire

/// `GET /scriptlog`'s parameters as parse-server's `LogsRouter` and `LoggerController` read them: `from` (a
/// week ago unless a valid date), `until` (now), `size` or `n` (10 unless a positive number; here at most
/// `maximumSize`), `order` (`asc`, or newest first), `level` (`error` for errors only, anything else for every
/// kept line, as parse-server answers from its error file or its main one).
struct ScriptLogQuery: Equatable {
    static let maximumSize = 10_000
    static let week: Int64 = 7 * 24 * 3_600 * 1_000

    var from: Int64
    var until: Int64
    var size: Int
    var ascending: Bool
    var errorsOnly: Bool

    init(query: [String: String], now: Int64) {
        from = query["from"].flatMap(ParseDate.milliseconds(from:)) ?? now - Self.week
        until = query["until"].flatMap(ParseDate.milliseconds(from:)) ?? now
        // Clamped as a Double first: converting a huge one to Int would trap.
        let requested = (query["n"] ?? query["size"]).flatMap { Double($0) }.map { $0.isFinite ? $0 : 0 } ?? 0
        size = requested >= 1 ? Int(min(requested, Double(Self.maximumSize))) : 10
        ascending = query["order"] == "asc"
        errorsOnly = query["level"] == "error"
    }
}
