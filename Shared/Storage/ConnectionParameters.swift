/// Keyword/value pairs for `PQconnectdbParams`, built around a libpq URI or conninfo string.
struct ConnectionParameters: Sendable {
    private(set) var keywords: [String] = []
    private(set) var values: [String] = []

    /// libpq expands `url` where the first `dbname` keyword stands: pairs before it are defaults the
    /// URL may override, pairs after it (`overrides`) win over the URL. `settings` become the session's
    /// starting settings (`options`, as `-c name=value`), unless the URL sets `options` itself.
    init(url: String, settings: [String: String] = [:], overrides: [(String, String)] = []) {
        append("connect_timeout", "10")
        if !settings.isEmpty {
            append("options", settings.sorted { $0.key < $1.key }
                .map { "-c \(Self.escaped($0.key))=\(Self.escaped($0.value))" }.joined(separator: " "))
        }
        append("dbname", url)
        // Swift strings are UTF-8; never let the server pick another client encoding.
        append("client_encoding", "UTF8")
        for (keyword, value) in overrides { append(keyword, value) }
    }

    /// libpq splits `options` at spaces not escaped by a backslash.
    private static func escaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == " " || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    private mutating func append(_ keyword: String, _ value: String) {
        keywords.append(keyword)
        values.append(value)
    }
}
