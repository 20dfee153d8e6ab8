import Foundation
import ParseWire

extension WhereMatcher {
    static func matches(_ clause: [String: JSONValue], _ object: [String: JSONValue],
                        _ plan: MatchPlan) -> Bool {
        for (key, value) in clause {
            if let combinator = QueryCombinator(rawValue: key) {
                let items = (value.arrayValue ?? []).compactMap(\.objectValue)
                let results = items.lazy.map { matches($0, object, plan) }
                switch combinator {
                case .or: if !results.contains(true) { return false }
                case .and: if results.contains(false) { return false }
                case .nor: if results.contains(true) { return false }
                }
                continue
            }
            if let elements = elementValues(key, in: object) {
                if !matchesSome(value, elements, plan) { return false }
                continue
            }
            let field = lookUp(key, in: object)
            guard let fields = value.objectValue, fields.keys.contains(where: { $0.hasPrefix("$") }) else {
                if !equals(field, value) { return false }
                continue
            }
            for (name, operand) in fields {
                guard let op = QueryOperator(rawValue: name), satisfies(op, operand, field, fields, plan) else { return false }
            }
        }
        return true
    }

    /// For a path into the objects of an Array field (`stack.status`), the value at the rest of the path in each
    /// element; nil for any other key.
    static func elementValues(_ key: String, in object: [String: JSONValue]) -> [JSONValue?]? {
        let parts = key.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, case .array(let items)? = object[String(parts[0])],
              let first = parts[1].split(separator: ".", omittingEmptySubsequences: false).first,
              !first.allSatisfy(\.isNumber) else { return nil }
        return items.map { $0.objectValue.flatMap { lookUp(String(parts[1]), in: $0) } }
    }

    /// A constraint on the elements' values, as `WhereTranslator.arrayElementConstraint` translates it: an operator
    /// holds if some element satisfies it, a negative one if no element satisfies its positive form.
    private static func matchesSome(_ value: JSONValue, _ elements: [JSONValue?],
                                    _ plan: MatchPlan) -> Bool {
        guard let fields = value.objectValue, fields.keys.contains(where: { $0.hasPrefix("$") }) else {
            return elements.contains { equals($0, value) }
        }
        for (name, operand) in fields {
            guard let op = QueryOperator(rawValue: name) else { return false }
            let holds: Bool
            switch op {
            case .options: continue
            case .notEqualTo: holds = !elements.contains { equals($0, operand) }
            // Lists are looked up in their index (`MatchPlan`), not compared with each element in turn.
            case .containedIn, .notContainedIn:
                let membership = plan.membership(operand)
                holds = elements.contains(where: membership.contains) == (op == .containedIn)
            case .containedBy:
                let allowed = plan.allowed(operand)
                holds = elements.contains { $0?.arrayValue?.allSatisfy(allowed.containsSame) ?? false }
            case .containsAll:
                // Each element's own values are indexed, and every wanted value looked up in them: elements times
                // wanted values. Past `maximumSteps` (a message of 100,000 values against an object of 100,000
                // elements) the constraint counts as unmet rather than holding live's thread.
                let wanted = operand.arrayValue ?? []
                let (steps, overflow) = elements.count.multipliedReportingOverflow(by: wanted.count)
                guard !overflow, steps <= Self.maximumSteps else {
                    holds = false
                    break
                }
                holds = elements.contains { element in
                    guard let items = element?.arrayValue else { return false }
                    let present = SameValues(items)
                    return wanted.allSatisfy(present.containsSame)
                }
            case .exists where operand.boolValue == false: holds = !elements.contains { $0 != nil }
            default: holds = elements.contains { satisfies(op, operand, $0, fields, plan) }
            }
            if !holds { return false }
        }
        return true
    }

