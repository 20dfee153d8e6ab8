/// Work another thread hands the connection thread (through `ConnectionMailbox`).
enum ConnectionOperation: Sendable {
    typealias PendingCall = RPCCallTable<CheckedContinuation<Delivery, any Error>>.Call

    case publish(OutgoingMessage)
    /// A request whose reply resumes the call; `message.correlationId` is set.
    case call(OutgoingMessage, PendingCall)
    case publishConfirmed([OutgoingMessage], ConfirmWaiter)
    case ack(tag: UInt64, generation: Int)
    case reject(tag: UInt64, generation: Int, requeue: Bool)
    case cancelConsumers(CheckedContinuation<Void, Never>)

    var isSeveralMessages: Bool {
        if case .publishConfirmed(let messages, _) = self { return messages.count > 1 }
        return false
    }

    /// Settles what never reached the broker: its waiters fail with `reason`, a fire-and-forget publish, ack or
    /// reject is dropped (the broker redelivers an unsettled message anyway).
    static func fail(_ operations: some Sequence<ConnectionOperation>, reason: MessagingError) {
        for operation in operations {
            switch operation {
            case .publishConfirmed(_, let continuation): continuation.resume(throwing: reason)
            case .call(_, let call): call.waiter.resume(throwing: reason)
            case .cancelConsumers(let continuation): continuation.resume()
            case .publish, .ack, .reject: continue
            }
        }
    }
}
