/// Which broker node a connection tries next. It stays on a node while that works, moves on to the next one when
/// the node cannot be reached or its connection drops (the node is probably gone), and asks for a pause only
/// once every node has failed in a row, so that losing one node of a cluster costs no back-off at all.
struct BrokerNodeRotation: Sendable, Equatable {
    let count: Int
    private(set) var current = 0
    private var failuresInARow = 0

    init(count: Int) {
        precondition(count > 0, "at least one broker node")
        self.count = count
    }

    mutating func connected() {
        failuresInARow = 0
    }

    /// After a failed attempt to connect; true when every node has now failed since the last connection.
    mutating func connectFailed() -> Bool {
        failuresInARow += 1
        current = (current + 1) % count
        return failuresInARow % count == 0
    }

    /// After an established connection dropped.
    mutating func connectionLost() {
        current = (current + 1) % count
    }
}
