import Contracts
import Foundation
import ParseWire
import ServiceKit
import Storage

/// Cloud Code triggers around users: `_User` beforeSave on signup and update, beforeDelete and afterDelete,
/// beforeLogin and afterLogin (on `_User`, as parse-server registers them) and afterLogout (on `_Session`).
struct UserTriggers: Sendable {
    static let userClass = "_User"
    static let sessionClass = "_Session"
    /// Never shown to a trigger's target nor taken from its answer: the password goes only to the hash.
    static let withheld: Set<String> = ["password", "sessionToken", "authData"]

    let request: AuthRequest

    /// Runs `_User`'s beforeSave when it has one: the trigger sees the user with the change applied, and the
    /// fields it changed replace the client's in the request `write` handles; its answer names them too.
    func beforeSave(original: [String: JSONValue]?, objectId: String?,
                    write: (AuthRequest) async throws -> RESTResponse) async throws -> RESTResponse {
        guard let cloud = request.cloud, await request.triggers(of: Self.userClass).contains(.beforeSave) else {
            return try await write(request)
        }
        let changes = try request.body()
        var given = BeforeSaveMerge.applying(changes.filter { !Self.withheld.contains($0.key) },
                                             to: original?.filter { !Self.withheld.contains($0.key) })
        given["className"] = .string(Self.userClass)
        if let objectId { given["objectId"] = .string(objectId) }
        var originalObject = original?.filter { !Self.withheld.contains($0.key) }
        originalObject?["className"] = .string(Self.userClass)
        let trigger = request.triggerRequest.trigger(.beforeSave, Self.userClass, object: .object(given),
                                                     original: originalObject.map { .object($0) })
        let result = try await cloud.run(trigger, requestId: request.requestId, identity: request.identity)
        guard let answer = result.object?.objectValue else { return try await write(request) }
        let merged = BeforeSaveMerge.merge(answer: answer.filter { !Self.withheld.contains($0.key) }, given: given,
                                           changes: changes)
        var changed = request
        changed.bodyText = JSONValue.object(merged.changes).compactText
        let response = try await write(changed)
        guard !merged.changed.isEmpty, response.status < 300, let body = JSONValue.parse(response.body)?.objectValue else {
            return response
        }
        let answered = BeforeSaveMerge.answer(body, changed: merged.changed, changes: merged.changes)
        return RESTResponse(status: response.status, headers: response.headers, body: JSONValue.object(answered).compactText)
    }

    /// beforeLogin: may refuse the login of `user` by throwing.
    func beforeLogin(_ user: [String: JSONValue]) async throws {
        guard let cloud = request.cloud, await request.triggers(of: Self.userClass).contains(.beforeLogin) else { return }
        let trigger = request.triggerRequest.trigger(.beforeLogin, Self.userClass, object: .object(Self.visible(user)))
        _ = try await cloud.run(trigger, requestId: request.requestId, identity: request.identity)
    }

    /// beforePasswordResetRequest (parse-server 8): may refuse to mail `user` a reset link by throwing.
    func beforePasswordResetRequest(_ user: [String: JSONValue]) async throws {
        guard let cloud = request.cloud,
              await request.triggers(of: Self.userClass).contains(.beforePasswordResetRequest) else { return }
        let trigger = request.triggerRequest.trigger(.beforePasswordResetRequest, Self.userClass,
                                                     object: .object(Self.visible(user)))
        _ = try await cloud.run(trigger, requestId: request.requestId, identity: request.identity)
    }

    /// `_User` beforeDelete: may refuse the deletion of `user` by throwing.
    func beforeDelete(_ user: [String: JSONValue]) async throws {
        guard let cloud = request.cloud, await request.triggers(of: Self.userClass).contains(.beforeDelete) else { return }
        let trigger = request.triggerRequest.trigger(.beforeDelete, Self.userClass, object: .object(Self.visible(user)))
        _ = try await cloud.run(trigger, requestId: request.requestId, identity: request.identity)
    }

