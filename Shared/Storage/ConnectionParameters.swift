/// Keyword/value pairs for `PQconnectdbParams`, built around a libpq URI or conninfo string.
struct ConnectionParameters: Sendable {
    private(set) var keywords: [String] = []
    private(set) var values: [String] = []

    /// libpq expands `url` where the first `dbname` keyword stands: pairs before it are defaults the
    /// URL may override, pairs after it (`overrides`) win over the URL.
    init(url: String, overrides: [(String, String)] = []) {
        append("connect_timeout", "10")
        append("dbname", url)
        // Swift strings are UTF-8; never let the server pick another client encoding.
        append("client_encoding", "UTF8")
        for (keyword, value) in overrides { append(keyword, value) }
    }

    private mutating func append(_ keyword: String, _ value: String) {
        keywords.append(keyword)
        values.append(value)
    }
}
