import Foundation
import Testing

extension IntegrationSuite {
    /// `$text` over HTTP, as the SDKs' `fullText`/`matchesText` send it, with `order=$score` and `keys=$score`.
    @Suite struct PostsTextSearch {
        static let subjects = ["coffee", "Coffee Shopping", "Baking a cake", "baking", "Café Con Leche", "Сырники",
                               "coffee and cream", "Cafe con Leche"]

        static func fixture() async throws -> String {
            let c = PostsHTTP.uniqueClass("Note")
            for subject in subjects { _ = try await PostsHTTP.create(c, ["subject": subject]) }
            return c
        }

        static func search(_ term: String, language: String? = nil) -> String {
            var search: [String: Any] = ["$term": term]
            if let language { search["$language"] = language }
            let data = try! JSONSerialization.data(withJSONObject: ["subject": ["$text": ["$search": search]]])
            return String(decoding: data, as: UTF8.self)
        }

        static func subjects(_ c: String, _ clause: String, _ extra: [String: Any] = ["order": "subject"]) async throws -> [String] {
            var parameters = extra
            parameters["where"] = clause
            let reply = try await PostsHTTP.find(c, parameters)
            #expect(reply.status == 200, "\(clause): \(reply.text)")
            return PostsHTTP.results(reply).compactMap { $0["subject"] as? String }
        }

        @Test func wordsPhrasesAndExclusionsFindTheirObjects() async throws {
            let c = try await Self.fixture()
            #expect(try await Self.subjects(c, Self.search("coffee")) == ["Coffee Shopping", "coffee", "coffee and cream"])
            // Stemmed: "bake" finds "baking".
            #expect(try await Self.subjects(c, Self.search("bake")) == ["Baking a cake", "baking"])
            // Words are alternatives, a phrase is required, a minus excludes.
            #expect(try await Self.subjects(c, Self.search("cake cream")) == ["Baking a cake", "coffee and cream"])
            #expect(try await Self.subjects(c, Self.search("coffee -cream")) == ["Coffee Shopping", "coffee"])
            #expect(try await Self.subjects(c, Self.search("\"coffee shopping\"")) == ["Coffee Shopping"])
            #expect(try await Self.subjects(c, Self.search("leche", language: "spanish")) == ["Cafe con Leche", "Café Con Leche"])
            // Diacritics count (PostgreSQL has no accent folding without the unaccent extension).
            #expect(try await Self.subjects(c, Self.search("café", language: "simple")) == ["Café Con Leche"])
            #expect(try await Self.subjects(c, Self.search("сырники", language: "russian")) == ["Сырники"])
            #expect(try await Self.subjects(c, Self.search("and")) == [])
            #expect(try await Self.subjects(c, #"{"elsewhere":{"$text":{"$search":{"$term":"coffee"}}}}"#) == [])
            let count = try await PostsHTTP.find(c, ["where": Self.search("coffee"), "count": 1, "limit": 0])
            #expect(count.json?["count"] as? Int == 3)
        }

        @Test func scoresRankAsParseServerOnMongoDB() async throws {
            let c = try await Self.fixture()
            let reply = try await PostsHTTP.find(c, ["where": Self.search("coffee"), "order": "$score", "keys": "$score"])
            let results = PostsHTTP.results(reply)
            #expect(results.compactMap { $0["score"] as? Double } == [1, 0.75, 0.75], "\(reply.text)")
            #expect(results.first?["subject"] == nil)
            let full = try await PostsHTTP.find(c, ["where": Self.search("coffee"), "order": "-$score"])
            #expect(PostsHTTP.results(full).first?["subject"] as? String == "coffee")
            #expect(PostsHTTP.results(full).first?["score"] as? Double == 1)
        }

        @Test func badSearchesAnswerParseServersErrors() async throws {
            let c = try await Self.fixture()
            let cases: [(String, Int, String)] = [
                (#"{"subject":{"$text":{"$search":"coffee"}}}"#, 107, "bad $text: $search, should be object"),
                (#"{"subject":{"$text":{}}}"#, 107, "bad $text: $search, should be object"),
                (#"{"subject":{"$text":{"$search":{"$term":3}}}}"#, 107, "bad $text: $term, should be string"),
                (#"{"subject":{"$text":{"$search":{"$term":"x","$language":1}}}}"#, 107, "bad $text: $language, should be string"),
                (#"{"subject":{"$text":{"$search":{"$term":"x","$language":"klingon"}}}}"#, 107,
                 "bad $text: $language, klingon is not a language PostgreSQL's full-text search knows"),
                (#"{"subject":{"$text":{"$search":{"$term":"x","$caseSensitive":"yes"}}}}"#, 107, "bad $text: $caseSensitive, should be boolean"),
                (#"{"subject":{"$text":{"$search":{"$term":"x","$caseSensitive":true}}}}"#, 107,
                 "bad $text: $caseSensitive not supported, please use $regex or create a separate lower case column."),
                (#"{"subject":{"$text":{"$search":{"$term":"x","$diacriticSensitive":1}}}}"#, 107,
                 "bad $text: $diacriticSensitive, should be boolean"),
                (#"{"subject":{"$text":{"$search":{"$term":"x","$diacriticSensitive":false}}}}"#, 107,
                 "bad $text: $diacriticSensitive - false not supported, install Postgres Unaccent Extension"),
                (#"{"createdAt":{"$text":{"$search":{"$term":"x"}}}}"#, 102, "$text applies to String fields only."),
            ]
            for (clause, code, message) in cases {
                let reply = try await PostsHTTP.find(c, ["where": clause])
                #expect(reply.status == 400, "\(clause): \(reply.text)")
                #expect(reply.code == code, "\(clause): \(reply.text)")
                #expect(reply.error == message, "\(clause): \(reply.text)")
            }
            // Characters that mean something to PostgreSQL's tsquery syntax are only words here.
            #expect(try await Self.subjects(c, Self.search("coffee & | ! ( ) : *")) == ["Coffee Shopping", "coffee", "coffee and cream"])
        }
    }
}
