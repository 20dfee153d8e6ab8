import Contracts
import Foundation
import Messaging
import ParseWire
import Query
import Runtime
import ServiceKit

/// `GET /settings` and `PUT /settings`: the app's settings that can change while it runs, each kept by the service
/// that applies it (`RuntimeSettingNames`: client class creation here, sessions, passwords and e-mail in auth, file
/// uploads in files). Only with the master key (reading also with the read-only one). A change is first checked by
/// every owner concerned and stored by none unless all accept it; a value replaces the one the service started with,
/// `null` returns to it. The answer, for either: `{"settings": {name: value in force}, "changed": [names]}`.
struct SettingsHandler: Sendable {
    let local: RuntimeSettings
    let calls: RequestCalls
    var identity: Identity { calls.identity }

    func handle(_ request: RESTRequest) async throws -> RESTResponse {
        switch request.method {
        case "GET":
            guard identity.isMaster || identity.isReadOnlyMaster else { return SchemasHandler.masterKeyRequired }
            return answer(try await read())
        case "PUT":
            guard identity.isMaster || identity.isReadOnlyMaster else { return SchemasHandler.masterKeyRequired }
            guard identity.isMaster else {
                throw ParseError(.operationForbidden, "read-only masterKey isn't allowed to perform the update operation.")
            }
            let changes = try RequestBody.object(request.body)
            var parts: [ServiceName: [String: JSONValue]] = [:]
            for (name, value) in changes {
                guard let owner = RuntimeSettingNames.owner(of: name) else {
                    throw ParseError(.invalidJSON, "\(name) is not a setting that can change at run time.")
                }
                parts[owner, default: [:]][name] = value
            }
            _ = try await change(parts, dryRun: true)
            _ = try await change(parts, dryRun: false)
            return answer(try await read())
        default:
            throw ParseError.noSuchRoute(request.method, "/settings")
        }
    }

    private static let owners: [ServiceName] = [.posts, .auth, .files]

    private func read() async throws -> [RuntimeSettingsAnswer] {
        try await withThrowingTaskGroup(of: RuntimeSettingsAnswer.self) { group in
            for owner in Self.owners {
                group.addTask {
                    owner == .posts ? try await local.answer() : try await calls.ask(ReadRuntimeSettings.type, ReadRuntimeSettings(), of: owner)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    private func change(_ parts: [ServiceName: [String: JSONValue]], dryRun: Bool) async throws -> [RuntimeSettingsAnswer] {
        try await withThrowingTaskGroup(of: RuntimeSettingsAnswer.self) { group in
            for (owner, changes) in parts {
                let command = ChangeRuntimeSettings(changes: changes, dryRun: dryRun)
                group.addTask {
                    owner == .posts ? try await local.change(command) : try await calls.ask(ChangeRuntimeSettings.type, command, of: owner)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    private func answer(_ answers: [RuntimeSettingsAnswer]) -> RESTResponse {
        var settings: [String: JSONValue] = [:]
        var changed: [String] = []
        for answer in answers {
            settings.merge(answer.settings) { $1 }
            changed += answer.changed
        }
        return PostsHandler.json(200, .object(["settings": .object(settings),
                                               "changed": .array(changed.sorted().map(JSONValue.string))]))
    }
}
