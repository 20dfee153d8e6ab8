import Synchronization

/// Whether one run of a request's handling has checked its trigger list against the registrations' generation
/// stored in its service's database (`CloudTriggers.withCurrentRegistrations`). Once a check has passed, the
/// list was current when the request was already under way: what is stored later was answered after the request
/// came, so later checks pass too, and the handling is never run again for it after a trigger has run.
final class RegistrationsCheck: Sendable {
    @TaskLocal static var current: RegistrationsCheck?

    private let passed = Atomic<Bool>(false)

    var hasPassed: Bool { passed.load(ordering: .acquiring) }

    /// Throws `StaleTriggerList` when no check has passed yet and `stored` is newer than the list the request
    /// decides with (`TriggerRegistry.requireCurrent`).
    func require(_ stored: Int64?, registry: TriggerRegistry) throws(StaleTriggerList) {
        guard !hasPassed else { return }
        try registry.requireCurrent(stored)
        passed.store(true, ordering: .releasing)
    }
}
