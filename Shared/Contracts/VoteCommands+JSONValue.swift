import ParseWire

// The vote path's commands in their synthesized `Codable` form, coded by hand (`JSONValueRepresentable`): every
// vote sends a `CastVote`, and every round of ballots an `ApplyBallots` and its `BallotsApplied`.

extension CastVote: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        .object(["className": .string(className), "objectId": .string(objectId), "field": .string(field),
                 "kind": .string(kind.rawValue), "value": .number(value)])
    }

    public init?(jsonValue: JSONValue) {
        guard let className = jsonValue["className"]?.stringValue, let objectId = jsonValue["objectId"]?.stringValue,
              let field = jsonValue["field"]?.stringValue, let kind = jsonValue["kind"]?.stringValue.flatMap(Kind.init(rawValue:)),
              let value = jsonValue["value"]?.numberValue else { return nil }
        self.init(className: className, objectId: objectId, field: field, kind: kind, value: value)
    }
}

extension ApplyBallots: JSONValueRepresentable {
    public var jsonValue: JSONValue { .object(["groups": .array(groups.map { $0.jsonValue })]) }

    public init?(jsonValue: JSONValue) {
        guard let groups = jsonValue.items("groups", as: CounterBallots.self) else { return nil }
        self.init(groups: groups)
    }
}

extension CounterBallots: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        .object(["className": .string(className), "objectId": .string(objectId), "field": .string(field),
                 "oncePerUser": .bool(oncePerUser), "ballots": .array(ballots.map { $0.jsonValue })])
    }

    /// `oncePerUser` may be absent (senders from before it existed), as in the `Decodable` form.
    public init?(jsonValue: JSONValue) {
        guard let className = jsonValue["className"]?.stringValue, let objectId = jsonValue["objectId"]?.stringValue,
              let field = jsonValue["field"]?.stringValue, let ballots = jsonValue.items("ballots", as: BallotToApply.self)
        else { return nil }
        let oncePerUser: Bool
        switch jsonValue["oncePerUser"] {
        case nil, .null?: oncePerUser = false
        case .bool(let flag)?: oncePerUser = flag
        default: return nil
        }
        self.init(className: className, objectId: objectId, field: field, oncePerUser: oncePerUser, ballots: ballots)
    }
}

extension BallotToApply: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        .object(["ballotId": .string(ballotId), "kind": .string(kind.rawValue), "value": .number(value),
                 "voter": voter.jsonValue])
    }

    public init?(jsonValue: JSONValue) {
        guard let ballotId = jsonValue["ballotId"]?.stringValue,
              let kind = jsonValue["kind"]?.stringValue.flatMap(CastVote.Kind.init(rawValue:)),
              let value = jsonValue["value"]?.numberValue,
              let voter = jsonValue["voter"].flatMap(Identity.init(jsonValue:)) else { return nil }
        self.init(ballotId: ballotId, kind: kind, value: value, voter: voter)
    }
}

extension BallotsApplied: JSONValueRepresentable {
    public var jsonValue: JSONValue { .object(["outcomes": .array(outcomes.map { $0.jsonValue })]) }

    public init?(jsonValue: JSONValue) {
        guard let outcomes = jsonValue.items("outcomes", as: BallotResult.self) else { return nil }
        self.init(outcomes: outcomes)
    }
}

extension BallotResult: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = ["ballotId": .string(ballotId)]
        if let error { fields["error"] = error.jsonValue }
        if let amount { fields["amount"] = .number(amount) }
        if let total { fields["total"] = .number(total) }
        if let sequence { fields["sequence"] = .number(Double(sequence)) }
        if let updatedAt { fields["updatedAt"] = .string(updatedAt) }
        return .object(fields)
    }

    public init?(jsonValue: JSONValue) {
        guard let ballotId = jsonValue["ballotId"]?.stringValue,
              case .some(let updatedAt) = jsonValue.optionalString("updatedAt") else { return nil }
        var error: ParseError?
        if let member = jsonValue["error"], member != .null {
            guard let parsed = ParseError(jsonValue: member) else { return nil }
            error = parsed
        }
        guard case .some(let amount) = jsonValue.optionalNumber("amount"),
              case .some(let total) = jsonValue.optionalNumber("total"),
              case .some(let sequence) = jsonValue.optionalNumber("sequence") else { return nil }
        var whole: Int?
        if let sequence {
            guard let exact = Int(exactly: sequence) else { return nil }
            whole = exact
        }
        self.init(ballotId: ballotId, error: error, amount: amount, total: total, sequence: whole, updatedAt: updatedAt)
    }
}
