import Runtime
import Testing

@Suite struct LogLevelTests {
    @Test(arguments: [
        ("debug", LogLevel.debug), ("trace", .debug), ("info", .info), ("INFO", .info), ("warn", .warning),
        ("warning", .warning), ("Warning", .warning), ("error", .error), ("ERROR", .error),
    ])
    func parsesNames(name: String, level: LogLevel) {
        #expect(LogLevel(name: name) == level)
    }

    @Test(arguments: ["", "fatal", "verbose", "infos", " info"])
    func rejectsUnknownNames(name: String) {
        #expect(LogLevel(name: name) == nil)
    }

    @Test func namesRoundTrip() {
        for level in LogLevel.allCases {
            #expect(LogLevel(name: level.name) == level)
        }
    }

    @Test func ordersBySeverity() {
        #expect(LogLevel.allCases.sorted() == [.debug, .info, .warning, .error])
        #expect(LogLevel.debug < .info)
        #expect(LogLevel.warning < .error)
        #expect(!(LogLevel.error < .warning))
    }
}
