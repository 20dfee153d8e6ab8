import ParseGraphQL
import Synchronization

/// The GraphQL schema kept for each app: the stack's own, and another app's made at its first GraphQL request. Each
/// app's schema is read from its own data, so one app's classes and functions never appear in another's.
final class GraphQLEndpoints: Sendable {
    /// Apps whose schema is kept at once. Only apps the registry knows get here; past this many, every other app's
    /// schema is forgotten, and read again by its next request.
    static let capacity = 1_000

    private let stack = ParseGraphQLEndpoint()
    private let others = Mutex<[String: ParseGraphQLEndpoint]>([:])

    /// The endpoint of `app` (nil: the stack's own app).
    func endpoint(for app: String?) -> ParseGraphQLEndpoint {
        guard let app else { return stack }
        return others.withLock { endpoints in
            if let kept = endpoints[app] { return kept }
            if endpoints.count >= Self.capacity { endpoints.removeAll() }
            let made = ParseGraphQLEndpoint()
            endpoints[app] = made
            return made
        }
    }
}
