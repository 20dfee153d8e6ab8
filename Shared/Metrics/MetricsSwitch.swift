import Synchronization

/// `PARSE_METRICS=0` for the whole process: every counter, gauge and histogram then ignores its updates (one
/// relaxed load each), so switching metrics off costs the hot paths nothing but that load.
public enum MetricsSwitch {
    private static let state = SwitchState()

    public static var isOn: Bool { state.on.load(ordering: .relaxed) }

    public static func set(_ on: Bool) {
        state.on.store(on, ordering: .relaxed)
    }

    private final class SwitchState: Sendable {
        let on = Atomic<Bool>(true)
    }
}
