@testable import CloudCore
import Testing

/// `/scriptlog`'s parameters as parse-server's `LogsRouter` and `LoggerController.parseOptions` read them.
struct ScriptLogQueryTests {
    static let now: Int64 = 1_764_944_000_000

    @Test func defaultsToTheLastWeeksTenNewestLinesOfEveryLevel() {
        let query = ScriptLogQuery(query: [:], now: Self.now)
        #expect(query.from == Self.now - ScriptLogQuery.week && query.until == Self.now)
        #expect(query.size == 10 && !query.ascending && !query.errorsOnly)
    }

    @Test func readsEachParameter() {
        let query = ScriptLogQuery(query: ["from": "2025-12-01T00:00:00.000Z", "until": "2025-12-02T00:00:00Z",
                                           "size": "3", "order": "asc", "level": "error"], now: Self.now)
        #expect(query.from == 1_764_547_200_000 && query.until == 1_764_633_600_000)
        #expect(query.size == 3 && query.ascending && query.errorsOnly)
    }

    @Test func nWinsOverSizeAndNonsenseFallsBack() {
        #expect(ScriptLogQuery(query: ["size": "3", "n": "5"], now: Self.now).size == 5)
        #expect(ScriptLogQuery(query: ["size": "zero"], now: Self.now).size == 10)
        #expect(ScriptLogQuery(query: ["size": "-4"], now: Self.now).size == 10)
        #expect(ScriptLogQuery(query: ["size": "1e300"], now: Self.now).size == ScriptLogQuery.maximumSize)
        #expect(ScriptLogQuery(query: ["from": "yesterday"], now: Self.now).from == Self.now - ScriptLogQuery.week)
        #expect(!ScriptLogQuery(query: ["order": "ASC", "level": "info"], now: Self.now).ascending)
    }
}
