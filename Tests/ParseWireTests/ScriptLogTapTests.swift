import Runtime
import Testing

/// What a logger hands the `/scriptlog` tap: the kept levels only, access lines as verbose, the trace id.
struct ScriptLogTapTests {
    @Test func keepsNothingUntilALevelIsNamed() {
        let tap = ScriptLogTap()
        let logger = Logger(service: "test", level: .error, tap: tap)
        logger.error("not kept")
        #expect(tap.take().records.isEmpty)
    }

    @Test func keepsTheLinesUpToItsLevelWhateverTheLoggerWrites() {
        let tap = ScriptLogTap()
        tap.keep(.info)
        let logger = Logger(service: "test", level: .error, metadata: ["request.id": "r1"], tap: tap)
        logger.debug("debug")
        logger.info("info", ["k": "v"])
        logger.warning("warning")
        logger.access("GET /x 200", [("method", "GET")])
        let records = tap.take().records
        #expect(records.map(\.message) == ["info", "warning"])
        #expect(records.map(\.level) == [.info, .warn])
        #expect(records[0].fields == ["request.id": "r1", "k": "v"])
        #expect(records[0].service == "test")
        #expect(tap.take().records.isEmpty)
    }

    @Test func accessLinesAreKeptAtVerboseAndDebugLinesAfterThem() {
        let tap = ScriptLogTap()
        tap.keep(.verbose)
        let logger = Logger(service: "gateway", level: .error, tap: tap)
        logger.access("GET /x 200", [("method", "GET"), ("url", "/x")])
        logger.debug("debug")
        let records = tap.take().records
        #expect(records.map(\.level) == [.verbose])
        #expect(records.first?.fields == ["method": "GET", "url": "/x"])
        tap.keep(.debug)
        logger.debug("debug")
        #expect(tap.take().records.map(\.message) == ["debug"])
    }

    @Test func aLineWrittenForATraceSaysItsId() throws {
        let tap = ScriptLogTap()
        tap.keep(.info)
        let logger = Logger(service: "test", level: .error, tap: tap)
        let trace = try #require(TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        TraceContext.$current.withValue(trace) {
            logger.info("traced")
        }
        logger.info("untraced")
        let records = tap.take().records
        #expect(records.first?.fields["trace.id"] == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(records.last?.fields["trace.id"] == nil)
    }

    @Test func beyondItsCapacityLinesAreDroppedAndCounted() {
        let tap = ScriptLogTap(capacity: 2)
        tap.keep(.info)
        let logger = Logger(service: "test", level: .error, tap: tap)
        for n in 0..<5 { logger.info("line \(n)") }
        let taken = tap.take()
        #expect(taken.records.map(\.message) == ["line 0", "line 1"])
        #expect(taken.dropped == 3)
        #expect(tap.take().dropped == 0)
    }

    @Test func levelsAreReadByParseServersNames() throws {
        #expect(ScriptLogLevel(name: "warn") == .warn && ScriptLogLevel(name: "VERBOSE") == .verbose)
        #expect(try ScriptLogLevel.kept(Environment([:])) == .info)
        #expect(try ScriptLogLevel.kept(Environment(["PARSE_SERVER_LOG_LEVEL": "silent"])) == nil)
        #expect(throws: ConfigurationError.self) { try ScriptLogLevel.kept(Environment(["PARSE_SERVER_LOG_LEVEL": "loud"])) }
    }
}
