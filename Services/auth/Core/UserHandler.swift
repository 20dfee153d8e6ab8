import Contracts
import Foundation
import ParseWire
import Query
import Storage

/// `/users/me`, `/users/<id>` (GET, PUT, DELETE), `/users` queries and `/logout`, with parse-server's
/// private-user defaults: other users' rows are visible only where their ACL allows, emails only to their owner.
struct UserHandler: Sendable {
    let pool: PostgresPool
    let settings: AuthSettings
    let sessions: SessionStore
    let mailer: AccountMailer

    private var users: UserStore { UserStore(pool: pool) }

    func me(_ request: AuthRequest) async throws -> RESTResponse {
        guard let token = request.identity.sessionToken else { throw ParseError(.invalidSessionToken, "Invalid session token") }
        // With the master key the gateway passes the token on unresolved; parse-server answers the token's user.
        var userId = request.identity.userId
        if userId == nil, token.utf8.count <= 256, let session = try await sessions.find(token: token, in: pool),
           session.expiresAt.map({ $0 >= Date() }) ?? true {
            userId = session.userId
        }
        guard let userId, let user = try await users.find(id: userId) else {
            throw ParseError(.invalidSessionToken, "Invalid session token")
        }
        return AuthResponses.ok(user.json(showEmail: true, sessionToken: token))
    }

    func get(_ request: AuthRequest, id: String) async throws -> RESTResponse {
        let groups = request.groups
        guard let user = try await users.find(id: id), groups.canRead(user.acl) else {
            throw ParseError(.objectNotFound, "Object not found.")
        }
        return AuthResponses.ok(user.json(for: groups, sessionToken: request.identity.sessionToken))
    }

    func logout(_ request: AuthRequest) async throws -> RESTResponse {
        guard let token = request.identity.sessionToken else { return AuthResponses.empty }
        let digest = SessionTokenDigest.digest(of: token)
        let sessions = self.sessions
        let triggers = UserTriggers(request: request)
        let names = await request.triggers(of: UserTriggers.sessionClass)
        _ = try await pool.transaction { connection in
            let ended = try await sessions.revoke(where: "token_digest = $1", [digest], reason: "logout", on: connection)
            for id in ended {
                try await triggers.afterLogout(sessionId: id, userId: request.identity.userId, names: names, on: connection)
            }
        }
        return AuthResponses.empty
    }

