import GraphQL
import ParseWire

/// A `<Class>WhereInput` as the Parse `where` REST takes (parse-server's `transformQueryInputToParse`): operators by
/// their Parse names, `id` as `objectId` with global ids opened, `have`/`haveNot` on pointers and relations as
/// `$inQuery`/`$notInQuery` subqueries on the target class, key-value constraints on objects as dotted keys, geo
/// inputs as Parse geo points.
struct ParseWhereTranslation {
    let classes: ParseClassDirectory

    static let operators: [String: String] = [
        "equalTo": "$eq", "notEqualTo": "$ne", "lessThan": "$lt", "lessThanOrEqualTo": "$lte", "greaterThan": "$gt",
        "greaterThanOrEqualTo": "$gte", "in": "$in", "notIn": "$nin", "exists": "$exists", "inQueryKey": "$select",
        "notInQueryKey": "$dontSelect", "inQuery": "$inQuery", "notInQuery": "$notInQuery", "containedBy": "$containedBy",
        "contains": "$all", "matchesRegex": "$regex", "options": "$options", "text": "$text", "search": "$search",
        "term": "$term", "language": "$language", "caseSensitive": "$caseSensitive", "diacriticSensitive": "$diacriticSensitive",
        "nearSphere": "$nearSphere", "maxDistance": "$maxDistance", "maxDistanceInRadians": "$maxDistanceInRadians",
        "maxDistanceInMiles": "$maxDistanceInMiles", "maxDistanceInKilometers": "$maxDistanceInKilometers",
        "within": "$within", "box": "$box", "geoWithin": "$geoWithin", "polygon": "$polygon", "centerSphere": "$centerSphere",
        "geoIntersects": "$geoIntersects", "point": "$point",
    ]

    private static let combinators = ["OR": "$or", "AND": "$and", "NOR": "$nor"]

    func parseWhere(_ input: GraphQLData?, className: String) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for member in input?.objectMembers ?? [] {
            if let combinator = Self.combinators[member.key] {
                if case .list(let items) = member.value {
                    result[combinator] = .array(items.map { .object(parseWhere($0, className: className)) })
                }
                continue
            }
            constrain(&result, field: member.key, with: member.value, className: className)
        }
        return result
    }

    private func constrain(_ result: inout [String: JSONValue], field name: String, with input: GraphQLData, className: String) {
        let fieldName = name == "id" ? "objectId" : name
        guard let constraints = input.objectMembers else {
            result[fieldName] = input.json
            return
        }
        let field = classes[className]?.field(fieldName)
        if let field, field.type == "Pointer" || field.type == "Relation", let target = field.targetClass {
            result[fieldName] = .object(relationConstraint(constraints, isRelation: field.type == "Relation", target: target))
            return
        }
        var translated: [String: JSONValue] = result[fieldName]?.objectValue ?? [:]
        for constraint in constraints {
            let parseOperator = Self.operators[constraint.key] ?? constraint.key
            // `{"key": "a.b", "value": 1}` constrains the object's member: `field.a.b`.
            if let key = constraint.value["key"]?.stringValue, let value = constraint.value["value"] {
                var member = result["\(fieldName).\(key)"]?.objectValue ?? [:]
                member[parseOperator] = value.json
                result["\(fieldName).\(key)"] = .object(member)
                continue
            }
            var value = self.value(constraint.key, constraint.value, className: className)
            if fieldName == "objectId" { value = Self.openingGlobalIds(value, of: className) }
            translated[parseOperator] = value
        }
        if !translated.isEmpty { result[fieldName] = .object(translated) }
    }

    /// `have`, `haveNot` and `exists` on a pointer or relation field.
    private func relationConstraint(_ constraints: [GraphQLObjectMember], isRelation: Bool, target: String) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for constraint in constraints {
            switch constraint.key {
            case "have":
                result["$inQuery"] = .object(["where": .object(parseWhere(constraint.value, className: target)), "className": .string(target)])
            case "haveNot":
                result["$notInQuery"] = .object(["where": .object(parseWhere(constraint.value, className: target)), "className": .string(target)])
            case "exists":
                guard case .boolean(let exists) = constraint.value else { continue }
                if isRelation {
                    let anyObject = JSONValue.object(["where": .object(["objectId": .object(["$exists": .bool(true)])]),
                                                      "className": .string(target)])
                    result[exists ? "$inQuery" : "$notInQuery"] = result[exists ? "$inQuery" : "$notInQuery"] ?? anyObject
                } else {
                    result["$exists"] = .bool(exists)
                }
            default:
                result[Self.operators[constraint.key] ?? constraint.key] = constraint.value.json
            }
        }
        return result
    }

    /// An operator's value: geo inputs as Parse geo points, text search and subqueries with Parse's names.
    private func value(_ name: String, _ input: GraphQLData, className: String) -> JSONValue {
        switch name {
        case "nearSphere", "point":
            return Self.geoPoint(input)
        case "within":
            guard let box = input["box"], let bottomLeft = box["bottomLeft"], let upperRight = box["upperRight"] else { return input.json }
            return .object(["$box": .array([Self.geoPoint(bottomLeft), Self.geoPoint(upperRight)])])
        case "geoWithin":
            var result: [String: JSONValue] = [:]
            if case .list(let points)? = input["polygon"] { result["$polygon"] = .array(points.map(Self.geoPoint)) }
            if let sphere = input["centerSphere"], let center = sphere["center"], let distance = sphere["distance"] {
                result["$centerSphere"] = .array([Self.geoPoint(center), distance.json])
            }
            return .object(result)
        case "geoIntersects":
            return .object(input["point"].map { ["$point": Self.geoPoint($0)] } ?? [:])
        case "text":
            return .object(Self.renamed(input.json).objectValue ?? [:])
        case "inQueryKey", "notInQueryKey":
            guard let query = input["query"], let subclass = query["className"]?.stringValue else { return input.json }
            let whereJSON = query["where"].map { classes[subclass] != nil ? .object(parseWhere($0, className: subclass)) : $0.json }
            return .object(["query": .object(["className": .string(subclass), "where": whereJSON ?? .object([:])]),
                            "key": input["key"]?.json ?? .null])
        default:
            return input.json
        }
    }

    private static func geoPoint(_ input: GraphQLData) -> JSONValue {
        var point = input.json.objectValue ?? [:]
        point["__type"] = point["__type"] ?? .string("GeoPoint")
        return .object(point)
    }

    /// Object keys renamed to Parse's operators, at every depth (`{"search": {"term"}}` -> `{"$search": {"$term"}}`).
    private static func renamed(_ value: JSONValue) -> JSONValue {
        guard case .object(let members) = value else { return value }
        return .object(Dictionary(members.map { (operators[$0.key] ?? $0.key, renamed($0.value)) }) { first, _ in first })
    }

    /// Global ids of `className` as its object ids, in a value or a list of values.
    private static func openingGlobalIds(_ value: JSONValue, of className: String) -> JSONValue {
        switch value {
        case .string(let id): .string(RelayIdentifiers.objectId(id, of: className))
        case .array(let items): .array(items.map { openingGlobalIds($0, of: className) })
        default: value
        }
    }
}
