/// The part of Mustache parse-server's pages use (it renders them with the `mustache` package): `{{name}}`
/// HTML-escaped as Mustache escapes, `{{{name}}}` and `{{& name}}` as they are, an unknown name as nothing.
/// Written here because no Mustache library is among the packages this project may use, and pages need only this.
enum PageTemplate {
    static func render(_ template: String, _ values: [String: String]) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.range(of: "{{") {
            out += rest[..<open.lowerBound]
            let afterOpen = rest[open.upperBound...]
            let triple = afterOpen.hasPrefix("{")
            let closing = triple ? "}}}" : "}}"
            guard let close = afterOpen.range(of: closing) else {
                out += rest[open.lowerBound...]
                return out
            }
            var name = afterOpen[(triple ? afterOpen.index(after: afterOpen.startIndex) : afterOpen.startIndex)..<close.lowerBound]
            var raw = triple
            if !triple, name.hasPrefix("&") {
                raw = true
                name = name.dropFirst()
            }
            let value = values[name.trimmingCharacters(in: .whitespaces)] ?? ""
            out += raw ? value : escape(value)
            rest = afterOpen[close.upperBound...]
        }
        out += rest
        return out
    }

    /// Mustache's escaping: the characters HTML or an attribute could read as markup.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "/": out += "&#x2F;"
            case "`": out += "&#x60;"
            case "=": out += "&#x3D;"
            default: out.append(character)
            }
        }
        return out
    }
}
