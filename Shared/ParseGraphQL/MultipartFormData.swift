/// `multipart/form-data` bodies (RFC 7578), for the GraphQL multipart request. Written here: the HTTP server hands
/// the whole body over already read, and libmicrohttpd's post processor only works inside its connection
/// callbacks.
struct MultipartFormData {
    struct Part {
        var name: String
        var filename: String?
        var contentType: String?
        var bytes: [UInt8]
    }

    /// The parts, or nil when the body is not a multipart body with the content type's boundary.
    static func parse(_ body: [UInt8], contentType: String) -> [Part]? {
        guard let boundary = parameter("boundary", in: contentType), !boundary.isEmpty else { return nil }
        let delimiter = Array("--\(boundary)".utf8)
        var parts: [Part] = []
        guard var position = find(delimiter, in: body, from: 0) else { return nil }
        while true {
            position += delimiter.count
            if body[position...].starts(with: Array("--".utf8)) { return parts }
            guard body[position...].starts(with: crlf) else { return nil }
            position += 2
            guard let headersEnd = find(crlf + crlf, in: body, from: position) else { return nil }
            let headers = String(decoding: body[position..<headersEnd], as: UTF8.self)
            let contentStart = headersEnd + 4
            guard let next = find(crlf + delimiter, in: body, from: contentStart) else { return nil }
            var part = Part(name: "", filename: nil, contentType: nil, bytes: Array(body[contentStart..<next]))
            for line in headers.split(separator: "\r\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = line[..<colon].trimmingSpaces.lowercased()
                let value = String(line[line.index(after: colon)...].trimmingSpaces)
                if name == "content-disposition" {
                    part.name = parameter("name", in: value) ?? ""
                    part.filename = parameter("filename", in: value)
                } else if name == "content-type" {
                    part.contentType = value
                }
            }
            parts.append(part)
            position = next + 2
        }
    }

    private static let crlf: [UInt8] = [13, 10]

    /// Where `needle` first is in `haystack` at or after `start` (Knuth-Morris-Pratt): linear in the body whatever it
    /// holds, so no body can make the search quadratic.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, start <= haystack.count else { return nil }
        var fallback = [Int](repeating: 0, count: needle.count)
        var matched = 0
        for index in 1..<max(needle.count, 1) {
            while matched > 0 && needle[index] != needle[matched] { matched = fallback[matched - 1] }
            if needle[index] == needle[matched] { matched += 1 }
            fallback[index] = matched
        }
        matched = 0
        for index in start..<haystack.count {
            while matched > 0 && haystack[index] != needle[matched] { matched = fallback[matched - 1] }
            if haystack[index] == needle[matched] { matched += 1 }
            if matched == needle.count { return index - needle.count + 1 }
        }
        return nil
    }

    /// A `name=value` or `name="value"` parameter of a header value.
    static func parameter(_ name: String, in header: String) -> String? {
        for item in header.split(separator: ";").dropFirst() {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == name else { continue }
            var value = pair[1].trimmingSpaces
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            return String(value)
        }
        return nil
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
