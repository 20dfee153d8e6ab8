import Dispatch
import Runtime

/// A pipeline (`LibPQSession.pipeline`) run on the thread of the I/O loop its task runs on, in libpq's
/// non-blocking mode: the loop waits for the session's socket beside its own and calls it back, so the round trip
/// wakes no other thread in this process. Only the thread that holds the session (the loop's, or the connection's
/// queue for the rest of the work once the loop has ended) touches it.
final class LoopPipeline: @unchecked Sendable {  // Safe: used by one thread at a time, as above.
    private let session: LibPQSession
    private let loop: SocketLoop
    private let queue: DispatchQueue
    private let deadline: Deadline?
    private let finished: (Result<[PostgresResult], any Error>) -> Void
    private var reading: PipelineReading?
    private var watch: Int?

    init(session: LibPQSession, loop: SocketLoop, queue: DispatchQueue, deadline: Deadline?,
         finished: @escaping (Result<[PostgresResult], any Error>) -> Void) {
        self.session = session
        self.loop = loop
        self.queue = queue
        self.deadline = deadline
        self.finished = finished
    }

    /// Sends the statements; `finished` gets their results later, on the loop's thread (or the queue's).
    func start(_ statements: [PostgresStatement]) {
        do {
            if let deadline, deadline.hasPassed { throw DeadlineExceeded("the statement") }
            guard session.setNonBlocking(true) else { throw PostgresError.connectionFailure("cannot use the session") }
            watch = session.beginWatch(until: deadline)
            reading = try session.sendPipeline(statements)
            send()
        } catch {
            end(.failure(error))
        }
    }

    private func send() {
        do {
            if try session.flush() { return read() }
            loop.wait(for: session.socket, .writable) { [self] loopRuns in loopRuns ? send() : finishOnQueue() }
        } catch {
            end(.failure(error))
        }
    }

    private func read() {
        do {
            if let results = try session.readPipeline(&reading!, blocking: false) { return end(.success(results)) }
            loop.wait(for: session.socket, .readable) { [self] loopRuns in
                guard loopRuns else { return finishOnQueue() }
                if session.consumeInput() { read() } else { finishBlocking() }
            }
        } catch {
            end(.failure(error))
        }
    }

    /// The rest in blocking mode: what is left to send, then the results. After a failed read libpq has found the
    /// connection broken, and this ends at once with the error.
    private func finishBlocking() {
        do {
            _ = session.setNonBlocking(false)
            guard let results = try session.readPipeline(&reading!, blocking: true) else {
                preconditionFailure("a blocking read waits for every result")
            }
            end(.success(results))
        } catch {
            end(.failure(error))
        }
    }

    /// The loop has ended (its connection stopped for good): the connection's queue finishes the work.
    private func finishOnQueue() {
        queue.async { [self] in finishBlocking() }
    }

    private func end(_ result: Result<[PostgresResult], any Error>) {
        _ = session.setNonBlocking(false)
        session.endWatch(watch)
        finished(result.mapError { LibPQSession.deadlineError($0, deadline: deadline) })
    }
}
