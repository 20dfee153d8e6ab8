/// The counters under the "one vote per user" rule (an Instagram-style like), from `PARSE_VOTE_ONE_PER_USER`: a
/// comma-separated list of `Class` (every vote field of the class) and `Class.field` (one field). Empty by default.
public struct OncePerUserClasses: Sendable, Equatable {
    var classes: Set<String>
    var fields: Set<String>

    public init(_ entries: [String] = []) {
        var classes = Set<String>(), fields = Set<String>()
        for entry in entries where !entry.isEmpty {
            if entry.contains(".") { fields.insert(entry) } else { classes.insert(entry) }
        }
        self.classes = classes
        self.fields = fields
    }

    public func contains(className: String, field: String) -> Bool {
        classes.contains(className) || fields.contains(className + "." + field)
    }
}
