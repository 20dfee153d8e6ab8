import GraphQL
import ParseWire

/// A `Create<Class>FieldsInput` or `Update<Class>FieldsInput` as the Parse REST body of the write (parse-server's
/// `transformTypes`): null as a `Delete` operation, geo points and polygons as Parse's, files by name, ACL inputs as a
/// Parse ACL, pointers linked or created first, relations as `AddRelation`/`RemoveRelation` batches.
struct ParseFieldsInput {
    let classes: ParseClassDirectory
    let backend: any ParseGraphQLBackend

    func parseFields(_ input: GraphQLData?, className: String) async throws -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        let parseClass = classes[className]
        for member in input?.objectMembers ?? [] {
            let name = member.key, value = member.value
            if name == "ACL" {
                result[name] = value.isNull ? .null : Self.acl(value)
                continue
            }
            guard let field = parseClass?.field(name) else {
                result[name] = value.json
                continue
            }
            switch field.type {
            case "Relation":
                result[name] = try await relation(value, field: name, target: field.targetClass ?? "")
            case _ where value.isNull:
                result[name] = .object(["__op": .string("Delete")])
            case "GeoPoint":
                var point = value.json.objectValue ?? [:]
                point["__type"] = .string("GeoPoint")
                result[name] = .object(point)
            case "Polygon":
                let points: [GraphQLData] = if case .list(let items) = value { items } else { [] }
                result[name] = .object(["__type": .string("Polygon"), "coordinates": .array(points.map {
                    .array([$0["latitude"]?.json ?? .null, $0["longitude"]?.json ?? .null])
                })])
            case "File":
                result[name] = try Self.file(value)
            case "Pointer":
                result[name] = try await pointer(value, field: name, target: field.targetClass ?? "")
            default:
                result[name] = value.json
            }
        }
        return result
    }

    /// `{"users": [...], "roles": [...], "public": {...}}` as `{"<userId>": ..., "role:<name>": ..., "*": ...}`.
    static func acl(_ input: GraphQLData) -> JSONValue {
        var acl: [String: JSONValue] = [:]
        func rights(_ rule: GraphQLData) -> JSONValue {
            .object(["read": rule["read"]?.json ?? .bool(false), "write": rule["write"]?.json ?? .bool(false)])
        }
        if let everyone = input["public"], !everyone.isNull { acl["*"] = rights(everyone) }
        if case .list(let users)? = input["users"] {
            for rule in users {
                guard let userId = rule["userId"]?.stringValue else { continue }
                acl[RelayIdentifiers.objectId(userId, of: "_User")] = rights(rule)
            }
        }
        if case .list(let roles)? = input["roles"] {
            for rule in roles {
                guard let role = rule["roleName"]?.stringValue else { continue }
                acl["role:\(role)"] = rights(rule)
            }
        }
        return .object(acl)
    }

    static func file(_ input: GraphQLData) throws -> JSONValue {
        if let file = input["file"], let name = file["name"]?.stringValue {
            var reference: [String: JSONValue] = ["__type": .string("File"), "name": .string(name)]
            if let url = file["url"]?.stringValue { reference["url"] = .string(url) }
            return .object(reference)
        }
        throw ParseError(.fileSaveError, "Invalid file upload.")
    }

    private func pointer(_ input: GraphQLData, field: String, target: String) async throws -> JSONValue {
        let members = input.objectMembers ?? []
        guard members.count == 1 else {
            throw ParseError(.invalidPointer, "You need to provide link OR createLink on the pointer mutation of field \(field)")
        }
        if let nested = input["createAndLink"] {
            let created = try await create(nested, className: target)
            return Self.pointer(target, created)
        }
        guard let link = input["link"]?.stringValue else {
            throw ParseError(.invalidPointer, "You need to provide link OR createLink on the pointer mutation of field \(field)")
        }
        return Self.pointer(target, RelayIdentifiers.objectId(link, of: target))
    }

    private func relation(_ input: GraphQLData, field: String, target: String) async throws -> JSONValue {
        guard let members = input.objectMembers, !members.isEmpty else {
            throw ParseError(.invalidPointer, "You need to provide at least one operation on the relation mutation of field \(field)")
        }
        var operations: [JSONValue] = []
        var added: [JSONValue] = []
        if case .list(let ids)? = input["add"] {
            added += ids.compactMap(\.stringValue).map { Self.pointer(target, RelayIdentifiers.objectId($0, of: target)) }
        }
        if case .list(let nested)? = input["createAndAdd"] {
            for fields in nested { added.append(Self.pointer(target, try await create(fields, className: target))) }
        }
        if !added.isEmpty { operations.append(.object(["__op": .string("AddRelation"), "objects": .array(added)])) }
        if case .list(let ids)? = input["remove"] {
            let removed = ids.compactMap(\.stringValue).map { Self.pointer(target, RelayIdentifiers.objectId($0, of: target)) }
            operations.append(.object(["__op": .string("RemoveRelation"), "objects": .array(removed)]))
        }
        return .object(["__op": .string("Batch"), "ops": .array(operations)])
    }

    /// Creates an object of `className` from its create input; its objectId.
    private func create(_ input: GraphQLData, className: String) async throws -> String {
        let fields = try await parseFields(input, className: className)
        let created = try await backend.rest("POST", "classes/\(className)", query: [:], body: .object(fields))
        guard let objectId = created["objectId"]?.stringValue else { throw ParseError(.internalServerError, "Internal server error") }
        return objectId
    }

    static func pointer(_ className: String, _ objectId: String) -> JSONValue {
        .object(["__type": .string("Pointer"), "className": .string(className), "objectId": .string(objectId)])
    }
}
