import Foundation
import Runtime
import Testing

struct RandomUUIDUnitTests {
    @Test func isALowercaseVersion4UUID() throws {
        for _ in 0..<1_000 {
            let text = RandomUUID.string()
            let parsed = try #require(UUID(uuidString: text), "not a UUID: \(text)")
            #expect(parsed.uuidString.lowercased() == text)
            let bytes = parsed.uuid
            #expect(bytes.6 >> 4 == 4)
            #expect(bytes.8 >> 6 == 0b10)
        }
    }

    @Test func doesNotRepeat() {
        let values = (0..<10_000).map { _ in RandomUUID.string() }
        #expect(Set(values).count == values.count)
    }
}

struct RandomPoolUnitTests {
    /// Draws across many refills of the 4 KB buffer, from many tasks at once, never hand out the same bytes.
    @Test func concurrentDrawsAcrossRefillsAreDistinct() async {
        let draws = await withTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<2_000).map { _ in RandomPool.bytes(16) } }
            }
            return await group.reduce(into: [[UInt8]]()) { $0 += $1 }
        }
        #expect(draws.count == 16_000)
        #expect(Set(draws).count == draws.count)
        #expect(draws.allSatisfy { $0.count == 16 })
    }

    @Test func bytesLookUniform() {
        var counts = [Int](repeating: 0, count: 256)
        for _ in 0..<256 { for byte in RandomPool.bytes(1_000) { counts[Int(byte)] += 1 } }
        // 1,000 expected per value; a fixed or stuck source would be far off.
        #expect(counts.allSatisfy { (700...1_300).contains($0) })
    }
}
