import Testing
@testable import Metrics

@Suite struct ProcessMetricsTests {
    @Test func readsTheProcessFiguresFromProc() throws {
        let samples = ProcessMetrics.samples()
        let byName = Dictionary(samples.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let resident = try #require(byName["process_resident_memory_bytes"])
        #expect(resident.value > 1_000_000)
        let cpu = try #require(byName["process_cpu_seconds_total"])
        #expect(cpu.kind == .counter)
        #expect(cpu.value > 0)
        let descriptors = try #require(byName["process_open_fds"])
        #expect(descriptors.value >= 3)
        #expect(try #require(byName["process_max_fds"]).value >= descriptors.value)
        #expect(try #require(byName["process_start_time_seconds"]).value > 1_600_000_000)
    }

    @Test func statFieldsSkipACommandNameWithSpacesAndParentheses() throws {
        let fields = try #require(ProcessMetrics.statFields("42 (a b) c) S 1 2 3"))
        #expect(fields.first == "S")
        #expect(fields.count == 4)
    }
}
