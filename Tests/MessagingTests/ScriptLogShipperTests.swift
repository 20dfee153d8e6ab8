import Runtime
import Testing
@testable import Messaging

/// How the shipper splits its lines: each app's go to that app's store (`scriptlog.append.v1` sent under the app).
struct ScriptLogShipperTests {
    static func line(_ message: String, app: String?) -> ScriptLogRecord {
        ScriptLogRecord(time: 1, level: .info, service: "gateway", message: message, fields: [:], app: app)
    }

    @Test func linesAreGroupedByTheirAppInTheirOrder() {
        let lines = [Self.line("a1", app: "a"), Self.line("own1", app: nil), Self.line("b1", app: "b"),
                     Self.line("a2", app: "a"), Self.line("own2", app: nil)]
        let groups = ScriptLogShipper.byApp(lines)
        #expect(groups.map(\.app) == ["a", nil, "b"])
        #expect(groups.map { $0.records.map(\.message) } == [["a1", "a2"], ["own1", "own2"], ["b1"]])
        #expect(ScriptLogShipper.byApp([]).isEmpty)
    }

    @Test func aLineIsTheAppsItWasWrittenFor() {
        #expect(ScriptLogRecord(time: 1, level: .info, service: "s", message: "m", fields: [:]).app == nil)
        let forApp = AppContext.$current.withValue("other") {
            ScriptLogRecord(time: 1, level: .info, service: "s", message: "m", fields: [:])
        }
        #expect(forApp.app == "other")
    }
}
