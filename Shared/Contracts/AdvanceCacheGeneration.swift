/// `cache.generation.advance.v1` (the owner of some data to each service that caches it): the data changed to its
/// generation `generation`. The service stores it in its own database (`cache_generations`) and answers once it is
/// stored; the owner answers its client only after every such service has, so any later request, whichever
/// replica serves it, reads the new generation beside its statements and refreshes a cache that is older
/// (docs/architecture.md, "Coherence").
public struct AdvanceCacheGeneration: Codable, Sendable, Equatable {
    public static let type = "cache.generation.advance.v1"
    /// Cloud Code's function, trigger and webhook registrations (owner: cloud; cached by posts, auth, files).
    public static let hooks = "hooks"

    public var cache: String
    public var generation: Int64

    public init(cache: String, generation: Int64) {
        self.cache = cache
        self.generation = generation
    }
}
