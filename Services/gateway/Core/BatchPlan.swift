import Contracts
import ParseWire

/// Where the sub-requests of a `/batch` go. A batch whose every sub-request belongs to `posts` (object routes and
/// whatever else the route table gives posts) and holds no vote goes to posts whole, which runs it in order and,
/// with `"transaction": true`, in one PostgreSQL transaction. Any other batch is split here: each sub-request goes
/// to the owner the route table names (votes to `votes`, as a vote outside a batch does), one after the other,
/// with the caller's identity. A transaction cannot span services: such a batch is refused before anything runs.
enum BatchPlan: Sendable {
    enum Step: Sendable {
        /// A path outside the mount, a file route (bytes do not travel in JSON batches) or one no service owns.
        case unroutable(path: String)
        case vote(VoteRoute.Plan)
        case call(ServiceName, RESTRequest)
    }

    case forwardWhole
    case refuse(ParseError)
    case split([Step])

    static let nested = ParseError(.invalidJSON, "nested batch requests are not allowed")

    init(_ batch: BatchRequest, voteFields: VoteRoute.Fields, serverURL: String) {
        var steps: [Step] = []
        var owners: Set<ServiceName> = []
        var hasVote = false
        for item in batch.items {
            if item.route == "batch" {
                self = .refuse(Self.nested)
                return
            }
            // A GET sub-request carries its query in its body; as a query string it reaches every owner's reader.
            let isRead = item.method == "GET"
            let step = Self.step(method: item.method, path: item.path, route: item.route, query: isRead ? Self.query(item.body) : [:],
                                 body: isRead ? nil : item.body, voteFields: voteFields, serverURL: serverURL)
            switch step {
            case .vote: hasVote = true
            case .call(let owner, _): owners.insert(owner)
            case .unroutable: break
            }
            steps.append(step)
        }
        if !hasVote && owners.subtracting([.posts]).isEmpty {
            self = .forwardWhole
            return
        }
        if batch.transactional {
            if hasVote {
                self = .refuse(ParseError(.invalidJSON,
                    "A vote cannot be part of a transaction: votes are counted by the votes service on their own."))
                return
            }
            if owners.count > 1 {
                let names = owners.map(\.rawValue).sorted().joined(separator: " and ")
                self = .refuse(ParseError(.invalidJSON,
                    "A transaction cannot span services: this batch's requests go to \(names)."))
                return
            }
            // One request needs no transaction to be all or nothing.
            if steps.count > 1 {
                self = .refuse(ParseError(.invalidJSON,
                    "Transactions are supported for objects of classes only, not for users, sessions and roles."))
                return
            }
        }
        self = .split(steps)
    }

    /// Where one request goes: a vote to votes, anything else to the owner of its route. `route`: the path below the
    /// mount (nil outside it); `path` names the request in the error of a route nobody owns.
    static func step(method: String, path: String, route: String?, query: [String: String], body: String?,
                     voteFields: VoteRoute.Fields, serverURL: String) -> Step {
        guard let route, case .service(let owner) = GatewayRoute.destination(method: method, path: route) else {
            return .unroutable(path: path)
        }
        if let vote = VoteRoute(fields: voteFields).plan(method: method, path: route, body: body) { return .vote(vote) }
        return .call(owner, RESTRequest(method: method, path: route, query: query, body: body, serverURL: serverURL))
    }

    /// A GET body's fields as query parameters, the way the SDKs send them: strings as they are, the rest as JSON.
    static func query(_ body: String?) -> [String: String] {
        guard let fields = body.flatMap({ JSONValue.parse($0)?.objectValue }) else { return [:] }
        return fields.mapValues { value in value.stringValue ?? value.compactText }
    }
}
