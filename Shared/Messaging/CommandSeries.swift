import Metrics
import Runtime

/// The metric series of one command type, resolved on first use and kept, so a handled command costs atomic adds
/// and no label look-up.
final class CommandSeries: Sendable {
    enum Outcome: Int, CaseIterable {
        case ok, refused, timeout, retry, deadLetter, unknownType, failed, unavailable

        var label: String {
            switch self {
            case .ok: "ok"
            case .refused: "refused"
            case .timeout: "timeout"
            case .retry: "retry"
            case .deadLetter: "dead_letter"
            case .unknownType: "unknown_type"
            case .failed: "failed"
            case .unavailable: "unavailable"
            }
        }
    }

    let type: String
    private let outcomes = Outcome.allCases.map { _ in ChildSlot<Counter>() }
    private let duration = ChildSlot<Histogram>()

    init(type: String) {
        self.type = type
    }

    /// One command of this type ended with `outcome`; its handling time counts when `started` is given.
    func count(_ outcome: Outcome, since started: ContinuousClock.Instant? = nil) {
        guard MetricsSwitch.isOn else { return }
        outcomes[outcome.rawValue].child { MessagingMetrics.commands.labels(type, outcome.label) }.increment()
        if let app = AppContext.current { MessagingMetrics.appCommands.labels(app, outcome.label).increment() }
        if let started {
            duration.child { MessagingMetrics.commandDuration.labels(type) }.observe(ContinuousClock.now - started)
        }
    }
}
