import Runtime
import Testing

@Suite struct EnvironmentTests {
    @Test func unsetTakesTheDefault() throws {
        let env = Environment([:])
        #expect(env.optional("A") == nil)
        #expect(env.string("A", default: "x") == "x")
        #expect(try env.int("A", default: 7) == 7)
        #expect(env.list("A", default: ["d"]) == ["d"])
        #expect(try env.byteSize("A", default: "2kb") == 2048)
    }

    @Test(arguments: ["", "   "])
    func emptyTakesTheDefault(value: String) throws {
        let env = Environment(["A": value])
        #expect(env.optional("A") == nil)
        #expect(env.string("A", default: "x") == "x")
        #expect(try env.int("A", default: 7) == 7)
        #expect(env.list("A", default: ["d"]) == ["d"])
    }

    @Test func valuesAreTrimmed() throws {
        let env = Environment(["S": "  hello ", "N": " 42 "])
        #expect(env.string("S", default: "x") == "hello")
        #expect(try env.int("N", default: 0) == 42)
    }

    @Test func intAcceptsTheRangeBounds() throws {
        let env = Environment(["LOW": "1", "HIGH": "10"])
        #expect(try env.int("LOW", default: 5, in: 1...10) == 1)
        #expect(try env.int("HIGH", default: 5, in: 1...10) == 10)
    }

    @Test(arguments: ["0", "11", "-3", "abc", "1.5", "5x"])
    func intOutsideTheRangeOrMalformedIsAnError(value: String) {
        let env = Environment(["N": value])
        #expect(throws: ConfigurationError.self) { try env.int("N", default: 5, in: 1...10) }
    }

    @Test func intErrorNamesTheVariableAndValue() {
        let error = #expect(throws: ConfigurationError.self) {
            try Environment(["PORT": "99999"]).int("PORT", default: 1, in: 0...65_535)
        }
        #expect(error?.description.contains("PORT") == true)
        #expect(error?.description.contains("99999") == true)
    }

    @Test func negativeIntsAreRefusedByTheDefaultRange() {
        #expect(throws: ConfigurationError.self) { try Environment(["N": "-1"]).int("N", default: 0) }
    }

    @Test func listSplitsOnCommasAndDropsBlanks() {
        let env = Environment(["L": " a, b ,,c , "])
        #expect(env.list("L", default: []) == ["a", "b", "c"])
    }

    @Test(arguments: [
        ("20mb", 20 * 1_048_576), ("512kb", 512 * 1024), ("1gb", 1_073_741_824), ("1048576", 1_048_576),
        ("0", 0), ("100b", 100), ("20MB", 20 * 1_048_576), ("1.5mb", 1_572_864), ("20 mb", 20 * 1_048_576),
    ])
    func byteSizeReadsUnits(text: String, bytes: Int) throws {
        #expect(try Environment(["S": text]).byteSize("S", default: "1") == bytes)
    }

    @Test func byteSizeDefaultIsParsedToo() throws {
        #expect(try Environment([:]).byteSize("S", default: "20mb") == 20 * 1_048_576)
    }

    @Test(arguments: ["abc", "-1", "-5mb", "mb", "20xb", "1,5mb", "20 m b"])
    func byteSizeRejectsMalformedSizes(text: String) {
        #expect(throws: ConfigurationError.self) { try Environment(["S": text]).byteSize("S", default: "1") }
    }

    @Test(arguments: ["infmb", "1e30gb"])
    func byteSizeRejectsSizesThatDoNotFit(text: String) {
        #expect(throws: ConfigurationError.self) { try Environment(["S": text]).byteSize("S", default: "1") }
    }
}
