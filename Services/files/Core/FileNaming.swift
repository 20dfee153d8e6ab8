import ParseWire
import Runtime

/// parse-server's file name rules: what a client may ask for, and the name a file is stored under.
enum FileNaming {
    static let maxLength = 128

    /// parse-server's `validateFilename`: nil when `name` is acceptable.
    static func validationError(_ name: String) -> ParseError? {
        if name.count > maxLength { return ParseError(.invalidFileName, "Filename too long.") }
        guard let first = name.unicodeScalars.first, isLeading(first),
              name.unicodeScalars.dropFirst().allSatisfy(isFollowing) else {
            return ParseError(.invalidFileName, "Filename contains invalid characters.")
        }
        return nil
    }

    /// `^[_a-zA-Z0-9]`
    private static func isLeading(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || isASCIIAlphanumeric(scalar)
    }

    /// `[a-zA-Z0-9@. ~_-]*$`
    private static func isFollowing(_ scalar: Unicode.Scalar) -> Bool {
        isASCIIAlphanumeric(scalar) || "@. ~_-".unicodeScalars.contains(scalar)
    }

    private static func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// Node's `path.extname`: from the last `.` of the name, unless that dot starts it. Empty when none.
    static func pathExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[dot...])
    }

    /// The name with an extension appended from the content type when it has none (`hello` + `text/plain` is
    /// `hello.txt`), as parse-server's files controller does.
    static func withExtension(_ name: String, contentType: String?) -> String {
        guard pathExtension(name).isEmpty, let type = contentType, let ext = MimeTypes.fileExtension(for: type) else {
            return name
        }
        return name + "." + ext
    }

    /// A random 32-hex-digit prefix, `_`, then the name.
    static func storedName(_ name: String, preserve: Bool) -> String {
        preserve ? name : Hex.random(byteCount: 16) + "_" + name
    }
}
