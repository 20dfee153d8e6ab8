import Foundation

/// Content types by file extension and back (the common web types, as the `mime` package parse-server uses
/// names them), and recognition of common formats from their first bytes: the files service's, and the GraphQL
/// API's for its uploads.
public enum MimeTypes {
    /// The first extension of each type is the one appended to a name without any.
    private static let table: [(type: String, extensions: [String])] = [
        ("text/plain", ["txt", "text", "conf", "log", "ini"]),
        ("text/html", ["html", "htm", "shtml"]),
        ("text/css", ["css"]),
        ("text/csv", ["csv"]),
        ("text/markdown", ["md", "markdown"]),
        ("text/xml", ["xml"]),
        ("application/xml", ["xml"]),
        ("application/javascript", ["js", "mjs"]),
        ("text/javascript", ["js", "mjs"]),
        ("application/json", ["json", "map"]),
        ("application/pdf", ["pdf"]),
        ("application/zip", ["zip"]),
        ("application/gzip", ["gz"]),
        ("application/octet-stream", ["bin", "dms", "lrf", "mar", "so", "dist", "distz", "pkg", "bpk", "dump",
                                      "elc", "deploy", "exe", "dll", "deb", "dmg", "iso", "img", "msi", "msp", "msm",
                                      "buffer"]),
        ("image/png", ["png"]),
        ("image/jpeg", ["jpeg", "jpg", "jpe"]),
        ("image/gif", ["gif"]),
        ("image/webp", ["webp"]),
        ("image/svg+xml", ["svg", "svgz"]),
        ("image/bmp", ["bmp"]),
        ("image/tiff", ["tif", "tiff"]),
        ("image/heic", ["heic"]),
        ("image/heif", ["heif"]),
        ("image/x-icon", ["ico"]),
        ("audio/mpeg", ["mpga", "mp2", "mp2a", "mp3", "m2a", "m3a"]),
        ("audio/mp4", ["m4a", "mp4a"]),
        ("audio/wav", ["wav"]),
        ("audio/ogg", ["oga", "ogg", "spx", "opus"]),
        ("video/mp4", ["mp4", "mp4v", "mpg4"]),
        ("video/quicktime", ["qt", "mov"]),
        ("video/webm", ["webm"]),
    ]

    private static let typeByExtension: [String: String] = {
        var map: [String: String] = [:]
        for (type, extensions) in table {
            for ext in extensions where map[ext] == nil { map[ext] = type }
        }
        return map
    }()

    /// `mime.getType(name)`: by the name's extension, case-insensitively.
    public static func type(forName name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        return ext.isEmpty ? nil : typeByExtension[ext]
    }

    /// `mime.getExtension(type)`: parameters such as `; charset=utf-8` are ignored.
    public static func fileExtension(for contentType: String) -> String? {
        let essence = contentType.split(separator: ";", maxSplits: 1).first?
            .trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return table.first { $0.type == essence }?.extensions.first
    }

    /// The type of a few common formats recognised from their first bytes.
    public static func sniff(_ head: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        if starts(Array("RIFF".utf8)) && starts(Array("WAVE".utf8), at: 8) { return "audio/wav" }
        if starts(Array("%PDF-".utf8)) { return "application/pdf" }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return "application/zip" }
        if starts([0x1F, 0x8B]) { return "application/gzip" }
        if starts(Array("BM".utf8)) && head.count >= 14 { return "image/bmp" }
        if starts(Array("ftyp".utf8), at: 4) {
            if starts(Array("heic".utf8), at: 8) || starts(Array("heix".utf8), at: 8) { return "image/heic" }
            if starts(Array("qt  ".utf8), at: 8) { return "video/quicktime" }
            return "video/mp4"
        }
        if starts(Array("ID3".utf8)) { return "audio/mpeg" }
        if starts(Array("OggS".utf8)) { return "audio/ogg" }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return "video/webm" }
        return nil
    }

    /// Content type from the header, else from the extension, else sniffed, else `application/octet-stream`.
    public static func resolve(header: String?, name: String, head: [UInt8]) -> String {
        if let header, !header.trimmingCharacters(in: .whitespaces).isEmpty { return header }
        return type(forName: name) ?? sniff(head) ?? "application/octet-stream"
    }
}
