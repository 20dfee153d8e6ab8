/// What waits for the broker's confirmation of a publish: a suspended task (`publishConfirmed` awaited) or a
/// callback run on the connection's thread (`publishConfirmed(_:settled:)`).
struct ConfirmWaiter: Sendable {
    private let settle: @Sendable (Result<Void, any Error>) -> Void

    init(_ settle: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        self.settle = settle
    }

    func resume() { settle(.success(())) }

    func resume(throwing error: any Error) { settle(.failure(error)) }
}
