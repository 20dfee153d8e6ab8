import Contracts
import ParseWire
import Storage

/// `POST /challenge` (parse-server's `handleChallenge`): identifies the user by username or email and password, or
/// by one provider's `authData`, then asks each provider named in `challengeData` for its challenge. No provider
/// here needs one (parse-server's own adapters have none either; `mfa` sends its codes without), so a valid
/// request is answered `{"challengeData": {}}`, after the same checks and errors as parse-server's.
struct ChallengeHandler: Sendable {
    let pool: PostgresPool
    let settings: AuthSettings
    let login: LoginHandler

    func challenge(_ request: AuthRequest) async throws -> RESTResponse {
        let body = try request.body()
        var user: UserRecord?
        if Self.isTruthy(body["username"]) || Self.isTruthy(body["email"]) {
            guard Self.isTruthy(body["password"]) else {
                throw ParseError(.otherCause, "You provided username or email, you need to also provide password.")
            }
            user = try await login.authenticate(request)
        }
        guard let challengeData = body["challengeData"], Self.isTruthy(challengeData) else {
            throw ParseError(.otherCause, "Nothing to challenge.")
        }
        guard challengeData.objectValue != nil || challengeData.arrayValue != nil else {
            throw ParseError(.otherCause, "challengeData should be an object.")
        }
        if let authData = body["authData"], Self.isTruthy(authData) {
            guard let providers = authData.objectValue ?? authData.arrayValue.map({ _ in [:] }) else {
                throw ParseError(.otherCause, "authData should be an object.")
            }
            if user != nil {
                throw ParseError(.otherCause,
                                 "You cannot provide username/email and authData, only use one identification method.")
            }
            if providers.values.filter({ Self.isTruthy($0["id"]) }).count > 1 {
                throw ParseError(.otherCause, "You cannot provide more than one authData provider with an id.")
            }
            try await identify(providers, isMaster: request.isMaster)
        }
        return AuthResponses.ok(["challengeData": .object([:])])
    }

    /// The one user the provider's data names, its data validated as at a login; any failure is the same
    /// "User not found.", so the answer does not tell which ids exist.
    private func identify(_ providers: [String: JSONValue], isMaster: Bool) async throws {
        let notFound = ParseError(.objectNotFound, "User not found.")
        do {
            guard let authData = try AuthData.parse(.object(providers)),
                  let (name, data) = providers.first(where: { Self.isTruthy($0.value["id"]) }) else { throw notFound }
            let found = try await UserIdentityStore(pool: pool).users(linkedTo: authData, isMaster: isMaster)
            guard found.count == 1 else { throw notFound }
            try await settings.providers.validate(AuthData(entries: [name: data]))
        } catch {
            throw notFound
        }
    }

    /// JavaScript's truthiness, which parse-server's checks use.
    private static func isTruthy(_ value: JSONValue?) -> Bool {
        switch value {
        case nil, .null?, .bool(false)?: false
        case .string(let text)?: !text.isEmpty
        case .number(let number)?: number != 0 && !number.isNaN
        default: true
        }
    }
}
