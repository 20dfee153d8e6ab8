import Synchronization

/// Every child of one metric (one per set of label values), created on first use and kept. Lookups go through
/// one of several locks chosen by the labels' hash, so threads counting different series rarely meet; a caller
/// on a hot path with fixed labels keeps the child it got and touches only its atomics. Label values must not
/// hold U+0001, which joins them into the lookup key.
public final class MetricFamily<Child: Sendable>: Sendable {
    public let name: String
    public let help: String
    public let labelNames: [String]
    let kind: MetricKind
    private let make: @Sendable () -> Child
    private let shards: [Shard]

    init(name: String, help: String, labelNames: [String], kind: MetricKind, make: @escaping @Sendable () -> Child) {
        self.name = name
        self.help = help
        self.labelNames = labelNames
        self.kind = kind
        self.make = make
        shards = (0..<8).map { _ in Shard() }
    }

    /// The child for these label values, in the order of `labelNames`.
    public func labels(_ values: String...) -> Child {
        labels(values)
    }

    public func labels(_ values: [String]) -> Child {
        precondition(values.count == labelNames.count, "\(name) takes labels \(labelNames), got \(values)")
        let key = Key(values.count == 1 ? values[0] : values.joined(separator: "\u{1}"))
        let shard = shards[Int(UInt(bitPattern: key.hash) % UInt(shards.count))]
        return shard.children.withLock { children in
            if let entry = children[key] { return entry.child }
            let child = make()
            children[key] = Entry(labels: values, child: child)
            return child
        }
    }

    /// The label values as one string, hashed once: it picks the shard and is the dictionary's hash too.
    private struct Key: Hashable, Sendable {
        let text: String
        let hash: Int

        init(_ text: String) {
            self.text = text
            hash = text.hashValue
        }

        static func == (left: Key, right: Key) -> Bool { left.hash == right.hash && left.text == right.text }
        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    private struct Entry: Sendable {
        let labels: [String]
        let child: Child
    }

    /// A lock and the children behind it (a class: a `Mutex` cannot be copied into an array).
    private final class Shard: Sendable {
        let children = Mutex<[Key: Entry]>([:])
    }

    /// Every child with its label values, sorted by them (stable output, easy to compare in tests).
    func children() -> [(labels: [String], child: Child)] {
        shards.flatMap { shard in shard.children.withLock { children in children.values.map { ($0.labels, $0.child) } } }
            .sorted { $0.labels.lexicographicallyPrecedes($1.labels) }
    }
}

/// The `# TYPE` of a family.
enum MetricKind: String, Sendable {
    case counter, gauge, histogram
}
