import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime

/// `include` on the user routes: pointers in users' fields to objects of posts' classes are replaced by the
/// objects, read from posts (`rest.v1`, a query by `objectId`) with the caller's identity, so posts applies its
/// ACLs and class permissions; what the caller may not read stays a pointer, as in parse-server. One query per
/// class and level; deeper paths (`child.grandchild`) ride on that query's own `include`. Pointers to `_User`
/// are read here, as `users.lookup.v1` answers (no session token), and expanded further the same way; pointers
/// to `_Role` and `_Session` are left as they are.
struct PointerIncludes: Sendable {
    /// Readable objects of `className` by object id, with `include` applied below them.
    let fetch: @Sendable (_ className: String, _ objectIds: [String], _ include: [String], _ request: AuthRequest)
        async throws -> [String: [String: JSONValue]]
    /// Readable users by object id.
    var users: @Sendable (_ objectIds: [String], _ request: AuthRequest) async throws -> [String: [String: JSONValue]]
        = { _, _ in [:] }

    /// Every path of an `include` parameter (`a,b.c`), grouped by its first field: `["a": [], "b": ["c"]]`.
    static func paths(_ include: String) -> [String: [String]] {
        var paths: [String: [String]] = [:]
        for path in include.split(separator: ",") {
            let fields = path.trimmingCharacters(in: .whitespaces).split(separator: ".").map(String.init)
            guard let first = fields.first else { continue }
            var rest = paths[first] ?? []
            if fields.count > 1 { rest.append(fields.dropFirst().joined(separator: ".")) }
            paths[first] = rest
        }
        return paths
    }

    func expand(_ objects: [[String: JSONValue]], include: String, for request: AuthRequest) async throws -> [[String: JSONValue]] {
        let paths = Self.paths(include)
        let fields = paths.keys.contains("*") ? Set(objects.flatMap(\.keys)) : Set(paths.keys)
        var expanded = objects
        for field in fields.sorted() {
            var wanted: [String: Set<String>] = [:]
            for object in objects {
                for pointer in Self.pointers(in: object[field]) { wanted[pointer.className, default: []].insert(pointer.objectId) }
            }
            for (className, ids) in wanted.sorted(by: { $0.key < $1.key }) {
                let found = className == "_User"
                    ? try await includedUsers(ids.sorted(), below: paths[field] ?? [], for: request)
                    : try await fetch(className, ids.sorted(), paths[field] ?? [], request)
                for index in expanded.indices {
                    expanded[index][field] = expanded[index][field].map { Self.replace($0, className: className, with: found) }
                }
            }
        }
        return expanded
    }

    private func includedUsers(_ ids: [String], below include: [String],
                               for request: AuthRequest) async throws -> [String: [String: JSONValue]] {
        let found = try await users(ids, request)
        guard !include.isEmpty else { return found }
        let expanded = try await expand(Array(found.values), include: include.joined(separator: ","), for: request)
        var byId: [String: [String: JSONValue]] = [:]
        for user in expanded { if let id = user["objectId"]?.stringValue { byId[id] = user } }
        return byId
    }

    private static func pointers(in value: JSONValue?) -> [(className: String, objectId: String)] {
        switch value {
        case .array(let items)?: return items.flatMap { pointers(in: $0) }
        case .object(let fields)?:
            guard fields["__type"]?.stringValue == "Pointer", let className = fields["className"]?.stringValue,
                  let objectId = fields["objectId"]?.stringValue,
                  className == "_User" || !className.hasPrefix("_") else { return [] }
            return [(className, objectId)]
        default: return []
        }
    }

    private static func replace(_ value: JSONValue, className: String, with found: [String: [String: JSONValue]]) -> JSONValue {
        switch value {
        case .array(let items):
            return .array(items.map { replace($0, className: className, with: found) })
        case .object(let fields) where fields["__type"]?.stringValue == "Pointer" && fields["className"]?.stringValue == className:
            guard let id = fields["objectId"]?.stringValue, var object = found[id] else { return value }
            object["__type"] = .string("Object")
            object["className"] = .string(className)
            return .object(object)
        default:
            return value
        }
    }
}

extension PointerIncludes {
    /// Half the gateway's request timeout (`ServiceConfiguration.requestTimeout`), so that when posts is silent
    /// auth still answers with its own error before the gateway gives up on auth.
    static func timeout(requestTimeout: Duration) -> Duration { requestTimeout / 2 }

    static func posts(_ client: RPCClient, users: UserLookupHandler, timeout: Duration) -> PointerIncludes {
        PointerIncludes(fetch: { className, objectIds, include, caller in
            var query = [
                "where": JSONValue.object(["objectId": .object(["$in": .array(objectIds.map { .string($0) })])]).compactText,
                "limit": String(objectIds.count),
            ]
            if !include.isEmpty { query["include"] = include.joined(separator: ",") }
            let request = RESTRequest(method: "GET", path: "classes/\(className)", query: query, body: nil,
                                      serverURL: caller.serverURL)
            let answer: RESTResponse
            do {
                answer = try await client.send(RESTRequest.type, request, to: .posts, requestId: caller.requestId,
                                               identity: caller.identity, timeout: timeout)
            } catch let error as MessagingError {
                // Pointers left unexpanded would look like success in another shape; the client may retry.
                throw error.parseError
            }
            let body = JSONValue.parse(answer.body)
            guard answer.status == 200, let results = body?["results"]?.arrayValue else {
                let code = body?["code"]?.numberValue.flatMap { Int(exactly: $0) } ?? ParseError.Code.internalServerError.rawValue
                throw ParseError(ParseError.Code(rawValue: code), body?["error"]?.stringValue ?? "Internal server error.")
            }
            var objects: [String: [String: JSONValue]] = [:]
            for case .object(let object) in results {
                if let id = object["objectId"]?.stringValue { objects[id] = object }
            }
            return objects
        }, users: { objectIds, caller in try await users.readable(objectIds, for: caller.identity) })
    }
}
