import Contracts
import Foundation
import Messaging

/// The readiness view: pings every service over the broker at once and reports each one.
struct Readiness: Sendable {
    struct ServiceState: Codable, Sendable {
        var status: String
        var instance: String?
        var latencyMs: Double?
        var error: String?
        /// Commands waiting in the service's queue (ready, not yet taken); absent when the broker could not say.
        var queueDepth: Int?
        /// Events in the answering replica's outbox not yet confirmed by the broker, and the oldest one's age.
        var outboxPending: Int?
        var outboxLagMs: Double?
        /// The PostgreSQL server the service writes to (the primary, with several nodes), its streaming standbys
        /// and the WAL bytes the furthest one is behind.
        var databaseServer: String?
        var standbys: Int?
        var replicationLagBytes: Double?
    }

    struct Report: Codable, Sendable {
        var status: String
        var broker: String
        var services: [String: ServiceState]
        /// Commands kept in each service's `<queue>.dead` (see docs/architecture.md); informative, never a
        /// reason to answer 503. Absent when the broker could not be asked.
        var deadLetters: [String: Int]?
    }

    let client: RPCClient
    let timeout: Duration
    let deadLetters: DeadLetterQueues?
    let limits: ReadinessLimits

    init(client: RPCClient, timeout: Duration, deadLetters: DeadLetterQueues? = nil, limits: ReadinessLimits = ReadinessLimits()) {
        self.client = client
        self.timeout = timeout
        self.deadLetters = deadLetters
        self.limits = limits
    }

    func check(requestId: String) async -> Report {
        async let deadLetterCounts = countDeadLetters()
        async let queueDepths = countQueueDepths()
        var states = await withTaskGroup(of: (String, ServiceState).self) { group in
            for service in ServiceName.allCases {
                group.addTask { (service.rawValue, await ping(service, requestId: requestId)) }
            }
            var states: [String: ServiceState] = [:]
            for await (name, state) in group { states[name] = state }
            return states
        }
        let depths = await queueDepths
        for service in ServiceName.allCases {
            guard var state = states[service.rawValue] else { continue }
            state.queueDepth = depths?[service.commandQueue]
            if state.status == "ok",
               let problem = limits.problem(queueDepth: state.queueDepth, outboxAgeSeconds: state.outboxLagMs.map { $0 / 1000 }) {
                state.status = "overloaded"
                state.error = problem
            }
            states[service.rawValue] = state
        }
        let ready = client.isConnected && states.values.allSatisfy { $0.status == "ok" }
        return Report(status: ready ? "ok" : "unavailable", broker: client.isConnected ? "ok" : "unavailable",
                      services: states, deadLetters: await deadLetterCounts)
    }

    /// The counts come over a short connection of their own, whose calls block: they run on a dispatch thread,
    /// not on the cooperative pool.
    private func countDeadLetters() async -> [String: Int]? {
        guard let deadLetters, client.isConnected else { return nil }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: try? deadLetters.counts(ServiceName.allCases.map(\.commandQueue)))
            }
        }
    }

    private func countQueueDepths() async -> [String: Int]? {
        guard let deadLetters, client.isConnected else { return nil }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: try? deadLetters.depths(ServiceName.allCases.map(\.commandQueue)))
            }
        }
    }

    private func ping(_ service: ServiceName, requestId: String) async -> ServiceState {
        let started = ContinuousClock.now
        do {
            let pong: Pong = try await client.send(Ping.type, Ping(), to: service, requestId: requestId,
                                                   identity: .anonymous, timeout: timeout)
            let ms = (ContinuousClock.now - started).totalMilliseconds
            return ServiceState(status: "ok", instance: pong.instance, latencyMs: (ms * 100).rounded() / 100,
                                outboxPending: pong.outboxPending,
                                outboxLagMs: pong.outboxOldestAgeSeconds.map { ($0 * 100_000).rounded() / 100 },
                                databaseServer: pong.databaseServer, standbys: pong.standbys,
                                replicationLagBytes: pong.replicationLagBytes)
        } catch let error as MessagingError {
            return ServiceState(status: "unavailable", error: error.description)
        } catch {
            return ServiceState(status: "unavailable", error: "\(error)")
        }
    }
}
