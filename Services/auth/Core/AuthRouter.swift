import Contracts
import ParseWire
import Query
import Storage

/// Dispatches the auth service's REST routes (`users`, `login`, `sessions`, `roles`, ... and
/// `classes/_User|_Session|_Role`) to their handlers.
struct AuthRouter: Sendable {
    let signup: SignupHandler
    let login: LoginHandler
    let challenges: ChallengeHandler
    let users: UserHandler
    let sessions: SessionHandler
    let roles: RoleHandler
    let account: AccountRequestsHandler
    let emails: EmailRequestsHandler
    let pages: PublicPagesHandler
    let pagesRouter: PagesRouter?
    let includes: PointerIncludes
    let aggregates: UserAggregateHandler

    init(pool: PostgresPool, settings: AuthSettings, includes: PointerIncludes) {
        self.includes = includes
        let store = SessionStore(settings: settings)
        let mailer = AccountMailer(settings: settings.email)
        signup = SignupHandler(pool: pool, settings: settings, sessions: store, mailer: mailer)
        login = LoginHandler(pool: pool, settings: settings, sessions: store)
        challenges = ChallengeHandler(pool: pool, settings: settings, login: login)
        users = UserHandler(pool: pool, settings: settings, sessions: store, mailer: mailer)
        sessions = SessionHandler(pool: pool, sessions: store)
        roles = RoleHandler(pool: pool, allowCustomObjectId: settings.allowCustomObjectId)
        account = AccountRequestsHandler(pool: pool, sessions: store)
        emails = EmailRequestsHandler(pool: pool, settings: settings, mailer: mailer)
        let links = AccountLinks(pool: pool, settings: settings, sessions: store)
        pages = PublicPagesHandler(links: links)
        pagesRouter = settings.email.pages.enableRouter ? PagesRouter(links: links, options: settings.email.pages) : nil
        aggregates = UserAggregateHandler(pool: pool)
    }

    func handle(_ request: AuthRequest) async throws -> RESTResponse {
        var segments = request.segments
        // `classes/_User/...` is `users/...`, and so on.
        if segments.first == "classes", segments.count >= 2 {
            switch segments[1] {
            case "_User": segments = ["users"] + segments.dropFirst(2)
            case "_Session": segments = ["sessions"] + segments.dropFirst(2)
            case "_Role": segments = ["roles"] + segments.dropFirst(2)
            default: break
            }
        }
        let method = request.method
        if method == "GET", let include = request.include {
            try request.limits.check(include: QueryOptions.list(.string(include), "include"), identity: request.identity)
        }
        switch (segments.first ?? "", segments.count, method) {
        case ("users", 1, "POST"):
            return try await UserTriggers(request: request).beforeSave(original: nil, objectId: nil) { try await signup.handle($0) }
        case ("users", 1, "GET"): return try await including(try await users.find(request), for: request)
        case ("users", 2, "GET") where segments[1] == "me": return try await including(try await users.me(request), for: request)
        case ("users", 2, "GET"): return try await including(try await users.get(request, id: segments[1]), for: request)
        case ("users", 2, "PUT"):
            let id = segments[1]
            let triggers = UserTriggers(request: request)
            guard await request.triggers(of: UserTriggers.userClass).contains(.beforeSave) else {
                return try await users.update(request, id: id)
            }
            // The trigger sees the stored user only when the caller may change it; the update refuses the others.
            let original = try await UserStore(pool: users.pool).find(id: id).flatMap { user in
                request.groups.canWrite(user.acl) && (request.isMaster || request.groups.userId == id)
                    ? user.json(showEmail: true) : nil
            }
            guard let original else { return try await users.update(request, id: id) }
            return try await triggers.beforeSave(original: original, objectId: id) { try await users.update($0, id: id) }
        case ("users", 2, "DELETE"): return try await users.delete(request, id: segments[1])
        case ("login", 1, "GET"), ("login", 1, "POST"): return try await login.login(request)
        case ("verifyPassword", 1, "GET"), ("verifyPassword", 1, "POST"): return try await login.verifyPassword(request)
        case ("challenge", 1, "POST"): return try await challenges.challenge(request)
        case ("logout", 1, "POST"): return try await users.logout(request)
        case ("sessions", 1, "GET"): return try await including(try await sessions.find(request), for: request)
        case ("sessions", 1, "POST"): return try await sessions.create(request)
        case ("sessions", 2, "GET") where segments[1] == "me": return try await including(try await sessions.me(request), for: request)
        case ("sessions", 2, "GET"): return try await including(try await sessions.get(request, id: segments[1]), for: request)
        case ("sessions", 2, "PUT"): return try await sessions.update(request, id: segments[1])
        case ("sessions", 2, "DELETE"): return try await sessions.delete(request, id: segments[1])
        case ("roles", 1, "POST"): return try await roles.create(request)
        case ("roles", 1, "GET"): return try await including(try await roles.query(request), for: request)
        case ("roles", 2, "GET"): return try await including(try await roles.get(request, id: segments[1]), for: request)
        case ("roles", 2, "PUT"): return try await roles.update(request, id: segments[1])
        case ("roles", 2, "DELETE"): return try await roles.delete(request, id: segments[1])
        case ("requestPasswordReset", 1, "POST"): return try await emails.requestPasswordReset(request)
        case ("verificationEmailRequest", 1, "POST"): return try await emails.verificationEmailRequest(request)
        case ("apps", _, _):
            if let pagesRouter { return try await pagesRouter.handle(request) }
            return try await pages.handle(request)
        case ("aggregate", 2, _) where segments[1] == "_User": return try await aggregates.handle(request)
        case ("loginAs", 1, "POST"): return try await account.loginAs(request)
        case ("upgradeToRevocableSession", 1, "POST"): return try await account.upgradeToRevocableSession(request)
        default:
            throw ParseError.noSuchRoute(method, "/\(request.segments.joined(separator: "/"))")
        }
    }

    /// An answer (one object, or a query's `results`) with the request's `include` expanded.
    private func including(_ response: RESTResponse, for request: AuthRequest) async throws -> RESTResponse {
        guard response.status == 200, let include = request.include, var body = JSONValue.parse(response.body)?.objectValue else {
            return response
        }
        if case .array(let results)? = body["results"] {
            let objects = results.compactMap(\.objectValue)
            guard objects.count == results.count else { return response }
            body["results"] = .array(try await includes.expand(objects, include: include, for: request).map { .object($0) })
        } else if let object = try await includes.expand([body], include: include, for: request).first {
            body = object
        }
        return RESTResponse(status: response.status, headers: response.headers, body: JSONValue.object(body).compactText)
    }
}
