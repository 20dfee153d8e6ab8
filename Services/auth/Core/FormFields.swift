import Foundation

/// An `application/x-www-form-urlencoded` body, as a browser posts a form (`+` is a space).
enum FormFields {
    static func parse(_ text: String?) -> [String: String] {
        guard let text, !text.isEmpty else { return [:] }
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            let name = decode(parts[0])
            if !name.isEmpty, fields[name] == nil { fields[name] = parts.count > 1 ? decode(parts[1]) : "" }
        }
        return fields
    }

    /// Query-string encoding of ordered pairs, as Node's `querystring.stringify` writes them.
    static func encode(_ pairs: [(String, String?)]) -> String {
        pairs.compactMap { name, value in value.map { "\(name)=\(AccountMailer.encode($0))" } }.joined(separator: "&")
    }
}
