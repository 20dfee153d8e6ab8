/// Compact JSON text for answers, written by hand: answers are built on every request and Foundation's encoder
/// costs several times more. Keys are sorted, so equal values give equal text, as `JSONValue.jsonText`.
public enum JSONText {
    public static func encode(_ value: JSONValue) -> String {
        var output = ""
        output.reserveCapacity(256)
        write(value, into: &output)
        return output
    }

    private static func write(_ value: JSONValue, into output: inout String) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let number): output += format(number)
        case .string(let text): writeString(text, into: &output)
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                write(item, into: &output)
            }
            output += "]"
        case .object(let fields):
            output += "{"
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                writeString(key, into: &output)
                output += ":"
                write(fields[key]!, into: &output)
            }
            output += "}"
        }
    }

    /// Whole numbers without a fraction (`42`, not `42.0`), others in Swift's shortest exact form.
    public static func format(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 { return String(Int64(number)) }
        return String(number)
    }

    private static func writeString(_ text: String, into output: inout String) {
        output += "\""
        var plainStart = text.unicodeScalars.startIndex
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        while index != scalars.endIndex {
            let scalar = scalars[index]
            let escape: String? = switch scalar {
            case "\"": "\\\""
            case "\\": "\\\\"
            case "\n": "\\n"
            case "\r": "\\r"
            case "\t": "\\t"
            case _ where scalar.value < 0x20: "\\u" + hex4(scalar.value)
            default: nil
            }
            if let escape {
                output.unicodeScalars.append(contentsOf: scalars[plainStart..<index])
                output += escape
                plainStart = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        output.unicodeScalars.append(contentsOf: scalars[plainStart..<scalars.endIndex])
        output += "\""
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}

extension JSONValue {
    /// `JSONText.encode(self)`.
    public var compactText: String { JSONText.encode(self) }
}
