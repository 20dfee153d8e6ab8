import Messaging

/// What a service's `build(configuration:bus:database:)` makes: its command handlers and its background jobs,
/// which `ServiceHost` serves and runs, and which unit tests call directly (`CommandRouter.answer`).
public struct ServiceHandlers: Sendable {
    public var router: CommandRouter
    public var jobs: [BackgroundJob]

    public init(router: CommandRouter = CommandRouter(), jobs: [BackgroundJob] = []) {
        self.router = router
        self.jobs = jobs
    }
}
