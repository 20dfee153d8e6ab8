import Synchronization

/// A statement the transactions of the current task begin with until one of them commits with it, sent in the same
/// round trip as `BEGIN`. It is how a write claims its request id in the very transaction that applies it
/// (ServiceKit's `IdempotentRequests`): the claim and the write commit together or not at all, whatever handler
/// code runs in between, and a second claim of the same key waits on the first one's unique index entry.
public final class TransactionPreamble: Sendable {
    @TaskLocal public static var current: TransactionPreamble?

    let statement: PostgresStatement
    private let check: @Sendable (PostgresResult) throws -> Void
    private let committed = Mutex(false)
    /// Whether the transaction that began with the statement committed, when the connection was lost during its
    /// COMMIT: true or false once known, nil when it cannot be known.
    let outcomeOfLostCommit: (@Sendable () async -> Bool?)?

    /// `check` reads the statement's result and throws to roll the transaction back before its body runs.
    /// `outcomeOfLostCommit`: see the property; without it, a lost COMMIT is `CommitOutcomeUnknown`.
    public init(_ statement: PostgresStatement, check: @escaping @Sendable (PostgresResult) throws -> Void,
                outcomeOfLostCommit: (@Sendable () async -> Bool?)? = nil) {
        self.statement = statement
        self.check = check
        self.outcomeOfLostCommit = outcomeOfLostCommit
    }

    /// Whether a transaction that began with the statement has committed.
    public var hasCommitted: Bool { committed.withLock { $0 } }

    /// The preamble the next transaction of this task sends after `BEGIN`, nil when there is none any more.
    static var pending: TransactionPreamble? {
        guard let preamble = current, !preamble.hasCommitted else { return nil }
        return preamble
    }

    func inspect(_ result: PostgresResult) throws { try check(result) }

    func markCommitted() { committed.withLock { $0 = true } }
}
