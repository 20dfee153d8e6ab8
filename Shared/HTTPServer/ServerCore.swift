/// What MHD's callbacks need, reached from their `void *` argument. Immutable apart from the tracker, and kept
/// alive by the running daemon (retained at start, released after `MHD_stop_daemon`).
final class ServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let headPolicy: RequestHeadPolicy
    let headSizeLimit: HeadSizeLimit
    let tracker = RequestTracker()
    /// Carries WebSocket upgrades to `configuration.upgradeUpstream`, when one is set.
    let relay = UpgradeRelay()
    let connections = ConnectionRegistry()
    /// Nil when bodies in flight are not bounded.
    let bodyBudget: BodyBudget?

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder) {
        self.configuration = configuration
        self.responder = responder
        headPolicy = RequestHeadPolicy(maxBodyBytes: configuration.maxBodyBytes)
        headSizeLimit = HeadSizeLimit(maxHeadBytes: configuration.maxHeadBytes,
                                      connectionMemory: max(4096, configuration.connectionMemoryLimit))
        bodyBudget = configuration.bodyBytesInFlight.map { BodyBudget(capacity: max($0, configuration.maxBodyBytes)) }
    }
}