    /// The value at a field name or dotted path (`meta.size`, `tags.0`); nil when missing or null.
    static func lookUp(_ key: String, in object: [String: JSONValue]) -> JSONValue? {
        var current: JSONValue? = .object(object)
        for part in key.split(separator: ".", omittingEmptySubsequences: false) {
            switch current {
            case .object(let fields): current = fields[String(part)]
            case .array(let items): current = Int(part).flatMap { items.indices.contains($0) ? items[$0] : nil }
            default: return nil
            }
        }
        return current?.isNull == true ? nil : current
    }

    private static func satisfies(_ op: QueryOperator, _ operand: JSONValue, _ field: JSONValue?,
                                  _ fields: [String: JSONValue], _ plan: MatchPlan) -> Bool {
        switch op {
        case .equalTo: return equals(field, operand)
        case .notEqualTo: return !equals(field, operand)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let field, let order = compare(field, operand) else { return false }
            switch op {
            case .lessThan: return order < 0
            case .lessThanOrEqualTo: return order <= 0
            case .greaterThan: return order > 0
            default: return order >= 0
            }
        case .containedIn: return plan.membership(operand).contains(field)
        case .notContainedIn: return !plan.membership(operand).contains(field)
        case .exists: return (field != nil) == (operand.boolValue ?? false)
        case .containsAll:
            guard let items = field?.arrayValue else { return false }
            let present = SameValues(items)
            return (operand.arrayValue ?? []).allSatisfy(present.containsSame)
        case .containedBy:
            guard let items = field?.arrayValue else { return false }
            return items.allSatisfy(plan.allowed(operand).containsSame)
        case .regex:
            guard let text = field?.stringValue, let pattern = operand.stringValue,
                  let regex = plan.patterns[pattern + "/" + (fields["$options"]?.stringValue ?? "")] else { return false }
            return regex.matches(text)
        case .options: return true
        default: return false
        }
    }

    /// Equality as a query means it: null matches a missing field, an Array field matches any of its elements.
    static func equals(_ field: JSONValue?, _ value: JSONValue) -> Bool {
        guard let field else { return value.isNull }
        if value.isNull { return false }
        if same(field, value) { return true }
        if let items = field.arrayValue, value.arrayValue == nil { return items.contains { same($0, value) } }
        return false
    }

    /// Two Parse values are the same: pointers by class and objectId, dates as instants, the rest as JSON.
    static func same(_ left: JSONValue, _ right: JSONValue) -> Bool {
        if let a = pointerId(left), let b = pointerId(right) { return a == b }
        if let (a, b) = instants(left, right) { return a == b }
        return left == right
    }

    /// -1, 0 or 1 when the two values are of one orderable kind (numbers, strings, dates), else nil.
    static func compare(_ left: JSONValue, _ right: JSONValue) -> Int? {
        if let (a, b) = instants(left, right) { return a < b ? -1 : a > b ? 1 : 0 }
        switch (left, right) {
        case (.number(let a), .number(let b)): return a < b ? -1 : a > b ? 1 : 0
        case (.string(let a), .string(let b)): return a < b ? -1 : a > b ? 1 : 0
        default: return nil
        }
    }

    /// Steps one constraint may take on the elements of an Array field's objects (`matchesSome`'s `$all`).
    static let maximumSteps = 10_000_000

    static func pointerId(_ value: JSONValue) -> String? {
        guard value["__type"]?.stringValue == "Pointer" else { return nil }
        return value["objectId"]?.stringValue
    }

    /// Both values as instants when one is a Date and the other a Date or an ISO string (`createdAt` and
    /// `updatedAt` read as strings, queries name them as Dates).
    private static func instants(_ left: JSONValue, _ right: JSONValue) -> (Date, Date)? {
        let a = instant(left), b = instant(right)
        guard a != nil || b != nil else { return nil }
        guard let first = a ?? left.stringValue.flatMap(ParseDate.date(from:)),
              let second = b ?? right.stringValue.flatMap(ParseDate.date(from:)) else { return nil }
        return (first, second)
    }

    static func instant(_ value: JSONValue) -> Date? {
        guard value["__type"]?.stringValue == "Date", let iso = value["iso"]?.stringValue else { return nil }
        return ParseDate.date(from: iso)
    }
}
