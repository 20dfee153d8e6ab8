/// Which statement texts a session has prepared on the server. A statement is prepared on its second use: the
/// services run a handful of statements over and over (get by id, the schema check, ballots), and a prepared one
/// skips parsing and planning, which costs more than running it for a primary-key read (measured with pgbench:
/// 15k statements/s unnamed against 36k prepared for posts' get-by-id statement). Texts seen once, such as
/// queries built from a client's `where`, are not prepared, and the cache stops growing at `capacity`.
struct PreparedStatements {
    enum Decision: Equatable {
        case prepared(String)
        case prepare(String)
        case runUnnamed
    }

    static let capacity = 256
    /// Texts seen once are remembered up to this many, then forgotten all at once.
    static let sightingsCapacity = 4096

    private var names: [String: String] = [:]
    private var sightings: Set<String> = []
    private var counter = 0

    mutating func lookup(_ sql: String) -> Decision {
        if let name = names[sql] { return .prepared(name) }
        guard names.count < Self.capacity else { return .runUnnamed }
        guard sightings.contains(sql) else {
            if sightings.count >= Self.sightingsCapacity { sightings.removeAll(keepingCapacity: true) }
            sightings.insert(sql)
            return .runUnnamed
        }
        counter += 1
        return .prepare("s\(counter)")
    }

    mutating func prepared(_ sql: String, as name: String) {
        names[sql] = name
        sightings.remove(sql)
    }

    mutating func forget(_ sql: String) {
        names[sql] = nil
    }
}
