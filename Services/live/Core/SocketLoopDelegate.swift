/// What the loop thread reports; every call is made on that thread.
public protocol SocketLoopDelegate: AnyObject {
    /// `subprotocol`: the one the handshake agreed, nil for LiveQuery's.
    func socketOpened(_ connection: UInt64, subprotocol: String?)
    func socketReceived(_ connection: UInt64, text: String)
    func socketClosed(_ connection: UInt64)
}
