/// A block string's value from its raw text (the specification's `BlockStringValue()`): the indentation its lines
/// after the first share is removed, and so are blank lines at the start and the end.
enum BlockString {
    static func value(_ raw: String) -> String {
        // "\r\n" is one Character in Swift, so it is a separator of its own.
        var lines = raw.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        var common: Int?
        for line in lines.dropFirst() {
            let indent = line.prefix { $0 == " " || $0 == "\t" }.count
            guard indent < line.count else { continue }
            common = min(common ?? indent, indent)
        }
        if let common, common > 0 {
            for index in lines.indices.dropFirst() { lines[index] = lines[index].dropFirst(common) }
        }
        func isBlank(_ line: Substring) -> Bool { line.allSatisfy { $0 == " " || $0 == "\t" } }
        guard let first = lines.firstIndex(where: { !isBlank($0) }),
              let last = lines.lastIndex(where: { !isBlank($0) }) else { return "" }
        return lines[first...last].joined(separator: "\n")
    }
}