    func update(_ request: AuthRequest, id: String) async throws -> RESTResponse {
        try request.requireWritable("update")
        let groups = request.groups
        if !groups.isMaster {
            guard let caller = groups.userId else { throw ParseError(.sessionMissing, "Cannot modify user \(id).") }
            guard caller == id else { throw ParseError(.sessionMissing, "Insufficient auth.") }
        }
        var changes = try UserChanges(try request.body(), creating: false, isMaster: request.isMaster, settings: settings)
        guard let user = try await users.find(id: id), groups.canWrite(user.acl) else {
            throw ParseError(.objectNotFound, "Object not found.")
        }
        if changes.username == user.username { changes.username = nil }
        if let email = changes.email, email == user.email { changes.email = nil }
        try await users.checkUnique(username: changes.username, email: changes.email, exceptUserId: id)
        var passwordHash: String?
        var passwordHistory: [String]?
        if let password = changes.password {
            passwordHistory = try await checkPolicy(password, of: user, newUsername: changes.username)
            passwordHash = try await PasswordHasher.hash(password)
        }
        if let acl = changes.acl, !groups.isMaster { changes.acl = ACLValidator.withOwnerAccess(acl, userId: id) }
        var mergedAuthData: [String: JSONValue]?
        var authDataResponse: [String: JSONValue] = [:]
        if var authData = changes.authData {
            if let step = try settings.providers.multiFactorStep(authData, stored: user.authData, isMaster: groups.isMaster) {
                authData.entries["mfa"] = step.save
                authDataResponse["mfa"] = step.response
                changes.authData = authData
            }
            mergedAuthData = try await checkLinks(authData, of: user, changes: changes, isMaster: groups.isMaster)
        }

        let now = Date.nowMillis
        let sessions = self.sessions
        let finalChanges = changes
        let hash = passwordHash
        let renewsSession = passwordHash != nil && !groups.isMaster
        let identities = UserIdentityStore(pool: pool)
        let storedAuthData = mergedAuthData.map { $0.isEmpty ? nil : JSONValue.object($0).compactText }
        let history = passwordHistory
        // A new address is unverified until its owner follows the link mailed to it (parse-server's rule, which
        // leaves out users with providers other than `anonymous`).
        let allProviders = mergedAuthData ?? user.authData
        let verification = settings.email.verifyUserEmails && changes.email != nil
            && allProviders.keys.allSatisfy({ $0 == "anonymous" }) ? AccountMailer.newToken() : nil
        let verifyExpiresAt = verification == nil ? nil
            : settings.email.emailVerifyTokenValidityDuration.map { now.addingTimeInterval($0) }
        let stampsPassword = settings.passwordPolicy?.maxPasswordAge != nil
        let afterSave = await UserTriggers(request: request).afterSave()
        let original = user.json(showEmail: true)
        let newSession: SessionStore.NewSession?
        do {
            newSession = try await pool.transaction { connection in
                var sql = SQLParameters([id, now])
                var assignments = ["updated_at = $2"]
                if let username = finalChanges.username { assignments.append("username = \(sql.bind(username))") }
                if let email = finalChanges.email { assignments.append("email = \(sql.bind(email))") }
                if let verification {
                    assignments.append("email_verified = false, email_verify_token_digest = \(sql.bind(verification.digest)), "
                                       + "email_verify_token_expires_at = \(sql.bind(verifyExpiresAt))")
                }
                if finalChanges.removesEmail { assignments.append("email = NULL") }
                if let hash { assignments.append("password_hash = \(sql.bind(hash)), failed_login_count = 0, locked_until = NULL") }
                if hash != nil, stampsPassword { assignments.append("password_changed_at = $2") }
                if let history { assignments.append("password_history = \(sql.bindTextArray(history))") }
                if let verified = finalChanges.emailVerified, verification == nil { assignments.append("email_verified = \(sql.bind(verified))") }
                if let acl = finalChanges.acl { assignments.append("acl = \(sql.bind(acl.compactText))::jsonb") }
                if let storedAuthData { assignments.append("auth_data = \(sql.bind(storedAuthData))::jsonb") }
                var fieldsExpression = "fields"
                if !finalChanges.unset.isEmpty {
                    fieldsExpression = "(\(fieldsExpression) - \(sql.bind("{" + finalChanges.unset.joined(separator: ",") + "}"))::text[])"
                }
                if !finalChanges.set.isEmpty {
                    fieldsExpression = "(\(fieldsExpression) || \(sql.bind(JSONValue.object(finalChanges.set).compactText))::jsonb)"
                }
                if fieldsExpression != "fields" { assignments.append("fields = \(fieldsExpression)") }
                _ = try await connection.query("UPDATE users SET \(assignments.joined(separator: ", ")) WHERE id = $1", sql.values)
                if let authData = finalChanges.authData { try await identities.apply(authData, userId: id, on: connection) }
                try await afterSave?.enqueue(UserAfterSave.updated(original, finalChanges, at: now), original: original,
                                             on: connection)
                guard hash != nil else { return nil }
                // parse-server's revokeSessionOnPasswordReset: a new password ends every session of the user;
                // the caller gets a fresh one in the answer.
                try await sessions.revoke(where: "user_id = $1", [id], reason: "password-changed", on: connection)
                return renewsSession
                    ? try await sessions.create(userId: id, action: "login", authProvider: "password", on: connection)
                    : nil
            }
        } catch {
            throw UserIdentityStore.linkError(error)
        }
        if let verification, let email = finalChanges.email {
            await mailer.sendVerification(email: email, username: finalChanges.username ?? user.username,
                                          token: verification.token, logger: request.logger)
        }
        var answer: [String: JSONValue] = ["updatedAt": AuthResponses.date(now)]
        if let newSession { answer["sessionToken"] = .string(newSession.token) }
        if !authDataResponse.isEmpty { answer["authDataResponse"] = .object(authDataResponse) }
        return AuthResponses.ok(answer)
    }

    func delete(_ request: AuthRequest, id: String) async throws -> RESTResponse {
        try request.requireWritable("delete")
        let groups = request.groups
        if !groups.isMaster {
            guard let caller = groups.userId else { throw ParseError(.sessionMissing, "Insufficient auth to delete user") }
            guard caller == id else { throw ParseError(.sessionMissing, "Insufficient auth.") }
        }
        guard let user = try await users.find(id: id), groups.canWrite(user.acl) else {
            throw ParseError(.objectNotFound, "Object not found.")
        }
        let triggers = UserTriggers(request: request)
        let deleted = user.json(showEmail: true)
        try await triggers.beforeDelete(deleted)
        let names = await request.triggers(of: UserTriggers.userClass)
        let sessions = self.sessions
        let revokeSessions = settings.revokeSessionsOnUserDelete
        try await pool.transaction { connection in
            if revokeSessions {
                try await sessions.revoke(where: "user_id = $1", [id], reason: "user-deleted", on: connection)
            }
            _ = try await connection.query("DELETE FROM users WHERE id = $1", [id])
            try await triggers.afterDelete(deleted, names: names, on: connection)
        }
        return AuthResponses.empty
    }

    /// `GET /users`: rows the caller may read, as `get` shows them. A query answer never carries a session token,
    /// as in parse-server, so `keys` cannot bring one out either.
    func find(_ request: AuthRequest) async throws -> RESTResponse {
        let groups = request.groups
        let query = TableQuery(table: "users", columns: UserRecord.columns, mapping: UserFieldMapping(isMaster: groups.isMaster, foreign: request.foreign),
                               options: try TableQuery.options(request))
        let (rows, count) = try await query.run(on: pool) { translator in
            groups.readConditions(aclColumn: "t0.acl", sql: &translator.parameters)
        }
        return query.answer(rows.map { UserRecord($0).json(for: groups) }, count: count)
    }
}
