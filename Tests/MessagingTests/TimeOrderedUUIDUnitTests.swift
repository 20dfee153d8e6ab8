import Foundation
import Testing
import Runtime

@Suite struct TimeOrderedUUIDUnitTests {
    @Test func isAVersion7UUIDWhoseFirstBitsAreTheTimeInMilliseconds() throws {
        let date = Date(timeIntervalSince1970: 1_764_530_000.123)
        let text = TimeOrderedUUID.string(at: date)
        let uuid = try #require(UUID(uuidString: text))
        #expect(text == uuid.uuidString.lowercased())
        let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        #expect(bytes[6] >> 4 == 7)
        #expect(bytes[8] >> 6 == 0b10)
        let milliseconds = bytes[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(milliseconds == 1_764_530_000_123)
    }

    @Test func laterIdsSortAfterEarlierOnesAndIdsOfTheSameMillisecondDiffer() {
        let date = Date()
        let first = TimeOrderedUUID.string(at: date)
        let later = TimeOrderedUUID.string(at: date.addingTimeInterval(0.002))
        #expect(first < later)
        let sameInstant = (0..<1000).map { _ in TimeOrderedUUID.string(at: date) }
        #expect(Set(sameInstant).count == 1000)
    }
}
