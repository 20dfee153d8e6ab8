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
    }

    struct Report: Codable, Sendable {
        var status: String
        var broker: String
        var services: [String: ServiceState]
    }

    let client: RPCClient
    let timeout: Duration

    func check(requestId: String) async -> Report {
        let states = await withTaskGroup(of: (String, ServiceState).self) { group in
            for service in ServiceName.allCases {
                group.addTask { (service.rawValue, await ping(service, requestId: requestId)) }
            }
            var states: [String: ServiceState] = [:]
            for await (name, state) in group { states[name] = state }
            return states
        }
        let ready = client.isConnected && states.values.allSatisfy { $0.status == "ok" }
        return Report(status: ready ? "ok" : "unavailable", broker: client.isConnected ? "ok" : "unavailable",
                      services: states)
    }

    private func ping(_ service: ServiceName, requestId: String) async -> ServiceState {
        let started = ContinuousClock.now
        do {
            let pong: Pong = try await client.send(Ping.type, Ping(), to: service, requestId: requestId,
                                                   identity: .anonymous, timeout: timeout)
            let ms = (ContinuousClock.now - started).totalMilliseconds
            return ServiceState(status: "ok", instance: pong.instance, latencyMs: (ms * 100).rounded() / 100)
        } catch let error as MessagingError {
            return ServiceState(status: "unavailable", error: error.description)
        } catch {
            return ServiceState(status: "unavailable", error: "\(error)")
        }
    }
}
