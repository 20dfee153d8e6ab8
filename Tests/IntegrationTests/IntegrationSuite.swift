import Testing

/// Every test against the running stack. Serialized, because some of them stop a service or the broker.
@Suite(.serialized, .enabled(if: TestStack.isAvailable, "needs the stack started by `deploy/stack test`"))
struct IntegrationSuite {}
