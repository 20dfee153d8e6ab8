import Contracts
import Runtime
import Synchronization

/// Takes the lines this process keeps for `GET /scriptlog` (`ScriptLogTap`) to cloud, which stores them
/// (`scriptlog.append.v1`), every `interval` and whenever asked (`flush`). The log is best effort: a batch
/// cloud did not confirm is dropped and counted, and the count is logged once a batch arrives again.
public final class ScriptLogShipper: Sendable {
    private let tap: ScriptLogTap
    private let client: RPCClient
    private let interval: Duration
    private let timeout: Duration
    private let logger: Logger
    private let lost = Atomic<Int>(0)
    private let loop = OwnedTasks("script log shipping")
    private let started = Atomic<Bool>(false)
    private let turns = TakingTurns()

    public init(tap: ScriptLogTap = .shared, client: RPCClient, interval: Duration = .milliseconds(250),
                timeout: Duration = .seconds(2), logger: Logger) {
        self.tap = tap
        self.client = client
        self.interval = interval
        self.timeout = timeout
        self.logger = logger
    }

    /// Ships every `interval` until cancelled; what `start` runs, and what a host runs as a job of its own.
    public func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            await flush()
        }
    }

    /// Runs `run()` in a task this shipper owns until `stop()`.
    public func start() {
        guard started.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        loop.spawn { await self.run() }
    }

    /// Stops the loop and ships what is left.
    public func stop() async {
        await loop.stop()
        await flush(timeout: Self.lastFlushTimeout)
    }

    /// The last lines of a stopping process wait this long at most: cloud itself, stopping, no longer takes them.
    public static let lastFlushTimeout = Duration.milliseconds(500)

    /// Ships everything collected so far and returns once cloud stored it (or the batch was given up after
    /// `timeout`, the shipper's own unless given). A flush waits for the one under way first: lines that one took
    /// were collected before this call too, and the caller (`GET /scriptlog`) reads the store next.
    public func flush(timeout: Duration? = nil) async {
        await turns.begin()
        defer { turns.end() }
        let (records, dropped) = tap.take()
        if dropped > 0 { lost.add(dropped, ordering: .relaxed) }
        var stored = false
        // Each app's lines go to its own store, which its `/scriptlog` reads: sent under that app, whichever app's
        // request asked for the flush.
        for (app, entries) in Self.byApp(records) {
            do {
                let _: Empty = try await AppContext.$current.withValue(app) {
                    try await client.send(AppendScriptLogs.type, AppendScriptLogs(entries: entries), to: .cloud,
                                          requestId: RandomUUID.string(), identity: .master,
                                          timeout: timeout ?? self.timeout, safeToRunTwice: false)
                }
                stored = true
            } catch {
                lost.add(entries.count, ordering: .relaxed)
            }
        }
        guard stored else { return }
        let missing = lost.exchange(0, ordering: .relaxed)
        if missing > 0 {
            AppContext.$current.withValue(nil) {
                logger.warning("log lines were not kept for /scriptlog", ["lines": String(missing)])
            }
        }
    }

    /// `records` by the app they were written for, each app's in their order, the apps in the order of their first
    /// line.
    static func byApp(_ records: [ScriptLogRecord]) -> [(app: String?, records: [ScriptLogRecord])] {
        var groups: [(app: String?, records: [ScriptLogRecord])] = []
        var positions: [String?: Int] = [:]
        for record in records {
            if let position = positions[record.app] {
                groups[position].records.append(record)
            } else {
                positions[record.app] = groups.count
                groups.append((record.app, [record]))
            }
        }
        return groups
    }
}
