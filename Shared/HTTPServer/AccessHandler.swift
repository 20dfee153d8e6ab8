import CMicroHTTPD
import Runtime

// MHD's C callbacks. They live outside any `main.swift` on purpose: top-level code there is MainActor-isolated,
// and closures nested in these callbacks would then trap when MHD's threads call them.

/// Called by MHD for each request: once when the head is parsed, once per body chunk, once when the body is
/// complete, and once again after every resume. A response may only be queued once the body is consumed;
/// queuing on the first call would make MHD close the connection, so only refusals are answered there.
let mhdAccessHandler: MHD_AccessHandlerCallback = {
    cls, connection, url, method, version, uploadData, uploadDataSize, requestPointer in
    guard let cls, let connection, let url, let method, let uploadDataSize, let requestPointer else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()

    guard let existing = requestPointer.pointee else {
        return beginRequest(core, connection, url, method, version, requestPointer)
    }
    let context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()

    if uploadDataSize.pointee > 0 {
        let chunk = UnsafeRawBufferPointer(start: uploadData, count: uploadDataSize.pointee)
        uploadDataSize.pointee = 0
        return context.receive(chunk, limit: core.configuration.maxBodyBytes) ? .YES : .NO
    }

    let closing = core.tracker.isDraining
    switch context.nextStep() {
    case .wait:
        return .YES
    case .awaitStreamedAnswer:
        context.connection.suspend()
        context.markWaitingForStreamedAnswer()
        return .YES
    case .send(let response):
        return MHDResponseWriter.queue(response, on: connection, closeConnection: closing, tracker: core.tracker)
    case .refuseTooLarge:
        return MHDResponseWriter.queue(core.configuration.payloadTooLarge, on: connection, closeConnection: closing)
    case .refuse(let response):
        return MHDResponseWriter.queue(response, on: connection, closeConnection: closing)
    case .handle(let request):
        if let response = core.responder.immediateResponse(to: request) {
            return MHDResponseWriter.queue(response, on: connection, closeConnection: closing, tracker: core.tracker)
        }
        guard core.tracker.beginWaiting(context) else {
            return MHDResponseWriter.queue(core.configuration.serviceUnavailable, on: connection,
                                           closeConnection: true)
        }
        MHD_suspend_connection(connection)
        context.markWaiting()
        let responder = core.responder
        let small = request.body.count <= core.configuration.smallRequestBytes
        core.tracker.tasks.spawn(on: small ? core.configuration.smallRequestExecutor : nil) {
            context.answer(await responder.respond(to: request))
        }
        return .YES
    }
}

