import Runtime
import Synchronization

/// The app a request turned out to be for, noted where its work starts working for that app, so that the access
/// line written after the answer (`GatewayResponder.logged`) is kept by that app's `/scriptlog`: the app is known
/// only once the keys and the body were read, inside the work the line wraps.
final class ServedApp: Sendable {
    @TaskLocal static var current: ServedApp?

    private let noted = Mutex<String?>(nil)

    /// The app noted; nil for the stack's own.
    var app: String? { noted.withLock { $0 } }

    /// Runs `body` for `app` (`AppContext`; nil is the stack's own), noting it for the request's access line.
    static func serving<T>(_ app: String?, _ body: () async throws -> T) async rethrows -> T {
        current?.noted.withLock { $0 = app }
        return try await AppContext.$current.withValue(app, operation: body)
    }
}
