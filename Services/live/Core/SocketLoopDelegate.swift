/// What the loop thread reports; every call is made on that thread.
public protocol SocketLoopDelegate: AnyObject {
    func socketOpened(_ connection: UInt64)
    func socketReceived(_ connection: UInt64, text: String)
    func socketClosed(_ connection: UInt64)
}
