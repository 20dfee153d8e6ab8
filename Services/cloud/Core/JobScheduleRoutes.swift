import Contracts
import Foundation
import ParseWire

/// parse-server's `/cloud_code/jobs` routes (its CloudCodeRouter), with the master key: the schedules (`GET`), the
/// jobs and the names in use (`GET .../data`), and a schedule created, replaced or deleted from a `job_schedule` body.
struct JobScheduleRoutes: Sendable {
    let store: JobScheduleStore
    let directory: TargetDirectory

    func handle(_ request: RESTRequest, parts: [String], identity: Identity) async throws -> RESTResponse {
        guard identity.isMaster || identity.isReadOnlyMaster else { return HooksRoutes.masterKeyRequired }
        switch (request.method, parts.count) {
        case ("GET", 2):
            return HooksRoutes.json(.array(try await store.list()))
        case ("GET", 3) where parts[2] == "data":
            let names = try await directory.snapshot().jobs.keys.sorted()
            let inUse = try await store.jobNames()
            return HooksRoutes.json(.object(["jobs": .array(names.map(JSONValue.string)),
                                             "in_use": .array(inUse.map(JSONValue.string))]))
        case ("POST", 2):
            try requireWrite(identity, "create")
            guard let schedule = try await checked(request, objectId: ObjectId.make()) else {
                return Self.notDeployed
            }
            let created = try await store.create(schedule)
            return HooksRoutes.json(.object(["objectId": .string(created.objectId), "createdAt": .string(created.createdAt)]),
                                    status: 201)
        case ("PUT", 3):
            try requireWrite(identity, "update")
            // Checked first, as parse-server does; the update keeps the row's `lastRun`.
            guard let schedule = try await checked(request, objectId: parts[2]) else {
                return Self.notDeployed
            }
            guard let updatedAt = try await store.update(schedule) else { throw Self.notFound }
            // parse-server wraps the update's answer once more.
            return HooksRoutes.json(.object(["response": .object(["updatedAt": .string(updatedAt)])]))
        case ("DELETE", 3):
            try requireWrite(identity, "delete")
            guard try await store.delete(parts[2]) else { throw Self.notFound }
            return HooksRoutes.json(.object([:]))
        default:
            throw ParseError.noSuchRoute(request.method, "/\(request.path)")
        }
    }

    private static let notFound = ParseError(.objectNotFound, "Object not found.")

    private func requireWrite(_ identity: Identity, _ operation: String) throws(ParseError) {
        guard identity.isMaster else {
            throw ParseError(.operationForbidden, "read-only masterKey isn't allowed to perform the \(operation) operation.")
        }
    }

    /// parse-server answers a schedule for a job that is not registered with code 1 and HTTP 500; here it is 400
    /// with the same code and message, as no client input may cause a 500.
    private static let notDeployed = RESTResponse(status: 400,
                                                  body: #"{"code":1,"error":"Cannot Schedule a job that is not deployed"}"#)

    /// The body's `job_schedule`, checked; nil when its job is not registered.
    private func checked(_ request: RESTRequest, objectId: String) async throws -> JobSchedule? {
        let body = request.body.flatMap { JSONValue.parse($0) }?.objectValue
        guard let body else { throw ParseError(.invalidJSON, "Invalid JSON") }
        let schedule = try JobSchedule(body: body["job_schedule"], objectId: objectId, lastRun: nil, now: Date())
        return try await directory.snapshot().jobs[schedule.jobName] == nil ? nil : schedule
    }
}
