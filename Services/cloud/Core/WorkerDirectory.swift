import Contracts
import Dispatch
import Foundation
import Messaging
import ParseWire
import Storage

/// `GET /cloud_code/workers` (master key): the Cloud Code workers registered over AMQP, one entry per queue with
/// the functions, jobs and triggers it registered, when, and whether a worker reads the queue now (its consumers,
/// asked of the broker with a passive declare).
struct WorkerDirectory: Sendable {
    let pool: PostgresPool
    let queues: DeadLetterQueues

    func list() async throws -> JSONValue {
        let rows = try await pool.query(
            "SELECT kind, name, class_name, queue, registered_at FROM worker_targets ORDER BY queue, kind, class_name, name").rows
        var order: [String] = []
        var workers: [String: (functions: [JSONValue], jobs: [JSONValue], triggers: [JSONValue], registeredAt: Date?)] = [:]
        for row in rows {
            guard let queue = row["queue"], let name = row["name"] else { continue }
            if workers[queue] == nil { order.append(queue); workers[queue] = ([], [], [], nil) }
            switch row["kind"] {
            case "function": workers[queue]?.functions.append(.string(name))
            case "job": workers[queue]?.jobs.append(.string(name))
            default: workers[queue]?.triggers.append(.object(["className": .string(row["class_name"] ?? ""), "triggerName": .string(name)]))
            }
            if let at = row.date("registered_at"), at > (workers[queue]?.registeredAt ?? .distantPast) { workers[queue]?.registeredAt = at }
        }
        let consumers = await consumerCounts(order)
        return .array(order.map { queue in
            let worker = workers[queue] ?? ([], [], [], nil)
            var fields: [String: JSONValue] = [
                "queue": .string(queue), "functions": .array(worker.functions), "jobs": .array(worker.jobs),
                "triggers": .array(worker.triggers),
                "consumers": consumers.map { .number(Double($0[queue] ?? 0)) } ?? .null,
                "connected": consumers.map { .bool(($0[queue] ?? 0) > 0) } ?? .null,
            ]
            if let at = worker.registeredAt { fields["registeredAt"] = .string(ParseDate.string(from: at)) }
            return .object(fields)
        })
    }

    /// nil when the broker cannot be asked: the answer then says `null`, not "disconnected". The calls block, so they
    /// run on a dispatch queue, off the cooperative pool.
    private func consumerCounts(_ names: [String]) async -> [String: Int]? {
        guard !names.isEmpty else { return [:] }
        let queues = self.queues
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: try? queues.consumers(names)) }
        }
    }
}
