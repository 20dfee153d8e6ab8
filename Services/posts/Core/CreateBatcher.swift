import Runtime
import Storage
import Synchronization

/// Creates that arrive while another create's transaction is under way wait for it and then go together, in one
/// transaction of their own: `BEGIN`, the transaction check and every `INSERT` in one round trip, the events'
/// outbox rows with `COMMIT` in a second. Under a stream of creates the database then makes one transaction and
/// one flush for several, and the service two round trips; a lone create goes at once, as it would alone.
///
/// Each create keeps its own outcome: an `INSERT` that finds the class's schema changed wrote nothing and its
/// create goes the usual way (`schemaChanged`). Anything that would abort the transaction (a duplicate value, a
/// check that refuses one create's trigger list) rolls it back, and every create of it runs again alone
/// (`runAlone`), where its own error is its own; only a commit whose outcome is unknown is every create's error.
final class CreateBatcher: Sendable {
    enum Outcome: Sendable {
        case created(ObjectWriter.Created)
        case schemaChanged
        case runAlone
        case failed(any Error)
    }

    /// One create: its `INSERT`, the check its transaction is to pass, and what follows the row in the transaction
    /// (`ObjectWriter.finish`), run with the create's own task-locals.
    struct Job: Sendable {
        var statement: PostgresStatement
        var check: TransactionCheck?
        var locals: RequestLocals
        var finish: @Sendable (PostgresConnection, PostgresRow) async throws -> ObjectWriter.Created
        var answer: CheckedContinuation<Outcome, Never>
    }

    private let queue: BatchQueue<Job>
    /// The task that writes the batches while creates keep coming, stopped with the service
    /// (`BackgroundJob.owning`) once its commands have drained.
    var tasks: OwnedTasks { queue.tasks }

    init(pool: PostgresPool) {
        queue = BatchQueue("create batches", run: { jobs in await Self.answer(jobs, pool: pool) },
                           abandon: { jobs in for job in jobs { job.answer.resume(returning: .runAlone) } })
    }

    /// How many creates wait for the batch under way.
    var waitingCount: Int { queue.waitingCount }

    func create(_ statement: PostgresStatement,
                finish: @escaping @Sendable (PostgresConnection, PostgresRow) async throws -> ObjectWriter.Created)
        async -> Outcome {
        let check = TransactionCheck.current, locals = RequestLocals()
        return await withCheckedContinuation { answer in
            queue.submit(Job(statement: statement, check: check, locals: locals, finish: finish, answer: answer))
        }
    }

    /// A create whose time is up waited in vain: it is answered alone (with its deadline's error), and does not take
    /// the batch's statements down with it. Each create's part runs with its own task-locals (`RequestLocals`).
    private static func answer(_ batch: [Job], pool: PostgresPool) async {
        let late = batch.filter { $0.locals.deadline?.hasPassed == true }
        for job in late { job.answer.resume(returning: .runAlone) }
        let due = batch.filter { $0.locals.deadline?.hasPassed != true }
        let outcomes = due.isEmpty ? [] : await run(due, pool: pool)
        for (job, outcome) in zip(due, outcomes) { job.answer.resume(returning: outcome) }
    }

    /// A check refused a create: the transaction rolls back, that create gets the refusal, the others run alone.
    private struct Refused: Error {}

    private static func run(_ jobs: [Job], pool: PostgresPool) async -> [Outcome] {
        let outcomes = Mutex([Outcome](repeating: .runAlone, count: jobs.count))
        // The batch's statements are bounded by the earliest of its creates' deadlines.
        let deadline = jobs.compactMap(\.locals.deadline).min()
        do {
            try await Deadline.$current.withValue(deadline) {
                try await pool.withConnection { connection in
                    try await connection.pipelinedTransaction { connection, opening in
                        // Each check statement once: the creates' checks all read the same generation (the trigger
                        // list's), and each judges it against its own create's decision.
                        var checks: [PostgresStatement] = []
                        let checkOf = jobs.map { job in
                            job.check.map { check in
                                if let index = checks.firstIndex(where: { $0.sql == check.statement.sql
                                    && $0.parameters == check.statement.parameters }) { return index }
                                checks.append(check.statement)
                                return checks.count - 1
                            }
                        }
                        let results = try await connection.pipeline(opening + checks + jobs.map(\.statement))
                        let verdicts = results[opening.count...].prefix(checks.count).map { $0 }
                        var refused = false
                        for (position, job) in jobs.enumerated() {
                            guard let check = job.check, let index = checkOf[position] else { continue }
                            do { try check.inspect(verdicts[index]) } catch {
                                outcomes.withLock { $0[position] = .failed(error) }
                                refused = true
                            }
                        }
                        if refused { throw Refused() }
                        let index = opening.count + checks.count
                        for (position, job) in jobs.enumerated() {
                            guard let row = results[index + position].first else {
                                outcomes.withLock { $0[position] = .schemaChanged }
                                continue
                            }
                            let created = try await job.locals.bound { try await job.finish(connection, row) }
                            outcomes.withLock { $0[position] = .created(created) }
                        }
                        return ((), [])
                    }
                }
            }
            return outcomes.withLock { $0 }
        } catch let unknown as CommitOutcomeUnknown {
            // The commit may have been applied: running a create again could make it twice.
            return jobs.map { _ in .failed(unknown) }
        } catch {
            // Rolled back, or never begun: nothing of any create was written.
            return outcomes.withLock { outcomes in
                outcomes.map { outcome in
                    if case .failed = outcome { return outcome }
                    return .runAlone
                }
            }
        }
    }
}

/// The task-locals of a create that what it writes in a batch's transaction reads: the command it answers (its
/// event's correlation and causation), its trace, its app and its deadline.
struct RequestLocals: Sendable {
    var message = MessageContext.current
    var trace = TraceContext.current
    var app = AppContext.current
    var deadline = Deadline.current

    func bound<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        try await MessageContext.$current.withValue(message) {
            try await TraceContext.$current.withValue(trace) {
                try await AppContext.$current.withValue(app) { try await body() }
            }
        }
    }
}
