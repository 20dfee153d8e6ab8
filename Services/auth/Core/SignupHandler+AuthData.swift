import Contracts
import Foundation
import ParseWire
import Storage

extension SignupHandler {
    /// `POST /users` with `authData`, parse-server's rules: a provider id nobody has yet makes a new user (201,
    /// with a generated username when none is given); one already linked logs that user in (200, the whole user
    /// and a new session); ids of two different users are a conflict (208). Every provider is validated first.
    func signUpOrLogIn(_ request: AuthRequest, changes: UserChanges, authData: AuthData) async throws -> RESTResponse {
        let hasCredentials = changes.username != nil && changes.password != nil
        guard authData.canLogIn || hasCredentials || request.isMaster || request.identity.userId != nil else {
            throw AuthProviders.unsupported
        }
        let found = try await UserIdentityStore(pool: pool).users(linkedTo: authData, isMaster: request.isMaster)
        let callerId = request.identity.userId
        if found.count > 1 || (callerId != nil && found.first.map { $0.id != callerId } == true) {
            // parse-server validates before refusing, so the answer says nothing about a token that is not valid.
            try await settings.providers.validate(authData)
            throw UserIdentityStore.alreadyLinked
        }
        try await settings.providers.validate(authData)
        if let user = found.first { return try await logIn(user, authData: authData, request: request) }

        var authData = authData
        var changes = changes
        let factor = try settings.providers.multiFactorStep(authData, stored: [:], isMaster: request.isMaster)
        if let factor {
            authData.entries["mfa"] = factor.save
            changes.authData = authData
        }
        let generated = changes.username == nil
        let username = changes.username ?? ObjectId.make(length: 25)
        let (id, now, session) = try await create(changes, username: username, authData: authData, logger: request.logger,
                                                  afterSave: await UserTriggers(request: request).afterSave())
        var answer: [String: JSONValue] = ["objectId": .string(id), "createdAt": AuthResponses.date(now)]
        if let session { answer["sessionToken"] = .string(session.token) }
        if generated { answer["username"] = .string(username) }
        if let response = factor?.response { answer["authDataResponse"] = .object(["mfa": response]) }
        return AuthResponses.created(answer, location: "\(request.serverURL)/users/\(id)")
    }

    /// The user linked to the provider logs in; provider data that changed (a new token) is stored.
    private func logIn(_ user: UserRecord, authData: AuthData, request: AuthRequest) async throws -> RESTResponse {
        let factor = try settings.providers.loginFactor(authData, stored: user.authData)
        // A checked token is not stored; a new enrolment is.
        var sent = authData
        sent.entries["mfa"] = factor?.save
        let changed = sent.changes(from: user.authData)
        let merged = changed.applied(to: user.authData)
        let sessions = self.sessions
        let identities = UserIdentityStore(pool: pool)
        let session: SessionStore.NewSession
        do {
            session = try await pool.transaction { connection in
                if !changed.entries.isEmpty {
                    _ = try await connection.query("UPDATE users SET auth_data = $2::jsonb WHERE id = $1",
                                                   [user.id, JSONValue.object(merged).compactText])
                    try await identities.apply(changed, userId: user.id, on: connection)
                }
                return try await sessions.create(userId: user.id, action: "login", authProvider: authData.providerNames,
                                                 on: connection)
            }
        } catch {
            throw UserIdentityStore.linkError(error)
        }
        var answer = user.json(showEmail: true, sessionToken: session.token)
        if !merged.isEmpty { answer["authData"] = .object(UserRecord.clientView(merged, isMaster: request.isMaster)) }
        answer["authDataResponse"] = .object(factor?.response.map { ["mfa": $0] } ?? [:])
        return AuthResponses.json(200, .object(answer), headers: ["Location": "\(request.serverURL)/users/\(user.id)"])
    }
}
