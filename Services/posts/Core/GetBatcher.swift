import Runtime
import Storage

/// Gets that arrive while other gets' statements are under way wait for them, then go together: their `SELECT`s in
/// one pipeline on one connection, one round trip and one hand-off to the connection's thread for all of them. A
/// lone get goes at once, as it would alone. A get waiting here holds no connection: the batch borrows one.
///
/// Statements sent together outside a transaction are one implicit transaction, so one failing statement fails
/// them all: each get then runs its statement alone, where its own error is its own. A batch is one snapshot taken
/// after every get of it arrived, so each still sees every write answered before it.
final class GetBatcher: Sendable {
    struct Job: Sendable {
        var statement: PostgresStatement
        var deadline: Deadline?
        var answer: CheckedContinuation<PostgresResult?, Never>
    }

    private let queue: BatchQueue<Job>
    /// The task that reads the batches, stopped with the service (`BackgroundJob.owning`).
    var tasks: OwnedTasks { queue.tasks }

    init(pool: PostgresPool) {
        queue = BatchQueue("get batches", run: { jobs in await Self.answer(jobs, pool: pool) },
                           abandon: { jobs in for job in jobs { job.answer.resume(returning: nil) } })
    }

    /// How many gets wait for the batch under way.
    var waitingCount: Int { queue.waitingCount }

    /// `statement`'s result read with the gets that came with it, or nil when it is to run alone.
    func select(_ statement: PostgresStatement) async -> PostgresResult? {
        let deadline = Deadline.current
        return await withCheckedContinuation { answer in
            queue.submit(Job(statement: statement, deadline: deadline, answer: answer))
        }
    }

    /// A get whose time is up runs alone, with its deadline's error, rather than bound the others' statements.
    private static func answer(_ batch: [Job], pool: PostgresPool) async {
        let due = batch.filter { $0.deadline?.hasPassed != true }
        for job in batch where job.deadline?.hasPassed == true { job.answer.resume(returning: nil) }
        guard !due.isEmpty else { return }
        let results = try? await Deadline.$current.withValue(due.compactMap(\.deadline).min()) {
            try await pool.withConnection { try await $0.pipeline(due.map(\.statement)) }
        }
        for (position, job) in due.enumerated() { job.answer.resume(returning: results?[position]) }
    }
}
