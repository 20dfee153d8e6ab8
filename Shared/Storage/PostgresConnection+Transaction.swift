import Runtime

extension PostgresConnection {
    /// BEGIN ... COMMIT around `body`; ROLLBACK when it throws (then rethrows).
    /// Throws 25P02 when COMMIT turned into a rollback because a statement inside failed
    /// and `body` swallowed that error.
    /// Begins with the task's `TransactionPreamble` and `TransactionCheck` when it has them, in BEGIN's round trip.
    /// With a check but no preamble, BEGIN and the check wait for the body's first statement and go in its round
    /// trip; a transaction whose body sends nothing then costs no round trip at all.
    /// When the connection is lost during COMMIT, the preamble's `outcomeOfLostCommit` tells what happened to it.
    public func transaction<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let preamble = TransactionPreamble.pending
        let check = TransactionCheck.current
        var committed = false
        beginCommitHooks()
        defer { endCommitHooks(committed: committed) }
        let value: T
        do {
            if let preamble {
                let opening = [PostgresStatement("BEGIN"), preamble.statement] + [check?.statement].compactMap { $0 }
                let opened = try await pipeline(opening)
                try preamble.inspect(opened[1])
                if let check { try check.inspect(opened[2]) }
            } else if let check {
                deferOpening(check)
            } else {
                _ = try await query("BEGIN")
            }
            value = try await body(self)
        } catch {
            // An opening still waiting was never sent: it must not begin a transaction with the next statement.
            _ = takeDeferredOpening()
            await rollBack()
            throw error
        }
        let closing = takeCommitStatements()
        let commit: PostgresResult?
        do {
            if hasDeferredOpening {
                guard !closing.isEmpty else {
                    _ = takeDeferredOpening()
                    committed = true
                    return value
                }
                // The check decides before COMMIT leaves: BEGIN, the check and the held statements go first.
                _ = try await pipeline(closing)
                commit = try await query("COMMIT")
            } else {
                // Statements held for it (`sendWithCommit`) go in COMMIT's round trip.
                commit = try await pipeline(closing + [PostgresStatement("COMMIT")]).last
            }
        } catch let error as PostgresError where error.isConnectionFailure {
            guard let committedAfterAll = await preamble?.outcomeOfLostCommit?() else { throw CommitOutcomeUnknown(cause: error) }
            // Rolled back: nothing was applied, so the lost connection is a transient fault like any other.
            guard committedAfterAll else { throw error }
            preamble?.markCommitted()
            committed = true
            return value
        } catch {
            // A held statement failed: the transaction is aborted, and the COMMIT after it was not run.
            _ = takeDeferredOpening()
            await rollBack()
            throw error
        }
        guard commit?.commandTag == "COMMIT" else {
            throw PostgresError(sqlState: PostgresError.inFailedTransaction,
                                message: "the transaction was rolled back because a statement in it failed")
        }
        preamble?.markCommitted()
        committed = true
        return value
    }
}

extension PostgresConnection {
    /// A transaction that costs no round trip of its own: `body` gets BEGIN as statements to send with its first
    /// ones (`pipeline`), and returns its value with the statements it has not sent yet, which go out with COMMIT.
    /// ROLLBACK when `body` or the commit throws (then rethrows), as `transaction` does.
    public func pipelinedTransaction<T: Sendable>(
        _ body: @Sendable (PostgresConnection, _ opening: [PostgresStatement]) async throws -> (value: T, closing: [PostgresStatement])
    ) async throws -> T {
        var committed = false
        beginCommitHooks()
        defer { endCommitHooks(committed: committed) }
        do {
            let (value, closing) = try await body(self, [PostgresStatement("BEGIN")])
            let commit: [PostgresResult]
            do {
                commit = try await pipeline(closing + takeCommitStatements() + [PostgresStatement("COMMIT")])
            } catch let error as PostgresError where error.isConnectionFailure {
                // Whether BEGIN went with these statements or before them, the COMMIT may have reached the server.
                throw CommitOutcomeUnknown(cause: error)
            }
            guard commit.last?.commandTag == "COMMIT" else {
                throw PostgresError(sqlState: PostgresError.inFailedTransaction,
                                    message: "the transaction was rolled back because a statement in it failed")
            }
            committed = true
            return value
        } catch {
            await rollBack()
            throw error
        }
    }
}

extension PostgresConnection {
    /// Undoing is never refused for a deadline (`Deadline.current`): it is what a late transaction needs. Nothing
    /// is sent when the session is in no transaction (one never begun, or rolled back already).
    func rollBack() async {
        guard isOpen, isInTransaction else { return }
        _ = try? await Deadline.$current.withValue(nil) { try await query("ROLLBACK") }
    }
}
