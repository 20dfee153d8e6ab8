import GraphQL
import ParseWire

/// Gets and finds through the REST routes (parse-server's `objectsQueries`): pointers the selection reads are
/// included in the same request, and a find asks only for what the connection's selection reads (its edges, its
/// count, or both), with Relay's `first/after/last/before` as Parse's `skip` and `limit`.
struct ParseObjectQueries {
    let context: ParseGraphQLContext

    func get(_ className: String, id: String, selection: GraphQLSelectedFields) async throws -> GraphQLData {
        var query: [String: String] = [:]
        let include = includes(selection, className: className)
        if !include.isEmpty { query["include"] = include.joined(separator: ",") }
        let objectId = RelayIdentifiers.objectId(id, of: className)
        // The calls carry paths, not URLs: an id that is not one segment names no object.
        guard !objectId.isEmpty, !objectId.contains("/") else { throw ParseError(.objectNotFound, "Object not found.") }
        var object = try await context.backend.get("classes/\(className)/\(objectId)", query: query)
        if className == "_User", case .object(var fields) = object {
            fields["sessionToken"] = nil
            object = .object(fields)
        }
        return GraphQLData(json: object)
    }

    struct Page {
        var skip: Int?
        var limit: Int?
        var needsCountFirst = false
    }

    /// parse-server's `calculateSkipAndLimit`.
    static func page(skip skipInput: Int?, first: Int?, after: String?, last: Int?, before: String?) throws -> Page {
        var page = Page()
        if let skipInput {
            guard skipInput >= 0 else { throw ParseError(.invalidQuery, "Skip should be a positive number") }
            page.skip = skipInput
        }
        if let after {
            guard let offset = RelayIdentifiers.offset(cursor: after), offset >= 0 else {
                throw ParseError(.invalidQuery, "After is not a valid cursor")
            }
            page.skip = (page.skip ?? 0) + offset + 1
        }
        if let first {
            guard first >= 0 else { throw ParseError(.invalidQuery, "First should be a positive number") }
            page.limit = first
        }
        if let before {
            guard let offset = RelayIdentifiers.offset(cursor: before), offset >= 0 else {
                throw ParseError(.invalidQuery, "Before is not a valid cursor")
            }
            if (page.skip ?? 0) >= offset {
                page.limit = 0
            } else if page.limit == nil || (page.skip ?? 0) + (page.limit ?? 0) > offset {
                page.limit = offset - (page.skip ?? 0)
            }
        }
        if let last {
            guard last >= 0 else { throw ParseError(.invalidQuery, "Last should be a positive number") }
            if let limit = page.limit {
                if last < limit {
                    page.skip = (page.skip ?? 0) + (limit - last)
                    page.limit = last
                }
            } else if last == 0 {
                page.limit = 0
            } else {
                page.limit = last
                page.needsCountFirst = true
            }
        }
        return page
    }

    /// A `<Class>Connection`: `{"edges", "pageInfo", "count"}`, each present only when the selection reads it.
    func find(_ className: String, where constraints: [String: JSONValue], order: String?, page requested: Page,
              selection: GraphQLSelectedFields) async throws -> GraphQLData {
        // No constraint, no `where`: the services read a find without one the quickest way.
        let whereQuery = constraints.isEmpty ? [:] : ["where": JSONValue.object(constraints).compactText]
        var page = requested
        var countedFirst: Int?
        if page.needsCountFirst, let limit = page.limit {
            let counted = try await context.backend.get("classes/\(className)", query: whereQuery.merging(["limit": "0", "count": "1"]) { $1 })
            let total = counted["count"]?.numberValue.map { Int($0) } ?? 0
            countedFirst = total
            if (page.skip ?? 0) + limit < total { page.skip = total - limit }
        }
        let readsObjects = selection["edges"] != nil || selection["pageInfo"] != nil
        var query = whereQuery
        let limit = readsObjects ? (page.limit ?? 100) : 0
        query["limit"] = String(limit)
        if limit != 0 {
            if let order { query["order"] = order }
            if let skip = page.skip, skip > 0 { query["skip"] = String(skip) }
            let include = includes(selection["edges"]?["node"] ?? GraphQLSelectedFields(), className: className)
            if !include.isEmpty { query["include"] = include.joined(separator: ",") }
        }
        let pageInfo = selection["pageInfo"]
        let wantsCount = selection["count"] != nil || pageInfo?["hasPreviousPage"] != nil || pageInfo?["hasNextPage"] != nil
        if wantsCount && countedFirst == nil { query["count"] = "1" }
        let found = try await context.backend.get("classes/\(className)", query: query)
        let results = found["results"]?.arrayValue ?? []
        let total = countedFirst ?? found["count"]?.numberValue.map { Int($0) }
        let skip = page.skip ?? 0
        var members: [GraphQLObjectMember] = []
        members.append(GraphQLObjectMember("edges", .list(results.enumerated().map { index, object in
            .object([GraphQLObjectMember("cursor", .string(RelayIdentifiers.cursor(offset: skip + index))),
                     GraphQLObjectMember("node", GraphQLData(json: object))])
        })))
        members.append(GraphQLObjectMember("pageInfo", .object([
            GraphQLObjectMember("hasPreviousPage", .boolean((total ?? 0) > 0 && skip > 0)),
            GraphQLObjectMember("startCursor", .string(RelayIdentifiers.cursor(offset: skip))),
            GraphQLObjectMember("endCursor", .string(RelayIdentifiers.cursor(offset: skip + max(results.count, 1) - 1))),
            GraphQLObjectMember("hasNextPage", .boolean((total ?? 0) > skip + results.count)),
        ])))
        if let total { members.append(GraphQLObjectMember("count", .int(total))) }
        return .object(members)
    }

    /// The pointer paths the selection reads below an object of `className` (`owner`, `owner.team`), and the array
    /// fields it reads objects of.
    func includes(_ selection: GraphQLSelectedFields, className: String, prefix: String = "") -> [String] {
        guard let parseClass = context.classes[className] else { return [] }
        var paths: [String] = []
        for name in selection.names {
            guard let field = parseClass.field(name), let below = selection[name], !below.isEmpty else { continue }
            switch field.type {
            case "Pointer":
                paths.append(prefix + name)
                if let target = field.targetClass, prefix.split(separator: ".").count < 8 {
                    paths += includes(below, className: target, prefix: "\(prefix)\(name).")
                }
            case "Array":
                paths.append(prefix + name)
            default:
                break
            }
        }
        return paths
    }
}
