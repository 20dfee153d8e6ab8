import Contracts
import Foundation
import ParseWire
import ServiceKit
import Storage

/// The `hooks` and `worker_targets` tables. Every change advances the registrations' generation
/// (`cache_generations`) and writes a `hooks.changed.v1` event to the outbox in the same transaction; the change
/// methods answer the new generation (nil when nothing changed), for the caller to pass on before it answers.
struct HookStore: Sendable {
    let pool: PostgresPool

    func functions() async throws -> [Hook] {
        try await pool.query("SELECT function_name, url FROM hooks WHERE function_name IS NOT NULL ORDER BY id").rows
            .map { Hook(functionName: $0["function_name"], url: $0["url"] ?? "") }
    }

    func function(_ name: String) async throws -> Hook? {
        try await pool.query("SELECT function_name, url FROM hooks WHERE function_name = $1", [name]).first
            .map { Hook(functionName: $0["function_name"], url: $0["url"] ?? "") }
    }

    func triggers() async throws -> [Hook] {
        try await pool.query("SELECT class_name, trigger_name, url FROM hooks WHERE class_name IS NOT NULL ORDER BY id").rows
            .map(Self.trigger)
    }

    func trigger(className: String, triggerName: String) async throws -> Hook? {
        try await pool.query("SELECT class_name, trigger_name, url FROM hooks WHERE class_name = $1 AND trigger_name = $2",
                             [className, triggerName]).first.map(Self.trigger)
    }

    private static func trigger(_ row: PostgresRow) -> Hook {
        Hook(className: row["class_name"], triggerName: row["trigger_name"], url: row["url"] ?? "")
    }

    /// Creates or replaces the hook of its function name or (class, trigger).
    @discardableResult
    func save(_ hook: Hook) async throws -> Int64 {
        try await pool.transaction { connection in
            if let function = hook.functionName {
                _ = try await connection.query("""
                    INSERT INTO hooks (function_name, url) VALUES ($1, $2)
                    ON CONFLICT (function_name) DO UPDATE SET url = EXCLUDED.url
                    """, [function, hook.url])
            } else {
                _ = try await connection.query("""
                    INSERT INTO hooks (class_name, trigger_name, url) VALUES ($1, $2, $3)
                    ON CONFLICT (class_name, trigger_name) DO UPDATE SET url = EXCLUDED.url
                    """, [hook.className, hook.triggerName, hook.url])
            }
            return try await Self.announce(HooksChanged(functionName: hook.functionName, className: hook.className,
                                                        triggerName: hook.triggerName), on: connection)
        }
    }

    func deleteFunction(_ name: String) async throws -> Int64? {
        try await pool.transaction { connection -> Int64? in
            let deleted = try await connection.query("DELETE FROM hooks WHERE function_name = $1", [name])
            guard deleted.affectedRows > 0 else { return nil }
            return try await Self.announce(HooksChanged(functionName: name), on: connection)
        }
    }

    func deleteTrigger(className: String, triggerName: String) async throws -> Int64? {
        try await pool.transaction { connection -> Int64? in
            let deleted = try await connection.query("DELETE FROM hooks WHERE class_name = $1 AND trigger_name = $2",
                                                     [className, triggerName])
            guard deleted.affectedRows > 0 else { return nil }
            return try await Self.announce(HooksChanged(className: className, triggerName: triggerName), on: connection)
        }
    }

    /// Replaces what `registration.queue` serves; announces a change only when the set differs from before, so a
    /// worker restarting with the same code causes no cache drops.
    func register(_ registration: RegisterCloudWorker) async throws -> Int64? {
        let wanted = Set(Self.targets(of: registration).map { "\($0.kind.rawValue)\u{1}\($0.name)\u{1}\($0.className)" })
        return try await pool.transaction { connection -> Int64? in
            _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtext('cloud.worker_targets'))")
            let existing = try await connection.query(
                "SELECT kind, name, class_name FROM worker_targets WHERE queue = $1", [registration.queue]).rows
            let had = Set(existing.map { "\($0["kind"] ?? "")\u{1}\($0["name"] ?? "")\u{1}\($0["class_name"] ?? "")" })
            _ = try await connection.query("DELETE FROM worker_targets WHERE queue = $1", [registration.queue])
            var moved = false
            for target in Self.targets(of: registration) {
                let previous = try await connection.query("""
                    INSERT INTO worker_targets (kind, name, class_name, queue) VALUES ($1, $2, $3, $4)
                    ON CONFLICT (kind, name, class_name) DO UPDATE SET queue = EXCLUDED.queue, registered_at = now()
                    RETURNING (xmax <> 0) AS replaced
                    """, [target.kind.rawValue, target.name, target.className, target.queue])
                if previous.first?.bool("replaced") == true { moved = true }
            }
            guard had != wanted || moved else { return nil }
            return try await Self.announce(HooksChanged(), on: connection)
        }
    }

    static func targets(of registration: RegisterCloudWorker) -> [WorkerTarget] {
        registration.functions.map { WorkerTarget(kind: .function, name: $0, className: "", queue: registration.queue) }
            + registration.jobs.map { WorkerTarget(kind: .job, name: $0, className: "", queue: registration.queue) }
            + registration.triggers.map {
                WorkerTarget(kind: .trigger, name: $0.triggerName.rawValue, className: $0.className, queue: registration.queue)
            }
    }

    /// The registrations' generation as committed now.
    func generation() async throws -> Int64 {
        try await pool.query(CacheGenerations.statement(AdvanceCacheGeneration.hooks).sql,
                             CacheGenerations.statement(AdvanceCacheGeneration.hooks).parameters)
            .first?.int("generation").map(Int64.init) ?? 0
    }

    /// Every registration, with a generation they are at or after (read first, so a change committed between
    /// the reads makes the snapshot look older than it is: read again, never trusted too long).
    func snapshot() async throws -> TargetSnapshot {
        let generation = try await generation()
        let hooks = try await pool.query("SELECT function_name, class_name, trigger_name, url FROM hooks ORDER BY id").rows
            .map { Hook(functionName: $0["function_name"], className: $0["class_name"], triggerName: $0["trigger_name"],
                        url: $0["url"] ?? "") }
        let workers = try await pool.query("SELECT kind, name, class_name, queue FROM worker_targets").rows
            .compactMap { row -> WorkerTarget? in
                guard let kind = row["kind"].flatMap(CloudWorkerCall.Kind.init(rawValue:)) else { return nil }
                return WorkerTarget(kind: kind, name: row["name"] ?? "", className: row["class_name"] ?? "",
                                    queue: row["queue"] ?? "")
            }
        return TargetSnapshot(hooks: hooks, workers: workers, generation: generation)
    }

    /// Advances the generation and writes the event, in the change's transaction; the new generation.
    private static func announce(_ change: HooksChanged, on connection: PostgresConnection) async throws -> Int64 {
        let advanced = try await connection.query(
            "UPDATE cache_generations SET generation = generation + 1 WHERE cache = $1 RETURNING generation",
            [AdvanceCacheGeneration.hooks]).first?.int("generation").map(Int64.init) ?? 0
        let event = CloudEvent(id: UUID().uuidString.lowercased(), source: "/parse/cloud", type: ListTriggers.changedEventType,
                               time: ParseDate.string(from: Date()), subject: nil, data: change)
        try await Outbox.add(event, routingKey: ListTriggers.changedRoutingKey, on: connection)
        return advanced
    }
}
