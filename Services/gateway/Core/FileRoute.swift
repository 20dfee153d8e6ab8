/// The `files/...` routes, as parse-server's files router matches them (the path below the mount, decoded).
enum FileRoute: Equatable {
    /// `POST /files` without a name.
    case uploadWithoutName
    case upload(name: String)
    case download(appId: String, name: String)
    case metadata(appId: String, name: String)
    case delete(name: String)
    case unknown

    init(method: String, path: String) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        switch (method, segments.count) {
        case ("POST", 0):
            self = .uploadWithoutName
        case ("POST", 1):
            self = .upload(name: segments[0])
        case ("DELETE", 1):
            self = .delete(name: segments[0])
        case ("GET", 2), ("HEAD", 2):
            self = .download(appId: segments[0], name: segments[1])
        case ("GET", 3) where segments[1] == "metadata", ("HEAD", 3) where segments[1] == "metadata":
            self = .metadata(appId: segments[0], name: segments[2])
        default:
            self = .unknown
        }
    }
}
