import Contracts
import ParseWire

/// parse-server's Hooks API (`HooksRouter`, `HooksController`), master key only: webhooks for functions
/// (`/hooks/functions[/<name>]`) and triggers (`/hooks/triggers[/<class>/<trigger>]`), created with POST, read
/// with GET, changed with PUT `{"url"}` and deleted with PUT `{"__op":"Delete"}`. A change is answered once the
/// services that cache the trigger list have its generation (`GenerationAnnouncer`).
struct HooksRoutes: Sendable {
    let store: HookStore
    let directory: TargetDirectory
    let announcer: GenerationAnnouncer

    static let masterKeyRequired = RESTResponse(status: 403, body: #"{"error":"unauthorized: master key is required"}"#)

    func handle(_ request: RESTRequest, parts: [String], identity: Identity, requestId: String) async throws -> RESTResponse {
        guard identity.isMaster || identity.isReadOnlyMaster else { return Self.masterKeyRequired }
        let body = request.body.flatMap { JSONValue.parse($0) }?.objectValue ?? [:]
        if request.method != "GET" && identity.isReadOnlyMaster {
            throw ParseError(.operationForbidden, "read-only masterKey isn't allowed to change hooks.")
        }
        switch (request.method, parts.count, parts.dropFirst().first) {
        case ("GET", 2, "functions"):
            return Self.json(.array(try await store.functions().map(\.json)))
        case ("GET", 2, "triggers"):
            return Self.json(.array(try await store.triggers().map(\.json)))
        case ("GET", 3, "functions"):
            guard let hook = try await store.function(parts[2]) else { throw Self.noFunction(parts[2]) }
            return Self.json(hook.json)
        case ("GET", 4, "triggers"):
            guard let hook = try await store.trigger(className: parts[2], triggerName: parts[3]) else {
                throw Self.noClass(parts[2])
            }
            return Self.json(hook.json)
        case ("POST", 2, "functions"), ("POST", 2, "triggers"):
            return Self.json(try await create(body, requestId: requestId).json)
        case ("PUT", 3, "functions"):
            if body["__op"]?.stringValue == "Delete" {
                try await changed(store.deleteFunction(parts[2]), requestId: requestId)
                return Self.json(.object([:]))
            }
            guard let url = body["url"]?.stringValue, !url.isEmpty else { throw Self.invalidDeclaration }
            guard try await store.function(parts[2]) != nil else { throw Self.noFunction(parts[2]) }
            return Self.json(try await save(Hook(functionName: parts[2], url: url), requestId: requestId).json)
        case ("PUT", 4, "triggers"):
            if body["__op"]?.stringValue == "Delete" {
                try await changed(store.deleteTrigger(className: parts[2], triggerName: parts[3]), requestId: requestId)
                return Self.json(.object([:]))
            }
            guard let url = body["url"]?.stringValue, !url.isEmpty else { throw Self.invalidDeclaration }
            guard try await store.trigger(className: parts[2], triggerName: parts[3]) != nil else {
                throw Self.noClass(parts[2])
            }
            return Self.json(try await save(try Self.triggerHook(className: parts[2], triggerName: parts[3], url: url),
                                            requestId: requestId).json)
        default:
            throw ParseError.noSuchRoute(request.method, "/\(request.path)")
        }
    }

    /// `HooksController.createHook`: a function by its name, else a trigger by class and trigger name.
    private func create(_ body: [String: JSONValue], requestId: String) async throws -> Hook {
        if let function = Self.text(body["functionName"]) {
            guard try await store.function(function) == nil else {
                throw ParseError(.webhookError, "function name: \(function) already exists")
            }
            guard let url = Self.text(body["url"]) else { throw Self.invalidDeclaration }
            return try await save(Hook(functionName: function, url: url), requestId: requestId)
        }
        if let className = Self.text(body["className"]), let triggerName = Self.text(body["triggerName"]) {
            guard try await store.trigger(className: className, triggerName: triggerName) == nil else {
                throw ParseError(.webhookError, "class \(className) already has trigger \(triggerName)")
            }
            guard let url = Self.text(body["url"]) else { throw Self.invalidDeclaration }
            return try await save(try Self.triggerHook(className: className, triggerName: triggerName, url: url),
                                  requestId: requestId)
        }
        throw Self.invalidDeclaration
    }

    private func save(_ hook: Hook, requestId: String) async throws -> Hook {
        try await changed(store.save(hook), requestId: requestId)
        return hook
    }

    /// After a committed change (`generation`, nil when nothing changed): this process's copy dropped, the caching
    /// services told.
    private func changed(_ generation: Int64?, requestId: String) async throws {
        guard generation != nil else { return }
        await directory.invalidate()
        try await announcer.announce(generation, requestId: requestId)
    }

    private static func triggerHook(className: String, triggerName: String, url: String) throws -> Hook {
        guard TriggerName(rawValue: triggerName) != nil else { throw invalidDeclaration }
        return Hook(className: className, triggerName: triggerName, url: url)
    }

    private static func text(_ value: JSONValue?) -> String? {
        guard let text = value?.stringValue, !text.isEmpty else { return nil }
        return text
    }

    static let invalidDeclaration = ParseError(.webhookError, "invalid hook declaration")

    static func noFunction(_ name: String) -> ParseError {
        ParseError(.webhookError, "no function named: \(name) is defined")
    }

    static func noClass(_ name: String) -> ParseError { ParseError(.webhookError, "class \(name) does not exist") }

    static func json(_ value: JSONValue, status: Int = 200, headers: [String: String] = [:]) -> RESTResponse {
        RESTResponse(status: status, headers: headers, body: JSONText.encode(value))
    }
}
