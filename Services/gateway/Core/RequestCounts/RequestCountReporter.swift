import Contracts
import Messaging
import Runtime
import Synchronization

/// Sends the gateway's request counts to posts (`requests.count.v1`) every `interval`, and once more at stop.
/// A report whose answer did not arrive is sent again with the same id, which posts adds once; new counts wait
/// for the next report.
actor RequestCountReporter {
    private let counter: RequestCounter
    private let client: RPCClient
    private let interval: Duration
    private let timeout: Duration
    private let logger: Logger
    private var pending: RecordRequestCounts?
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
        if pending == nil {
            let counts = counter.take()
            guard !counts.isEmpty else { return }
            pending = RecordRequestCounts(reportId: RandomUUID.string(), counts: counts)
        }
        guard let report = pending else { return }
        do {
            let _: RequestCountsRecorded = try await client.send(
                RecordRequestCounts.type, report, to: .posts, requestId: report.reportId, identity: .master,
                timeout: timeout, safeToRunTwice: false)
            pending = nil
        } catch {
            logger.debug("request counts not reported yet", ["error": "\(error)"])
        }
    }
}
