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
