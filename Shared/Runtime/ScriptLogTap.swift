import Synchronization

/// One log line as `GET /scriptlog` keeps it, and as it travels to cloud (`scriptlog.append.v1`).
public struct ScriptLogRecord: Codable, Sendable, Equatable {
    /// Milliseconds since 1970, UTC.
    public var time: Int64
    public var level: ScriptLogLevel
    public var service: String
    public var message: String
    public var fields: [String: String]
    /// The app the line was written for (`AppContext` then): the app whose `/scriptlog` keeps it; nil for the
    /// stack's own.
    public var app: String?

    public init(time: Int64, level: ScriptLogLevel, service: String, message: String, fields: [String: String],
                app: String? = AppContext.current) {
        self.time = time
        self.level = level
        self.service = service
        self.message = message
        self.fields = fields
        self.app = app
    }
}

/// Collects the lines this process's loggers write that `/scriptlog` keeps, until a shipper takes them to the
/// service that stores them. Off until `keep(_:)` names a level, so a process without a shipper (a tool, a test)
/// collects nothing. When nobody takes the lines, those beyond `capacity` are dropped, and counted.
public final class ScriptLogTap: Sendable {
    public static let shared = ScriptLogTap()

    private struct Pending {
        var records: [ScriptLogRecord] = []
        var dropped = 0
    }

    public let capacity: Int
    /// The kept level's raw value; -1 keeps nothing. Read on every log line, so an atomic, not the lock.
    private let keptLevel = Atomic<Int>(-1)
    private let pending = Mutex(Pending())

    public init(capacity: Int = 20_000) {
        self.capacity = capacity
    }

    /// Keeps lines up to `level` from now on; nil keeps none.
    public func keep(_ level: ScriptLogLevel?) {
        keptLevel.store(level?.rawValue ?? -1, ordering: .relaxed)
    }

    public func keeps(_ level: ScriptLogLevel) -> Bool {
        level.rawValue <= keptLevel.load(ordering: .relaxed)
    }

    func add(_ record: ScriptLogRecord) {
        pending.withLock { pending in
            if pending.records.count < capacity {
                pending.records.append(record)
            } else {
                pending.dropped += 1
            }
        }
    }

    /// Everything collected so far, and how many lines were dropped since the last take.
    public func take() -> (records: [ScriptLogRecord], dropped: Int) {
        pending.withLock { pending in
            defer { pending = Pending() }
            return (pending.records, pending.dropped)
        }
    }
}
