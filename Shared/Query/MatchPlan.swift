import ParseWire

/// What a `WhereMatcher` prepares once from its clause, for every object it is then asked about: the compiled
/// `$regex` patterns, and the lists of `$in`, `$nin` and `$containedBy` indexed (`Membership`, `SameValues`), so
/// that live, matching each event against each subscription, does not index them again for every object.
struct MatchPlan: Sendable {
    /// By pattern and options (`pattern/options`).
    var patterns: [String: BoundedRegex] = [:]
    /// `$in` and `$nin` lists, by the list.
    var memberships: [JSONValue: Membership] = [:]
    /// `$containedBy` lists, by the list.
    var allowedValues: [JSONValue: SameValues] = [:]

    /// `operand`'s list indexed for `$in`/`$nin` (prepared when the clause was checked).
    func membership(_ operand: JSONValue) -> Membership {
        memberships[operand] ?? Membership(operand.arrayValue ?? [])
    }

    /// `operand`'s list indexed for `$containedBy` (prepared when the clause was checked).
    func allowed(_ operand: JSONValue) -> SameValues {
        allowedValues[operand] ?? SameValues(operand.arrayValue ?? [])
    }
}
