import Runtime

/// Compact JSON text for answers, written by hand: answers are built on every request and Foundation's encoder
/// costs several times more. Keys are sorted, so equal values give equal text, as `JSONValue.compactText`.
public enum JSONText {
    public static func encode(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// The same text as UTF-8 bytes, as messages carry it. Written byte by byte: appending to a `String` scalar by
    /// scalar was a tenth of the posts service's CPU.
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(value, into: &output)
        return output
    }

    static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null: output += "null".utf8
        case .bool(let flag): output += (flag ? "true" : "false").utf8
        case .number(let number): writeNumber(number, into: &output)
        case .string(let text): writeString(text, into: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(item, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let fields):
            output.append(UInt8(ascii: "{"))
            // Sorting the members rather than the keys spares a second hash look-up per member.
            for (index, member) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Whole numbers without a fraction (`42`, not `42.0`), others in Swift's shortest exact form.
    public static func format(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 { return String(Int64(number)) }
        return String(number)
    }

    /// `format(number)`, written without making a `String` first for the whole numbers messages mostly carry.
    static func writeNumber(_ number: Double, into output: inout [UInt8]) {
        if number.isFinite, number == number.rounded(), abs(number) < 9_007_199_254_740_992 {
            writeInteger(Int64(number), into: &output)
        } else {
            output += format(number).utf8
        }
    }

    /// Decimal digits, as `String(value)` spells them.
    static func writeInteger(_ value: Int64, into output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = output.count
        repeat {
            output.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        output[start...].reverse()
    }

    /// The one string writer, `JSONEscaping.write`.
    public static func writeString(_ text: String, into output: inout [UInt8]) { JSONEscaping.write(text, into: &output) }
}

extension JSONValue {
    /// `JSONText.encode(self)`.
    public var compactText: String { JSONText.encode(self) }
}
