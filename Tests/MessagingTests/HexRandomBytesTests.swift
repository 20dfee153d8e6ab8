import Runtime
import Testing

@Suite struct HexRandomBytesTests {
    /// Bytes are drawn eight at a time; counts that are not a multiple of eight get exactly what they asked for.
    @Test(arguments: [0, 1, 3, 8, 9, 16, 33])
    func givesExactlyTheCountAskedFor(count: Int) {
        #expect(Hex.randomBytes(count).count == count)
        #expect(Hex.random(byteCount: count).count == 2 * count)
    }

    @Test func everyByteOfADrawVaries() {
        // 2 000 draws of 9 bytes: each position (including the one of a second eight-byte draw) takes many values.
        let draws = (0..<2000).map { _ in Hex.randomBytes(9) }
        for position in 0..<9 {
            #expect(Set(draws.map { $0[position] }).count > 100)
        }
    }
}