/// First call for a request: only the head is known. Refusals are answered at once (MHD then closes the
/// connection, which is what a request with an untrustworthy length needs); anything else gets a context.
private func beginRequest(_ core: ServerCore, _ connection: OpaquePointer, _ url: UnsafePointer<CChar>,
                          _ method: UnsafePointer<CChar>, _ version: UnsafePointer<CChar>?,
                          _ requestPointer: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
    let record = connectionRecord(connection)
    if let record { core.connections.requestBegan(record) }
    guard core.headSizeLimit.admits(headBytes: CMHD_connection_header_size(connection),
                                    entries: Int(CMHD_connection_entry_count(connection))) else {
        return MHDResponseWriter.queue(core.configuration.headTooLarge, on: connection, closeConnection: true)
    }
    guard HeadIntegrity.isIntact(connection, method: method, url: url, version: version, target: record?.target) else {
        return MHDResponseWriter.queue(core.configuration.badRequest, on: connection, closeConnection: true)
    }
    let head = MHDRequestReader.head(of: connection, method: method, path: url)
    switch core.headPolicy.verdict(for: head.headers) {
    case .badRequest:
        return MHDResponseWriter.queue(core.configuration.badRequest, on: connection, closeConnection: true)
    case .payloadTooLarge(let declaredLength):
        // A client that sends its whole body before reading the answer would see the close reset its upload (a
        // broken pipe) instead of the 413: a body up to twice the limit is drained first, as Node drains one. One
        // that waits for `100 Continue` sends none, and is answered at once.
        guard let declaredLength, declaredLength <= 2 * core.configuration.maxBodyBytes,
              !head.headers.values("Expect").contains(where: { $0.lowercased() == "100-continue" }) else {
            return MHDResponseWriter.queue(core.configuration.payloadTooLarge, on: connection, closeConnection: true)
        }
        return attach(RequestContext(connection: ConnectionHandle(raw: connection), head: head,
                                     expectedBodyBytes: declaredLength, tracker: core.tracker,
                                     refusal: core.configuration.payloadTooLarge), core, requestPointer)
    case .accept(let declaredLength):
        if let upstream = core.configuration.upgradeUpstream, upstream.handles(head) {
            return UpgradeProxy.begin(upstream, relay: core.relay, head, on: connection)
        }
        if let streaming = core.responder as? any HTTPStreamingResponder, streaming.streamsBody(of: head) {
            return beginStreamedRequest(core, streaming, connection, head, declaredLength, requestPointer)
        }
        // The body's bytes are taken from the budget before any is read: a chunked body may grow to the limit.
        let reservation = head.headers.values("Transfer-Encoding").isEmpty ? declaredLength ?? 0
            : core.configuration.maxBodyBytes
        var reserved: BodyReservation?
        var refusal: HTTPResponse?
        if reservation > 0, let budget = core.bodyBudget {
            if budget.reserve(reservation) {
                reserved = BodyReservation(budget: budget, bytes: reservation)
            } else {
                // Answered once the body is drained, unread: clients that send their whole body before reading
                // an answer would otherwise see a broken pipe instead of the 503.
                refusal = core.configuration.bodyBudgetExceeded
            }
        }
        let context = RequestContext(connection: ConnectionHandle(raw: connection), head: head,
                                     expectedBodyBytes: declaredLength, tracker: core.tracker, reservation: reserved,
                                     refusal: refusal)
        return attach(context, core, requestPointer)
    }
}

/// Makes `context` the request's, for MHD's next calls, and counts the request as started.
private func attach(_ context: RequestContext, _ core: ServerCore,
                    _ requestPointer: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
    core.tracker.requestStarted()
    requestPointer.pointee = Unmanaged.passRetained(context).toOpaque()
    return .YES
}

/// A request whose body the responder reads as it arrives: the responder starts now, and the request counts as
/// waiting (for a clean shutdown) until it answers.
private func beginStreamedRequest(_ core: ServerCore, _ responder: any HTTPStreamingResponder,
                                  _ connection: OpaquePointer, _ head: HTTPRequest, _ declaredLength: Int?,
                                  _ requestPointer: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
    let context = RequestContext(connection: ConnectionHandle(raw: connection), head: head,
                                 expectedBodyBytes: declaredLength, tracker: core.tracker,
                                 streamPartBytes: core.configuration.streamPartBytes)
    guard let stream = context.stream, core.tracker.beginWaiting(context) else {
        return MHDResponseWriter.queue(core.configuration.serviceUnavailable, on: connection, closeConnection: true)
    }
    let attached = attach(context, core, requestPointer)
    core.tracker.tasks.spawn {
        context.answer(await responder.respond(to: head, body: stream))
    }
    return attached
}

/// Called by MHD when a request is over (answered, failed or the client left). A request still suspended is
/// never reported here (the connection is resumed first), so releasing MHD's reference is safe; the task
/// answering the request holds its own.
let mhdRequestCompleted: MHD_RequestCompletedCallback = { cls, connection, requestPointer, _ in
    if let cls, let connection, let record = connectionRecord(connection) {
        Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().connections.requestEnded(record)
    }
    guard let requestPointer, let pointer = requestPointer.pointee else { return }
    requestPointer.pointee = nil
    let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeRetainedValue()
    // A client that left mid-upload: the responder reading the body learns it was cut short.
    context.stream?.fail(.incomplete)
    context.reservation?.release()
    context.tracker.requestEnded()
}
