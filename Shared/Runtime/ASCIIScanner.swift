/// A cursor over the bytes of an ASCII text, for the date readers (`ParseDate`, `PostgresTimestamp`).
public struct ASCIIScanner {
    private let bytes: [UInt8]
    private var index = 0

    public init(_ text: String) { bytes = Array(text.utf8) }

    public var isAtEnd: Bool { index == bytes.count }

    public var peekDigit: Int64? {
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
        return Int64(bytes[index] - UInt8(ascii: "0"))
    }

    public mutating func digit() -> Int64? {
        guard let digit = peekDigit else { return nil }
        index += 1
        return digit
    }

    /// Exactly `digits` digits.
    public mutating func number(digits: Int) -> Int64? { number(minDigits: digits, maxDigits: digits) }

    /// As many digits as there are, up to `maxDigits`; nil when fewer than `minDigits`.
    public mutating func number(minDigits: Int, maxDigits: Int) -> Int64? {
        var value: Int64 = 0, count = 0
        while count < maxDigits, let digit = digit() {
            value = value * 10 + digit
            count += 1
        }
        return count >= minDigits ? value : nil
    }

    /// Steps over `character` when it comes next.
    public mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, character.isASCII, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    /// `+` as 1, `-` as -1.
    public mutating func sign() -> Int64? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
