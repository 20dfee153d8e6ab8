/// JSON strings, written the one way every JSON text here is (`JSONText` in ParseWire, the log lines).
public enum JSONEscaping {
    /// Quotes, backslashes and control characters escaped; every other byte as is (the bytes of a multi-byte
    /// UTF-8 sequence are all above 0x7F, so none is mistaken for one of those).
    public static func write(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var plainStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<index]))
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\n"): output.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): output.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): output.append(UInt8(ascii: "t"))
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
                default:
                    output += "u00".utf8
                    output.append(hexDigits[Int(byte >> 4)])
                    output.append(hexDigits[Int(byte & 0x0F)])
                }
                plainStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<utf8.count]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
