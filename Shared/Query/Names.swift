import ParseWire

/// Class and field names as they may reach SQL. Only names matching `^[A-Za-z][A-Za-z0-9_]*$` are ever
/// quoted into a statement, so a name can never carry SQL of its own.
public enum Names {
    /// Classes this service stores; the `_`-prefixed ones other services own are refused here.
    public static func isValidClassName(_ name: String) -> Bool { isPlainIdentifier(name) }

    public static func isValidFieldName(_ name: String) -> Bool { isPlainIdentifier(name) }

    /// `^[A-Za-z][A-Za-z0-9_]*$`, at most 63 bytes (PostgreSQL's identifier length).
    public static func isPlainIdentifier(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 63, isLetter(first) else { return false }
        return bytes.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    public static func requireClassName(_ name: String) throws(ParseError) {
        guard isValidClassName(name) else {
            throw ParseError(.invalidClassName, "Invalid classname: \(name), classnames can only have alphanumeric characters and _, and must start with an alpha character ")
        }
    }

    /// `"name"`: only for names that passed validation (or fixed system names).
    public static func quoted(_ name: String) -> String { "\"" + name + "\"" }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
