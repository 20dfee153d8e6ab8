import Contracts
import Foundation
import ParseWire
import Runtime

/// `votes.cast.v1`: records the ballot (idempotent on the request id), has it applied, answers as parse-server
/// answers the Increment. The answer leaves only once the ballot is recorded in the ledger and applied by `posts`.
struct CastVoteHandler: Sendable {
    let batcher: BallotBatcher
    let configuration: VotesConfiguration

    func handle(_ command: Command<CastVote>) async throws -> RESTResponse {
        let vote = command.payload
        if command.identity.isReadOnlyMaster && !command.identity.isMaster {
            throw ParseError(.operationForbidden, "read-only masterKey isn't allowed to perform the update operation.")
        }
        try Self.validate(vote)
        if configuration.oncePerUser.contains(className: vote.className, field: vote.field) {
            try Self.validateLike(vote, voter: command.identity)
        }
        let ballot = Ballot(ballotId: TimeOrderedUUID.string(), requestId: command.requestId,
                            voter: command.identity, vote: vote)
        let existing: BallotLedger.Existing
        switch try await batcher.submit(ballot, recorded: false) {
        case .applied(let outcome): return try outcome.get().response(to: vote)
        case .existing(let found): existing = found
        }
        let recorded: Ballot
        switch existing {
        case .pending(let stored): recorded = stored
        case .applied(let stored, _), .rejected(let stored, _): recorded = stored
        }
        guard recorded.vote == vote, recorded.voter.userId == ballot.voter.userId else {
            throw ParseError(.duplicateRequest, "Duplicate request")
        }
        if configuration.duplicateRequests == .reject { throw ParseError(.duplicateRequest, "Duplicate request") }
        switch existing {
        case .pending(let stored): return try await apply(stored)
        case .applied(_, let applied): return applied.response(to: vote)
        case .rejected(_, let error): throw error
        }
    }

    /// A ballot the ledger has pending (a retry while it is under way, or after a crash): applied, not recorded again.
    private func apply(_ ballot: Ballot) async throws -> RESTResponse {
        guard case .applied(let outcome) = try await batcher.submit(ballot, recorded: true) else {
            throw BallotBatcher.BatchError.noOutcome
        }
        return try outcome.get().response(to: ballot.vote)
    }

    static func validate(_ vote: CastVote) throws(ParseError) {
        guard isIdentifier(vote.className) else {
            throw ParseError(.invalidClassName, "Invalid classname: \(vote.className), classnames can only have alphanumeric characters and _, and must start with an alpha character ")
        }
        guard isIdentifier(vote.field) else { throw ParseError(.invalidKeyName, "Invalid field name: \(vote.field).") }
        guard !vote.objectId.isEmpty, vote.objectId.count <= 64 else { throw ParseError(.objectNotFound, "Object not found.") }
        guard vote.value.isFinite else { throw ParseError(.invalidJSON, "Increment amount must be a number.") }
    }

    /// A like needs a user (as parse-server's `requiresAuthentication` class-level permission answers a request
    /// without one; the master key is no user either) and is +1, or -1 to take it back.
    static func validateLike(_ vote: CastVote, voter: Identity) throws(ParseError) {
        guard voter.userId != nil else {
            throw ParseError(.objectNotFound, "Permission denied, user needs to be authenticated.")
        }
        guard vote.kind == .increment, vote.value == 1 || vote.value == -1 else {
            throw ParseError(.invalidJSON, "\(vote.className).\(vote.field) takes one vote per user: an Increment of 1 to like, -1 to take the like back.")
        }
    }

    /// `^[A-Za-z][A-Za-z0-9_]*$`, as the posts service names classes and fields.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic, name.utf8.count <= 63 else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }
}
