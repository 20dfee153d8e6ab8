import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime

/// Resolves session tokens by asking `auth` (`session.resolve.v1`: the token travels in the command's identity,
/// the answer is the identity with user id and `role:<name>` entries), and caches answers for
/// `PARSE_SESSION_CACHE_TTL_MS` (5000 by default, as parse-server's `cacheTTL`; 0 turns the cache off).
/// The cache is trusted only while the `session.revoked` listener is connected.
public final class AuthSessionResolver: SessionResolver {
    static let commandType = "session.resolve.v1"
    /// parse-server's tokens are `r:` and 32 hex digits; legacy ones are shorter. Anything this long is not one.
    static let maximumTokenLength = 256

    private let client: RPCClient
    private let timeout: Duration
    let cache: SessionCache
    private let listener: SessionRevocationListener

    init(client: RPCClient, configuration: GatewayConfiguration, cacheTimeToLive: Duration, logger: Logger) {
        self.client = client
        timeout = configuration.requestTimeout
        cache = SessionCache(timeToLive: cacheTimeToLive)
        listener = SessionRevocationListener(url: configuration.amqpURL, exchange: configuration.eventExchange,
                                             cache: cache, logger: logger)
    }

    static func cacheTimeToLive(_ env: Environment = Environment()) throws -> Duration {
        .milliseconds(try env.int("PARSE_SESSION_CACHE_TTL_MS", default: 5_000, in: 0...3_600_000))
    }

    func start() { if cache.isEnabled { listener.start() } }
    func stop() async { if cache.isEnabled { await listener.stop() } }

    public func identity(for sessionToken: String, requestId: String) async throws -> Identity {
        guard !sessionToken.isEmpty, sessionToken.utf8.count <= Self.maximumTokenLength else {
            throw ParseError(.invalidSessionToken, "Invalid session token")
        }
        let trusted = cache.isEnabled && listener.isConnected
        if trusted, let identity = cache.lookup(sessionToken) { return identity }
        if !trusted { cache.removeAll() }
        let started = ContinuousClock.now
        let identity: Identity = try await client.send(Self.commandType, Empty(), to: .auth, requestId: requestId,
                                                       identity: Identity(sessionToken: sessionToken), timeout: timeout)
        if trusted { cache.store(sessionToken, identity, lookupStarted: started) }
        return identity
    }

    /// After this gateway forwarded a change that may end sessions (logout, a password change, a deleted user or
    /// session), its own cache forgets the caller's sessions at once, without waiting for the event.
    func forget(_ sessionToken: String) {
        cache.evict(token: sessionToken)
    }

    /// After this gateway forwarded a write to a role (its members, its child roles, the role itself), the next
    /// request it answers resolves roles afresh, as parse-server clears its role cache in the request; other
    /// gateways follow when `role.changed` reaches them.
    func forgetRoles() {
        cache.rolesChanged()
    }
}
