import Synchronization

/// Whether one run of a request's handling has checked its trigger list against the registrations' generation
/// stored in its service's database (`CloudTriggers.withCurrentRegistrations`). Once a check has passed, the
/// list was current when the request was already under way: what is stored later was answered after the request
/// came, so later checks pass too, and the handling is never run again for it after a trigger has run.
///
/// It holds the generation of the list the run decides with (taken before it looks anything up), not the task:
/// the transaction check of a create may be inspected by the task that writes a batch of creates
/// (`CreateBatcher` in posts), where a list loaded since would pass for the one the create was decided with.
final class RegistrationsCheck: Sendable {
    @TaskLocal static var current: RegistrationsCheck?

    private let decidedWith: Int64
    private let passed = Atomic<Bool>(false)

    init(decidedWith: Int64) {
        self.decidedWith = decidedWith
    }

    var hasPassed: Bool { passed.load(ordering: .acquiring) }

    /// Throws `StaleTriggerList` when no check has passed yet and `stored` is newer than the list the request
    /// decides with (`TriggerRegistry.requireCurrent`).
    func require(_ stored: Int64?, registry: TriggerRegistry) throws(StaleTriggerList) {
        guard !hasPassed else { return }
        try registry.requireCurrent(stored, decidedWith: decidedWith)
        passed.store(true, ordering: .releasing)
    }
}
