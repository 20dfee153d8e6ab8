import Foundation

/// The web app's files, read once at start-up: a handful of small text files, so serving them costs no disk
/// access and no path ever reaches the file system from a request.
struct DashboardAssets: Sendable {
    struct Asset: Sendable {
        var contentType: String
        var bytes: [UInt8]
    }

    private let files: [String: Asset]

    init(directory: String) throws {
        var files: [String: Asset] = [:]
        let root = URL(fileURLWithPath: directory)
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw DashboardAssetsError(directory: directory)
        }
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                  let type = Self.contentTypes[url.pathExtension.lowercased()] else { continue }
            let relative = url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count)
            files[String(relative.drop { $0 == "/" })] = Asset(contentType: type, bytes: Array(try Data(contentsOf: url)))
        }
        guard files["index.html"] != nil else { throw DashboardAssetsError(directory: directory) }
        self.files = files
    }

    /// The file at `relativePath` (`""` is `index.html`).
    subscript(_ relativePath: String) -> Asset? {
        files[relativePath.isEmpty ? "index.html" : relativePath]
    }

    private static let contentTypes = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "ico": "image/x-icon", "json": "application/json; charset=utf-8",
    ]
}

struct DashboardAssetsError: Error, CustomStringConvertible {
    let directory: String
    var description: String { "no dashboard files (index.html) in '\(directory)'" }
}
