import ParseWire

/// `$text` on PostgreSQL's full-text search. The language becomes a `regconfig` literal (it is checked against
/// PostgreSQL's own configurations first), so the condition matches the GIN index on
/// `to_tsvector('<language>', field)` that the first such query builds. Terms follow MongoDB's `$search`, which the
/// SDKs document: words are alternatives, `"quoted phrases"` are required, `-word` excludes; the score is MongoDB's
/// too (each matching word weighs `0.5 + 0.5 * occurrences / words in the field`, repeats counting less each time),
/// so `order=$score` ranks as parse-server does on MongoDB.
extension WhereTranslator {
    public static let textLanguages: Set<String> = [
        "simple", "arabic", "armenian", "basque", "catalan", "danish", "dutch", "english", "finnish", "french", "german",
        "greek", "hindi", "hungarian", "indonesian", "irish", "italian", "lithuanian", "nepali", "norwegian", "portuguese",
        "romanian", "russian", "serbian", "spanish", "swedish", "tamil", "turkish", "yiddish",
    ]

    func text(_ operand: JSONValue, _ column: QueryColumn, field: String) throws(ParseError) -> String {
        guard let search = operand["$search"], search.objectValue != nil else {
            throw ParseError(.invalidJSON, "bad $text: $search, should be object")
        }
        guard let term = search["$term"]?.stringValue, !term.isEmpty else {
            throw ParseError(.invalidJSON, "bad $text: $term, should be string")
        }
        var language = "english"
        if let value = search["$language"] {
            guard let name = value.stringValue else { throw ParseError(.invalidJSON, "bad $text: $language, should be string") }
            guard Self.textLanguages.contains(name.lowercased()) else {
                throw ParseError(.invalidJSON, "bad $text: $language, \(name) is not a language PostgreSQL's full-text search knows")
            }
            language = name.lowercased()
        }
        if let value = search["$caseSensitive"] {
            guard let flag = value.boolValue else { throw ParseError(.invalidJSON, "bad $text: $caseSensitive, should be boolean") }
            if flag {
                throw ParseError(.invalidJSON, "bad $text: $caseSensitive not supported, please use $regex or create a separate lower case column.")
            }
        }
        if let value = search["$diacriticSensitive"] {
            guard let flag = value.boolValue else { throw ParseError(.invalidJSON, "bad $text: $diacriticSensitive, should be boolean") }
            if !flag {
                throw ParseError(.invalidJSON, "bad $text: $diacriticSensitive - false not supported, install Postgres Unaccent Extension")
            }
        }
        if column.isSchemaless {
            throw ParseError(.invalidQuery, "The query operator $text is not supported on this class by this server.")
        }
        guard column.exists else { return "FALSE" }
        guard column.type.kind == .string, !column.isNested else {
            throw ParseError(.invalidQuery, "$text applies to String fields only.")
        }
        let config = "'\(language)'::regconfig"
        let (words, phrases, excluded) = Self.searchParts(term)
        // The score reads the same parameters: one the count statement did not use would have no type.
        let wanted = (words + phrases).map { bind($0) + "::text" }
        var query = words.isEmpty ? "" : "(" + wanted.prefix(words.count).map { "plainto_tsquery(\(config), \($0))" }.joined(separator: " || ") + ")"
        for phrase in wanted.dropFirst(words.count) {
            query += (query.isEmpty ? "" : " && ") + "phraseto_tsquery(\(config), \(phrase))"
        }
        guard !query.isEmpty else { return "FALSE" }
        for word in excluded { query += " && !!plainto_tsquery(\(config), \(bind(word))::text)" }
        let vector = "to_tsvector(\(config), \(column.sql))"
        textSearches.append((field, language))
        if textScore == nil {
            let wanted = "concat_ws(' ', \(wanted.joined(separator: ", ")))"
            textScore = """
                (SELECT COALESCE(sum((2 - power(2, 1 - cardinality(found.positions))) \
                * (0.5 * cardinality(found.positions) / counted.total + 0.5)), 0) \
                FROM unnest(\(vector)) AS found, (SELECT sum(cardinality(positions)) AS total FROM unnest(\(vector))) AS counted \
                WHERE found.lexeme = ANY(tsvector_to_array(to_tsvector(\(config), \(wanted)))))
                """
        }
        return "\(vector) @@ (\(query))"
    }

    /// The words, quoted phrases and `-excluded` words of a MongoDB `$search` term.
    static func searchParts(_ term: String) -> (words: [String], phrases: [String], excluded: [String]) {
        var words: [String] = [], phrases: [String] = [], excluded: [String] = []
        var rest = Substring(term)
        while let quote = rest.firstIndex(of: "\"") {
            let after = rest.index(after: quote)
            guard let end = rest[after...].firstIndex(of: "\"") else { break }
            let phrase = rest[after..<end].trimmingCharacters(in: .whitespaces)
            if !phrase.isEmpty { phrases.append(phrase) }
            rest = rest[..<quote] + " " + rest[rest.index(after: end)...]
        }
        for word in rest.split(whereSeparator: { $0.isWhitespace || $0 == "\"" }) {
            if word.hasPrefix("-") {
                if word.count > 1 { excluded.append(String(word.dropFirst())) }
            } else {
                words.append(String(word))
            }
        }
        return (words, phrases, excluded)
    }
}
