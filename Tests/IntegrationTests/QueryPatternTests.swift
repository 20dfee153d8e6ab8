import Foundation
import Testing

extension IntegrationSuite {
    /// `$regex` as the SDKs send it (`\Q...\E` around literal text) and the pattern policy, over HTTP and
    /// PostgreSQL.
    @Suite struct QueryPatterns {
        /// The SDKs' quoting of literal text, an `\E` inside it included.
        static func quote(_ text: String) -> String {
            "\\Q" + text.replacingOccurrences(of: "\\E", with: "\\E\\\\E\\Q") + "\\E"
        }

        static let names = ["bar", "foo bar", "barfoo", "a.b", "axb", "a+b", "x/y?", "it's", #"back\slash"#, #"a\Eb"#,
                            "(paren)", "Ünïcödé ok"]

        static func fixture() async throws -> String {
            let className = PostsHTTP.uniqueClass("Pattern")
            for (index, name) in names.enumerated() {
                let tags = index % 2 == 0 ? ["alpha", "beta"] : ["alpha"]
                _ = try await PostsHTTP.create(className, ["name": name, "tags": tags, "info": ["name": name]])
            }
            return className
        }

        static func names(_ className: String, _ whereClause: [String: Any]) async throws -> [String] {
            let reply = try await PostsHTTP.find(className, ["where": whereClause, "order": "name"])
            #expect(reply.status == 200, "\(whereClause): \(reply.text)")
            return PostsHTTP.results(reply).compactMap { $0["name"] as? String }.sorted()
        }

        @Test func startsWithEndsWithAndContainsMatchTheLiteralText() async throws {
            let className = try await Self.fixture()
            let cases: [(String, [String])] = [
                ("^" + Self.quote("bar"), ["bar", "barfoo"]),
                (Self.quote("bar") + "$", ["bar", "foo bar"]),
                (Self.quote("bar"), ["bar", "barfoo", "foo bar"]),
                ("^" + Self.quote("a.b"), ["a.b"]),
                (Self.quote("a+b"), ["a+b"]),
                (Self.quote("x/y?"), ["x/y?"]),
                (Self.quote("it's"), ["it's"]),
                (Self.quote(#"k\s"#), [#"back\slash"#]),
                (Self.quote(#"a\Eb"#), [#"a\Eb"#]),
                ("^" + Self.quote("(paren)") + "$", ["(paren)"]),
                (Self.quote("Ünïcödé o"), ["Ünïcödé ok"]),
                ("^" + Self.quote("o b"), []),
            ]
            for (pattern, expected) in cases {
                #expect(try await Self.names(className, ["name": ["$regex": pattern]]) == expected.sorted(), "\(pattern)")
            }
            #expect(try await Self.names(className, ["name": ["$regex": "^" + Self.quote("BAR"), "$options": "i"]])
                    == ["bar", "barfoo"])
            #expect(try await Self.names(className, ["info.name": ["$regex": "^" + Self.quote("a.b")]]) == ["a.b"])
        }

        @Test func containsAllStartingWithNeedsEveryPrefix() async throws {
            let className = try await Self.fixture()
            let both = try await Self.names(className, ["tags": ["$all": [["$regex": "^" + Self.quote("al")],
                                                                          ["$regex": "^" + Self.quote("be")]]]])
            #expect(both == Self.names.enumerated().filter { $0.offset % 2 == 0 }.map(\.element).sorted())
            let none = try await Self.names(className, ["tags": ["$all": [["$regex": "^" + Self.quote("lpha")]]]])
            #expect(none.isEmpty)
            let mixed = try await PostsHTTP.find(className, ["where": ["tags": ["$all": [["$regex": "^" + Self.quote("al")], "beta"]]]])
            #expect(mixed.status == 400)
            #expect(AuthAPI.error(mixed) == (107, "All $all values must be of regex type or none: [object Object],beta"))
        }

        @Test func patternsPostgreSQLCannotBoundAreRefused() async throws {
            let className = try await Self.fixture()
            for pattern in [#"^(a+)+\1$"#, #"(.*)(.*)(.*)\3\2\1"#, String(repeating: "a", count: 1025), "a\u{0}b"] {
                let reply = try await PostsHTTP.find(className, ["where": ["name": ["$regex": pattern]]])
                #expect(reply.status == 400, "\(pattern.prefix(40))")
                #expect(AuthAPI.error(reply).0 == 102, "\(reply.text)")
            }
            let broken = try await PostsHTTP.find(className, ["where": ["name": ["$regex": "(unclosed"]]])
            #expect(broken.status == 400)
            #expect(AuthAPI.error(broken) == (102, "Invalid regular expression in $regex."))
        }

        @Test func usersCustomFieldsTakeTheSameQuoting() async throws {
            let user = try await AuthAPI.signUp("pattern", extra: ["motto": "a.b and more"])
            let hit = try await AuthQuery.find("users", ["objectId": user.id, "motto": ["$regex": "^" + Self.quote("a.b")]], as: .master)
            #expect(AuthQuery.ids(hit) == [user.id])
            let miss = try await AuthQuery.find("users", ["objectId": user.id, "motto": ["$regex": "^" + Self.quote("axb")]], as: .master)
            #expect(miss.status == 200)
            #expect(AuthQuery.ids(miss).isEmpty)
            let refused = try await AuthQuery.find("users", ["motto": ["$regex": #"(a)\1"#]], as: .master)
            #expect(AuthAPI.error(refused).0 == 102)
        }
    }
}
