import Contracts
import Messaging
import ParseWire
import Runtime
import Synchronization

/// Sends the gateway's request counts to posts (`requests.count.v1`, each app's as that app's command) every
/// `interval`, and once more at stop. A report whose answer did not arrive is sent again with the same id, which
/// posts adds once; new counts of its app wait for the next report.
actor RequestCountReporter {
    private let counter: RequestCounter
    private let client: RPCClient
    private let interval: Duration
    private let timeout: Duration
    private let logger: Logger
    /// Reports not answered yet, by app (nil: the stack's own).
    private var pending: [String?: RecordRequestCounts] = [:]
    private let loop = OwnedTasks("request count reports")
    private let started = Atomic<Bool>(false)

    init(counter: RequestCounter, client: RPCClient, interval: Duration, timeout: Duration, logger: Logger) {
        self.counter = counter
        self.client = client
        self.interval = interval
        self.timeout = timeout
        self.logger = logger
    }

    nonisolated func start() {
        guard started.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        let interval = self.interval
        loop.spawn { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self else { return }
                await self.report()
            }
        }
    }

    func stop() async {
        await loop.stop()
        await report()
    }

    func report() async {
        for (app, counts) in counter.take() {
            guard pending[app] == nil else {
                counter.restore(counts, app: app)
                continue
            }
            pending[app] = RecordRequestCounts(reportId: RandomUUID.string(), counts: counts)
        }
        for (app, report) in pending {
            do {
                let _: RequestCountsRecorded = try await AppContext.$current.withValue(app) {
                    try await client.send(RecordRequestCounts.type, report, to: .posts, requestId: report.reportId,
                                          identity: .master, timeout: timeout, safeToRunTwice: false)
                }
                pending[app] = nil
            } catch let error as ParseError where app != nil && error.code == .objectNotFound {
                // The app was deleted meanwhile: its counts went with it.
                pending[app] = nil
            } catch {
                logger.debug("request counts not reported yet", ["app": app ?? "-", "error": "\(error)"])
            }
        }
    }
}
