import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime

/// Resolves session tokens by asking `auth` (`session.resolve.v1`: the token travels in the command's identity,
/// the answer is the identity with user id and `role:<name>` entries), and caches answers for
/// `PARSE_SESSION_CACHE_TTL_MS` (5000 by default, as parse-server's `cacheTTL`; 0 turns the cache off).
/// The cache is trusted only while the gateway's lease with `auth` runs (`SessionCacheLeaseHolder`).
public final class AuthSessionResolver: SessionResolver {
    /// parse-server's tokens are `r:` and 32 hex digits; legacy ones are shorter. Anything this long is not one.
    static let maximumTokenLength = 256

    private let client: RPCClient
    private let timeout: Duration
    let cache: SessionCache
    private let lease: SessionCacheLeaseHolder

    init(client: RPCClient, configuration: GatewayConfiguration, cacheTimeToLive: Duration, logger: Logger) {
        self.client = client
        timeout = configuration.requestTimeout
        cache = SessionCache(timeToLive: cacheTimeToLive)
        lease = SessionCacheLeaseHolder(url: configuration.amqpURL, client: client, cache: cache, logger: logger)
    }

    static func cacheTimeToLive(_ env: Environment = Environment()) throws -> Duration {
        .milliseconds(try env.int("PARSE_SESSION_CACHE_TTL_MS", default: 5_000, in: 0...3_600_000))
    }

    func start() { if cache.isEnabled { lease.start() } }
    func stop() async { if cache.isEnabled { await lease.stop() } }

    public func identity(for sessionToken: String, requestId: String) async throws -> Identity {
        guard !sessionToken.isEmpty, sessionToken.utf8.count <= Self.maximumTokenLength else {
            throw ParseError(.invalidSessionToken, "Invalid session token")
        }
        // The cache and its lease are the stack's own app's: another app's tokens are asked of its auth each time.
        let cached = cache.isEnabled && AppContext.current == nil
        if cached, let identity = cache.lookup(sessionToken) { return identity }
        let started = ContinuousClock.now
        let identity: Identity = try await client.send(ResolveSession.type, Empty(), to: .auth, requestId: requestId,
                                                       identity: Identity(sessionToken: sessionToken), timeout: timeout)
        if cached { cache.store(sessionToken, identity, lookupStarted: started) }
        return identity
    }
}
