/// The consumer tags of one connection: `<name>.<index>` for its consumers and `<name>.replies` for direct
/// reply-to. A delivery names its consumer by tag; the lookup is a dictionary, not a tag built per delivery.
struct ConsumerTags: Sendable {
    enum Target: Equatable { case replies, consumer(Int) }

    let replies: String
    private let consumers: [String]
    private let targets: [String: Target]

    init(connectionName: String, consumers: Int) {
        replies = "\(connectionName).replies"
        self.consumers = (0..<consumers).map { "\(connectionName).\($0)" }
        var targets = [replies: Target.replies]
        for (index, tag) in self.consumers.enumerated() { targets[tag] = .consumer(index) }
        self.targets = targets
    }

    func tag(ofConsumer index: Int) -> String { consumers[index] }

    func target(_ tag: String) -> Target? { targets[tag] }
}
