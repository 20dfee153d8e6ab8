import Foundation
import Testing

extension IntegrationSuite {
    /// Every Date a client may send is stored as that instant in PostgreSQL and answered as the same text,
    /// whatever the year: the Swift side once read dates before 1582-10-15 in the Julian calendar.
    @Suite struct DateRange {
        static let named = ["0001-01-01T00:00:00.000Z", "1000-01-01T00:00:00.000Z", "1500-03-01T12:00:00.000Z",
                            "1582-10-04T00:00:00.000Z", "1582-10-15T00:00:00.000Z", "1899-12-31T23:59:59.999Z",
                            "1970-01-01T00:00:00.000Z", "2026-12-01T14:30:00.123Z", "9999-12-31T23:59:59.999Z"]

        /// Dates spread over the whole range, different on every run; a failure prints the ones it met.
        static func generated(_ count: Int) -> [String] {
            let first = -62_135_596_800_000.0, last = 253_402_300_799_999.0
            return (0..<count).map { _ in Self.text(millis: Int64(Double.random(in: first...last).rounded(.down))) }
        }

        /// `YYYY-MM-DDTHH:MM:SS.mmmZ` for milliseconds since 1970, in the proleptic Gregorian calendar, written
        /// here by day counting so the test does not share the server's code.
        static func text(millis: Int64) -> String {
            var days = millis >= 0 ? millis / 86_400_000 : (millis - 86_399_999) / 86_400_000
            let msOfDay = millis - days * 86_400_000
            var year: Int64 = 1970
            func leap(_ y: Int64) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }
            func length(_ y: Int64) -> Int64 { leap(y) ? 366 : 365 }
            // Whole 400-year cycles first (146,097 days each), then years.
            let cycles = days >= 0 ? days / 146_097 : (days - 146_096) / 146_097
            year += cycles * 400
            days -= cycles * 146_097
            while days >= length(year) { days -= length(year); year += 1 }
            let months: [Int64] = [31, leap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            var month = 0
            while days >= months[month] { days -= months[month]; month += 1 }
            return String(format: "%04lld-%02d-%02lldT%02lld:%02lld:%02lld.%03lldZ", year, month + 1, days + 1,
                          msOfDay / 3_600_000, msOfDay / 60_000 % 60, msOfDay / 1000 % 60, msOfDay % 1000)
        }

        static func date(_ iso: String) -> [String: Any] { ["__type": "Date", "iso": iso] }

        @Test func theCheckerCountsDaysAsPostgreSQLDoes() {
            #expect(Self.text(millis: -62_135_596_800_000) == "0001-01-01T00:00:00.000Z")
            #expect(Self.text(millis: -14_826_628_800_000) == "1500-03-01T12:00:00.000Z")
            #expect(Self.text(millis: -1) == "1969-12-31T23:59:59.999Z")
            #expect(Self.text(millis: 253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
        }

        @Test func datesRoundTripThroughHTTPAndPostgreSQL() async throws {
            let className = PostsHTTP.uniqueClass("Dated")
            let dates = Self.named + Self.generated(40)
            var ids: [String: String] = [:]
            for iso in dates {
                ids[iso] = try await PostsHTTP.create(className, ["when": Self.date(iso), "label": iso])
            }
            for iso in dates {
                let id = try #require(ids[iso])
                let reply = try await PostsHTTP.send("GET", "/classes/\(className)/\(id)")
                #expect((reply.json?["when"] as? [String: Any])?["iso"] as? String == iso)
                // What PostgreSQL holds is that instant too, not only what reads back.
                let stored = try VotesAPI.sql("parse_posts", """
                    SELECT to_char(\\"when\\" AT TIME ZONE 'UTC', 'YYYY-MM-DD\\"T\\"HH24:MI:SS.MS\\"Z\\"') \
                    FROM classes.\\"\(className)\\" WHERE \\"objectId\\" = '\(id)'
                    """)
                #expect(stored == [iso], "\(iso)")
                // Equality on the exact instant finds exactly that object.
                let found = try await PostsHTTP.find(className, ["where": ["when": Self.date(iso)]])
                #expect(PostsHTTP.results(found).compactMap { $0["label"] as? String } == [iso])
            }
            let before = try await PostsHTTP.find(className, ["where": ["when": ["$lt": Self.date("1582-10-15T00:00:00.000Z")]],
                                                              "limit": 1000])
            let expected = dates.filter { $0 < "1582-10-15" }.sorted()
            #expect(PostsHTTP.results(before).compactMap { $0["label"] as? String }.sorted() == expected)
        }

        @Test func systemDatesAndUserDatesKeepOldYears() async throws {
            let className = PostsHTTP.uniqueClass("Imported")
            let id = try await PostsHTTP.create(className, ["createdAt": "1500-03-01T12:00:00.000Z",
                                                            "updatedAt": "0001-01-01T00:00:00.000Z"], master: true)
            let reply = try await PostsHTTP.send("GET", "/classes/\(className)/\(id)")
            #expect(reply.json?["createdAt"] as? String == "1500-03-01T12:00:00.000Z")
            #expect(reply.json?["updatedAt"] as? String == "0001-01-01T00:00:00.000Z")

            let user = try await AuthAPI.signUp("dated", extra: ["born": Self.date("1000-01-01T00:00:00.000Z")])
            let me = try await AuthAPI.send("GET", "/users/me", token: user.token)
            #expect((me.json?["born"] as? [String: Any])?["iso"] as? String == "1000-01-01T00:00:00.000Z")
        }

        @Test func whatIsNoDateIsAClearParseError() async throws {
            let className = PostsHTTP.uniqueClass("Undated")
            for iso in ["0000-12-31T00:00:00.000Z", "1500-02-30T00:00:00.000Z", "garbage", "+010000-01-01T00:00:00.000Z"] {
                let reply = try await PostsHTTP.send("POST", "/classes/\(className)", ["when": Self.date(iso)])
                #expect(reply.status == 400, "\(iso)")
                #expect(AuthAPI.error(reply) == (111, "This is not a valid Date"), "\(iso): \(reply.text)")
            }
        }
    }
}
