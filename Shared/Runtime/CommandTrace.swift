import Synchronization

/// The command types a request sent on its way (`rest.v1`, `vote.cast.v1`...), collected while it is handled so
/// that its log line names them: one grep for a request id then shows the gateway's line with the commands and
/// each service's line for them. The RPC client records into the task's trace, when there is one.
public final class CommandTrace: Sendable {
    @TaskLocal public static var current: CommandTrace?

    private let types = Mutex<[String]>([])

    public init() {}

    public func record(_ type: String) {
        types.withLock { types in
            if !types.contains(type) { types.append(type) }
        }
    }

    /// The types in the order first sent, comma separated; `-` when none was sent (health, refused keys).
    public var summary: String {
        let recorded = types.withLock { $0 }
        return recorded.isEmpty ? "-" : recorded.joined(separator: ",")
    }
}
