import Contracts
import ParseWire

/// Field and class names that may reach SQL (always as parameters or quoted JSON keys, never spliced).
enum FieldName {
    static func isValid(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "_" }
            && name.count <= 128
    }

    static func check(_ name: String) throws {
        guard isValid(name) else { throw ParseError(.invalidKeyName, "Invalid field name: \(name).") }
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
