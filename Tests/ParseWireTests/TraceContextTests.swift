import Runtime
import Testing

/// `traceparent` as W3C Trace Context (Level 1, section 3.2) reads it.
struct TraceContextTests {
    static let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func readsTheSpecificationsExample() throws {
        let trace = try #require(TraceContext(traceparent: Self.valid))
        #expect(trace.traceId == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(trace.spanId == "00f067aa0ba902b7")
        #expect(trace.flags == "01")
        #expect(trace.traceparent == Self.valid)
    }

    @Test(arguments: [
        "",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        "0x-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
    ])
    func refuses(_ text: String) {
        #expect(TraceContext(traceparent: text) == nil)
    }

    /// A later version may add fields after the flags; its first four read the same, and it is passed on as 00.
    @Test func readsALaterVersionByItsFirstFields() throws {
        let trace = try #require(TraceContext(traceparent: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-comes"))
        #expect(trace.traceparent == Self.valid)
        #expect(TraceContext(traceparent: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01what") == nil)
    }

    @Test func aChildKeepsTheTraceWithAnIdOfItsOwn() throws {
        let parent = try #require(TraceContext(traceparent: Self.valid))
        let child = parent.child()
        #expect(child.traceId == parent.traceId && child.flags == parent.flags)
        #expect(child.spanId != parent.spanId && child.spanId.count == 16)
        #expect(TraceContext(traceparent: child.traceparent) == child)
    }

    @Test func aNewTraceIsWellFormedAndNew() throws {
        let first = TraceContext.start(), second = TraceContext.start()
        #expect(TraceContext(traceparent: first.traceparent) == first)
        #expect(first.traceId != second.traceId)
        #expect(first.flags == "00")
    }
}
