import ParseWire

/// Decides whether one object (in Parse's JSON form, as a REST read returns it) matches a `where`, with the
/// semantics of `WhereTranslator`'s SQL: a missing field is null, so comparisons with it fail and `$ne`/`$nin`
/// hold; an Array field equals any of its elements; pointers compare by objectId; dates as instants; values of
/// different types never compare. The clause is checked when the matcher is made: an operator it cannot evaluate
/// (see `QueryOperator.matchesInMemory`) is a 102 then, never a silent mismatch later.
public struct WhereMatcher: Sendable {
    private let clause: [String: JSONValue]
    private let plan: MatchPlan

    public init(_ clause: [String: JSONValue]) throws(ParseError) {
        var plan = MatchPlan()
        try Self.validate(clause, &plan)
        self.clause = clause
        self.plan = plan
    }

    public func matches(_ object: [String: JSONValue]) -> Bool {
        Self.matches(clause, object, plan)
    }

    /// Whether a `$regex` of the clause gave up at its limits on some object (`BoundedRegex`): it is too costly to
    /// match live, and that object was taken as not matching.
    public var exceededLimit: Bool { plan.patterns.values.contains { $0.exceededLimit } }

    // MARK: validation

    private static func validate(_ clause: [String: JSONValue], _ plan: inout MatchPlan) throws(ParseError) {
        for (key, value) in clause {
            if let combinator = QueryCombinator(rawValue: key) {
                guard let items = value.arrayValue, combinator != .nor || !items.isEmpty else {
                    if combinator == .nor { throw ParseError(.invalidQuery, "Bad $nor format - use an array of at least 1 value.") }
                    throw ParseError(.invalidQuery, "Bad \(key) format - use an array value.")
                }
                for item in items {
                    guard let sub = item.objectValue else { throw ParseError(.invalidQuery, "Bad \(key) format - use an array value.") }
                    try validate(sub, &plan)
                }
                continue
            }
            if key == "$relatedTo" { throw ParseError(.invalidQuery, "The query operator $relatedTo cannot be matched live.") }
            if key == "ACL" { throw ParseError(.invalidQuery, "Cannot query on ACL.") }
            if key.hasPrefix("$") { throw ParseError(.invalidQuery, "Unsupported query operator: \(key)") }
            let path = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard Names.isValidFieldName(path[0]),
                  path.allSatisfy({ Names.isValidFieldName($0) || !$0.isEmpty && $0.allSatisfy(\.isNumber) }) else {
                throw ParseError(.invalidKeyName, "Invalid key name: \(key)")
            }
            guard let fields = value.objectValue, fields.keys.contains(where: { $0.hasPrefix("$") }) else { continue }
            for (name, operand) in fields {
                guard let op = QueryOperator(rawValue: name) else { throw ParseError(.invalidQuery, "Unsupported query operator: \(name)") }
                guard op.matchesInMemory else {
                    throw ParseError(.invalidQuery, "The query operator \(name) cannot be matched live by this server.")
                }
                try validateOperand(op, operand, fields, &plan)
            }
        }
    }

    private static func validateOperand(_ op: QueryOperator, _ operand: JSONValue, _ fields: [String: JSONValue],
                                        _ plan: inout MatchPlan) throws(ParseError) {
        switch op {
        case .containedIn, .notContainedIn, .containsAll, .containedBy:
            guard let items = operand.arrayValue else { throw ParseError(.invalidJSON, "bad \(op.rawValue) value") }
            if op == .containedIn || op == .notContainedIn, plan.memberships[operand] == nil {
                plan.memberships[operand] = Membership(items)
            } else if op == .containedBy, plan.allowedValues[operand] == nil {
                plan.allowedValues[operand] = SameValues(items)
            }
        case .exists:
            guard operand.boolValue != nil else { throw ParseError(.invalidQuery, "bad $exists value") }
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            if operand.objectValue?["$relativeTime"] != nil {
                throw ParseError(.invalidQuery, "The query operator $relativeTime cannot be matched live by this server.")
            }
            guard !operand.isNull else { throw ParseError(.invalidQuery, "\(op.rawValue) needs a value.") }
        case .options:
            guard fields["$regex"] != nil else { throw ParseError(.invalidQuery, "$options needs $regex.") }
        case .regex:
            guard let pattern = operand.stringValue else { throw ParseError(.invalidQuery, "bad $regex value") }
            let flags = fields["$options"]
            let text = flags?.stringValue ?? ""
            guard flags == nil || flags?.stringValue != nil, text.allSatisfy({ "imxs".contains($0) }) else {
                throw ParseError(.invalidQuery, "Bad $options value for query: \(flags?.stringValue ?? flags?.compactText ?? "")")
            }
            // The pattern policy of queries: no back-references, bounded length.
            _ = try RegexPattern(pattern, options: text)
            plan.patterns[pattern + "/" + text] = try BoundedRegex(pattern, options: text)
        default: break
        }
    }
}
