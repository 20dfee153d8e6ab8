/// The `where` operators Parse defines, named once for both readers of a query: `WhereTranslator` (SQL, for
/// stored objects) and `WhereMatcher` (in memory, for objects as they change). An operator that one of them
/// cannot serve faithfully is refused with a 102 by that reader, never guessed at.
public enum QueryOperator: String, CaseIterable, Sendable {
    case equalTo = "$eq", notEqualTo = "$ne"
    case lessThan = "$lt", lessThanOrEqualTo = "$lte", greaterThan = "$gt", greaterThanOrEqualTo = "$gte"
    case containedIn = "$in", notContainedIn = "$nin", containsAll = "$all", containedBy = "$containedBy"
    case exists = "$exists", regex = "$regex", options = "$options"
    case select = "$select", dontSelect = "$dontSelect", inQuery = "$inQuery", notInQuery = "$notInQuery"
    case nearSphere = "$nearSphere", within = "$within", geoWithin = "$geoWithin", geoIntersects = "$geoIntersects"
    case maxDistance = "$maxDistance", maxDistanceInRadians = "$maxDistanceInRadians"
    case maxDistanceInMiles = "$maxDistanceInMiles", maxDistanceInKilometers = "$maxDistanceInKilometers"
    case text = "$text", relativeTime = "$relativeTime"

    /// Whether the in-memory matcher evaluates it: operators over other classes need a database, and geo and
    /// text search are not evaluated outside it.
    public var matchesInMemory: Bool {
        switch self {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .containedIn,
             .notContainedIn, .containsAll, .containedBy, .exists, .regex, .options:
            true
        default:
            false
        }
    }
}

/// The operators that combine whole clauses.
public enum QueryCombinator: String, CaseIterable, Sendable {
    case or = "$or", and = "$and", nor = "$nor"
}
