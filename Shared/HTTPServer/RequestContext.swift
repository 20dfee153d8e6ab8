import Synchronization

/// Everything the server keeps about one request between MHD's calls to the access handler. It is retained
/// by MHD's per-request pointer (released when MHD reports the request finished) and by the task answering it,
/// so neither side can free it under the other.
final class RequestContext: Sendable {
    /// What the access handler should do when MHD calls it with no body bytes.
    enum Step: Sendable {
        /// The request is complete and has not been answered: answer it now or start the responder.
        case handle(HTTPRequest)
        case refuseTooLarge
        /// The body was drained unread, and this is the answer (the server could not take it now).
        case refuse(HTTPResponse)
        /// The responder's answer is ready to queue.
        case send(HTTPResponse)
        /// Nothing to do yet (the responder is still working).
        case wait
        /// A streamed body is complete and its responder has not answered yet: suspend until it does.
        case awaitStreamedAnswer
    }

    private enum Phase: Sendable {
        case receiving
        case handling
        /// The connection is suspended; only this phase may resume it.
        case waiting
        case answered(HTTPResponse)
        case done
    }

    private struct State: Sendable {
        var phase = Phase.receiving
        var head: HTTPRequest
        var body: [UInt8] = []
        var bodyTooLarge = false
        var bodyBytesSeen = 0
        var declaredBodyBytes: Int?
        /// A streaming responder's answer that came before the body was complete.
        var streamedAnswer: HTTPResponse?
        /// Set when the request is refused before its body: the body is read and dropped (a client cut off
        /// mid-upload sees a broken pipe, not the answer), then this is answered.
        var refusal: HTTPResponse?
    }

    let connection: ConnectionHandle
    let tracker: RequestTracker
    /// Set when the responder takes the body as a stream (`HTTPStreamingResponder`); the body is then not kept.
    let stream: HTTPBodyStream?
    /// The body's share of the server's budget, released when MHD reports the request finished.
    let reservation: BodyReservation?
    private let state: Mutex<State>

    init(connection: ConnectionHandle, head: HTTPRequest, expectedBodyBytes: Int?, tracker: RequestTracker,
         streamPartBytes: Int? = nil, reservation: BodyReservation? = nil, refusal: HTTPResponse? = nil) {
        self.connection = connection
        self.tracker = tracker
        self.reservation = reservation
        stream = streamPartBytes.map { HTTPBodyStream(partBytes: $0, connection: connection) }
        var initial = State(head: head)
        initial.declaredBodyBytes = expectedBodyBytes
        initial.refusal = refusal
        if stream == nil, refusal == nil, let expectedBodyBytes, expectedBodyBytes > 0 {
            initial.body.reserveCapacity(expectedBodyBytes)
        }
        state = Mutex(initial)
    }

    /// Keeps a body chunk, or counts it once the body is over `limit` (MHD cannot answer before the upload is
    /// consumed, so an over-limit chunked body is drained and refused at the end). Returns false when the client
    /// has sent more than twice the limit: not worth draining, the connection should be closed.
    func receive(_ chunk: UnsafeRawBufferPointer, limit: Int) -> Bool {
        state.withLock { state in
            state.bodyBytesSeen += chunk.count
            if let stream {
                if !state.bodyTooLarge && state.bodyBytesSeen <= limit {
                    stream.append(chunk)
                } else if !state.bodyTooLarge {
                    state.bodyTooLarge = true
                    stream.fail(.tooLarge)
                }
            } else if state.refusal != nil {
                // Dropped as it comes: nothing of a refused body is kept.
            } else if !state.bodyTooLarge && state.bodyBytesSeen <= limit {
                state.body.append(contentsOf: chunk)
            } else if !state.bodyTooLarge {
                state.bodyTooLarge = true
                state.body = []
            }
            return state.bodyBytesSeen <= (limit > Int.max / 2 ? Int.max : limit * 2)
        }
    }

    func nextStep() -> Step {
        state.withLock { state in
            switch state.phase {
            case .receiving:
                if let stream, !state.bodyTooLarge {
                    // MHD may call again after a resume before the body is all in; only the end finishes it.
                    if let declared = state.declaredBodyBytes, state.bodyBytesSeen < declared { return .wait }
                    stream.finish()
                    if let answer = state.streamedAnswer {
                        state.phase = .done
                        return .send(answer)
                    }
                    state.phase = .handling
                    return .awaitStreamedAnswer
                }
                if state.bodyTooLarge {
                    state.phase = .done
                    return .refuseTooLarge
                }
                if let refusal = state.refusal {
                    state.phase = .done
                    return .refuse(refusal)
                }
                state.phase = .handling
                var request = state.head
                request.body = state.body
                state.body = []
                return .handle(request)
            case .answered(let response):
                state.phase = .done
                return .send(response)
            case .handling, .waiting, .done:
                return .wait
            }
        }
    }

    /// Called right after `MHD_suspend_connection`; from here on a resume is legal.
    func markWaiting() {
        state.withLock { $0.phase = .waiting }
    }

    /// Hands the answer over and wakes the connection, unless it was already answered (a shutdown may answer
    /// for a responder that is too slow, and that responder's own answer then arrives here and is dropped).
    /// Resuming under the lock makes "answer once, resume once" a single step.
    @discardableResult
    func answer(_ response: HTTPResponse) -> Bool {
        let answered = state.withLock { state -> Bool in
            switch state.phase {
            case .waiting:
                state.phase = .answered(response)
                connection.resume()
                return true
            case .receiving, .handling:
                // A streaming responder answering before the body is complete: the rest of the body is dropped
                // and the answer goes out once it is in.
                guard let stream, state.streamedAnswer == nil else { return false }
                state.streamedAnswer = response
                stream.abandon()
                return true
            case .answered, .done:
                return false
            }
        }
        // A streamed request is registered as waiting for its whole life, so it always leaves the list here.
        if answered || stream != nil { tracker.endWaiting(self) }
        return answered
    }

    /// Called right after suspending for `.awaitStreamedAnswer`; an answer that came meanwhile resumes at once.
    func markWaitingForStreamedAnswer() {
        state.withLock { state in
            if let answer = state.streamedAnswer {
                state.phase = .answered(answer)
                connection.resume()
            } else {
                state.phase = .waiting
            }
        }
    }
}
