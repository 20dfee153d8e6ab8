/// A statement every transaction of the current task sends in the same round trip as its `BEGIN` (and, without a
/// `TransactionPreamble`, its body's first statement), whose result can refuse the transaction before it commits.
/// It is how a service checks, at no round trip of its own, that a cache it decided the request with was current
/// (ServiceKit's trigger list against `cache_generations`): a write decided with a stale copy is rolled back before
/// anything of it is committed, and its service runs it again.
public struct TransactionCheck: Sendable {
    @TaskLocal public static var current: TransactionCheck?

    public let statement: PostgresStatement
    private let check: @Sendable (PostgresResult) throws -> Void

    /// `check` reads the statement's result and throws to roll the transaction back.
    public init(_ statement: PostgresStatement, check: @escaping @Sendable (PostgresResult) throws -> Void) {
        self.statement = statement
        self.check = check
    }

    /// Throws when `result`, the statement's, refuses the transaction (a caller that sends the statement itself).
    public func inspect(_ result: PostgresResult) throws { try check(result) }
}
