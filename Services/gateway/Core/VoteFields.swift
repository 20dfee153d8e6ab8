/// Which fields are vote fields: `PARSE_VOTE_FIELDS`, a comma-separated list of `field` (that field in every
/// class) and `Class.field` (in one class). Default `votes`.
struct VoteFields: Sendable, Equatable {
    var everyClass: Set<String>
    var perClass: Set<String>

    init(_ entries: [String]) {
        var everyClass = Set<String>(), perClass = Set<String>()
        for entry in entries {
            if entry.contains(".") { perClass.insert(entry) } else { everyClass.insert(entry) }
        }
        self.everyClass = everyClass
        self.perClass = perClass
    }

    func isVoteField(_ field: String, in className: String) -> Bool {
        everyClass.contains(field) || perClass.contains(className + "." + field)
    }
}
