import Foundation
@testable import ParseWire
import Testing

struct JSONTextTests {
    @Test func matchesWhatJSONParsersRead() throws {
        let value = JSONValue.object([
            "b": .array([.number(1), .number(2.5), .number(-0.001), .number(1e21), .bool(false), .null]),
            "a": .string("quote \" backslash \\ newline \n tab \t bell \u{07} é 🐱 </script>"),
            "c": .object([:]),
        ])
        let text = JSONText.encode(value)
        #expect(text.hasPrefix(#"{"a":"quote \" backslash \\ newline \n tab \t bell \u0007 é 🐱 </script>","b":[1,2.5,"#))
        #expect(JSONValue.parse(text) == value)
    }

    @Test func wholeNumbersHaveNoFraction() {
        #expect(JSONText.format(42) == "42")
        #expect(JSONText.format(-3) == "-3")
        #expect(JSONText.format(0.1) == "0.1")
        #expect(JSONText.format(.infinity) == "null")
    }
}
