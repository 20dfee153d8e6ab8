import Foundation

/// A Parse export: `{"results":[...]}` as the dashboard writes it, or a bare array of objects.
enum ExportFile {
    struct FormatError: Error, CustomStringConvertible { let description: String }

    static func objects(at path: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let json = try JSONSerialization.jsonObject(with: data)
        let list: Any? = (json as? [String: Any])?["results"] ?? json
        guard let items = list as? [Any] else {
            throw FormatError(description: "\(path) is neither {\"results\":[...]} nor an array of objects")
        }
        return try items.enumerated().map { index, item in
            guard let object = item as? [String: Any] else { throw FormatError(description: "item \(index) is not an object") }
            return object
        }
    }
}
