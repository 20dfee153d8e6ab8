extension Topology {
    /// Binds an already declared queue to an exchange (a command queue that also takes some events).
    public mutating func bind(_ queue: String, to exchange: String, routingKey: String) {
        bindings.append(Binding(queue: queue, exchange: exchange, routingKey: routingKey))
    }
}
