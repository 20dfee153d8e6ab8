/// One value of a collected metric (see `MetricsRegistry.collect`); samples with the same name form a family.
public struct Sample: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case counter, gauge
    }

    public var name: String
    public var help: String
    public var kind: Kind
    public var labels: [(name: String, value: String)]
    public var value: Double

    public init(_ name: String, help: String, kind: Kind = .gauge, labels: [(name: String, value: String)] = [],
                value: Double) {
        self.name = name
        self.help = help
        self.kind = kind
        self.labels = labels
        self.value = value
    }

    public static func == (left: Sample, right: Sample) -> Bool {
        left.name == right.name && left.kind == right.kind && left.value == right.value
            && left.labels.map(\.name) == right.labels.map(\.name) && left.labels.map(\.value) == right.labels.map(\.value)
    }
}