    /// `_User` afterDelete, into the outbox of the deletion's transaction, with the user as it was.
    func afterDelete(_ user: [String: JSONValue], names: Set<TriggerName>, on connection: PostgresConnection) async throws {
        guard let cloud = request.cloud, names.contains(.afterDelete) else { return }
        let trigger = request.triggerRequest.trigger(.afterDelete, Self.userClass, object: .object(Self.visible(user)))
        try await cloud.enqueue(trigger, requestId: request.requestId, identity: request.identity, on: connection)
    }

    /// afterLogin, into the outbox of the login's transaction; it runs as the user who logged in.
    func afterLogin(_ user: [String: JSONValue], userId: String, names: Set<TriggerName>,
                    on connection: PostgresConnection) async throws {
        guard let cloud = request.cloud, names.contains(.afterLogin) else { return }
        let trigger = request.triggerRequest.trigger(.afterLogin, Self.userClass, object: .object(Self.visible(user)))
        try await cloud.enqueue(trigger, requestId: request.requestId, identity: Identity(userId: userId), on: connection)
    }

    /// afterLogout, into the outbox of the logout's transaction, with the ended session.
    func afterLogout(sessionId: String, userId: String?, names: Set<TriggerName>,
                     on connection: PostgresConnection) async throws {
        guard let cloud = request.cloud, names.contains(.afterLogout) else { return }
        var session: [String: JSONValue] = ["className": .string(Self.sessionClass), "objectId": .string(sessionId)]
        if let userId {
            session["user"] = .object(["__type": .string("Pointer"), "className": .string(Self.userClass), "objectId": .string(userId)])
        }
        let trigger = request.triggerRequest.trigger(.afterLogout, Self.sessionClass, object: .object(session))
        try await cloud.enqueue(trigger, requestId: request.requestId, identity: request.identity, on: connection)
    }

    /// `_User` afterSave, into the outbox of the signup's or update's transaction; nil when none is registered.
    func afterSave() async -> UserAfterSave? {
        guard let cloud = request.cloud, await request.triggers(of: Self.userClass).contains(.afterSave) else { return nil }
        return UserAfterSave(cloud: cloud, request: request)
    }

    static func visible(_ user: [String: JSONValue]) -> [String: JSONValue] {
        var user = user.filter { !withheld.contains($0.key) }
        user["className"] = .string(userClass)
        return user
    }
}

/// A registered `_User` afterSave, queued with the write that saves the user.
struct UserAfterSave: Sendable {
    let cloud: CloudTriggers
    let request: AuthRequest

    func enqueue(_ user: [String: JSONValue], original: [String: JSONValue]?, on connection: PostgresConnection) async throws {
        let trigger = request.triggerRequest.trigger(.afterSave, UserTriggers.userClass, object: .object(UserTriggers.visible(user)),
                                                     original: original.map { .object(UserTriggers.visible($0)) })
        try await cloud.enqueue(trigger, requestId: request.requestId, identity: request.identity, on: connection)
    }

    /// The user as a signup stores it.
    static func created(_ changes: UserChanges, id: String, username: String, at date: Date) -> [String: JSONValue] {
        var user = changes.set
        user["objectId"] = .string(id)
        user["username"] = .string(username)
        if let email = changes.email { user["email"] = .string(email) }
        user["createdAt"] = AuthResponses.date(date)
        user["updatedAt"] = AuthResponses.date(date)
        return user
    }

    /// `original` with an update's changes applied.
    static func updated(_ original: [String: JSONValue], _ changes: UserChanges, at date: Date) -> [String: JSONValue] {
        var user = original
        for name in changes.unset { user[name] = nil }
        user.merge(changes.set) { $1 }
        if let username = changes.username { user["username"] = .string(username) }
        if let email = changes.email { user["email"] = .string(email) }
        if changes.removesEmail { user["email"] = nil }
        user["updatedAt"] = AuthResponses.date(date)
        return user
    }
}
