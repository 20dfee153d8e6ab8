import Contracts
import Foundation
import ParseWire

/// Tells a vote from any other update: `PUT classes/<Class>/<id>` whose body changes a vote field with an
/// `Increment` of a number or a plain number (the `votes = votes + 1` of older code). Such a body goes to `votes`;
/// when it also changes other fields, those go to `posts` afterwards as a plain update (see docs/vote-events.md).
/// Everything else goes to `posts` unchanged.
struct VoteRoute: Sendable {
    struct Plan: Sendable, Equatable {
        var vote: CastVote
        /// The rest of the body, for `posts`; nil when the body was only the vote.
        var rest: String?
    }

    var fields: Fields

    /// Which fields are vote fields: `PARSE_VOTE_FIELDS`, a comma-separated list of `field` (that field in every
    /// class) and `Class.field` (in one class). Default `votes`.
    struct Fields: Sendable, Equatable {
        var everyClass: Set<String>
        var perClass: Set<String>

        init(_ entries: [String]) {
            var everyClass = Set<String>(), perClass = Set<String>()
            for entry in entries {
                if entry.contains(".") { perClass.insert(entry) } else { everyClass.insert(entry) }
            }
            self.everyClass = everyClass
            self.perClass = perClass
        }

        func isVoteField(_ field: String, in className: String) -> Bool {
            everyClass.contains(field) || perClass.contains(className + "." + field)
        }
    }

    func plan(method: String, path: String, body: String?) -> Plan? {
        guard method == "PUT", let body else { return nil }
        return plan(method: method, path: path, fields: JSONValue.parse(body)?.objectValue)
    }

    /// `fields`: the body already parsed (nil when it is empty or not an object).
    func plan(method: String, path: String, fields body: [String: JSONValue]?) -> Plan? {
        guard method == "PUT", let object = body else { return nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "classes", !parts[1].isEmpty,
              !parts[1].hasPrefix("_"), !parts[2].isEmpty else { return nil }
        let className = String(parts[1]), objectId = String(parts[2])
        let votes = object.keys.filter { fields.isVoteField($0, in: className) }.sorted()
        // Two vote fields in one body are two counters: left to `posts` rather than split three ways.
        guard votes.count == 1, let field = votes.first, let change = object[field] else { return nil }
        let kind: CastVote.Kind, value: Double
        if let number = change.numberValue {
            kind = .set
            value = number
        } else if change["__op"]?.stringValue == "Increment", let amount = change["amount"]?.numberValue {
            kind = .increment
            value = amount
        } else {
            return nil
        }
        guard value.isFinite else { return nil }
        var rest = object
        rest[field] = nil
        return Plan(vote: CastVote(className: className, objectId: objectId, field: field, kind: kind, value: value),
                    rest: rest.isEmpty ? nil : JSONValue.object(rest).compactText)
    }
}
