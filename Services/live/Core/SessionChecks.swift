/// Which session tokens the hub is asking `auth` about, and which wait their turn. A `role.changed` makes every
/// known session be checked again: asked all at once, thousands of subscribers would put thousands of commands in
/// auth's queue ahead of every other client's sign-in and session look-up. So at most `limit` checks run at once,
/// and a first check (a client waits for its answer) or one after a revocation (the session sees nothing private
/// meanwhile) goes ahead of the re-checks. A token asked about again while its check runs is checked once more
/// after it: that check's answer may predate the change.
struct SessionChecks {
    let limit: Int
    private(set) var running: Set<String> = []
    /// Running tokens asked about again since their check was sent.
    private var again: Set<String> = []
    /// The tokens waiting, and the order they go in: urgent ones first. A token moved to `urgent` leaves a stale
    /// entry in `later`, skipped when reached (it is no longer in `queued` then).
    private var queued: Set<String> = []
    private var urgent = TokenQueue()
    private var later = TokenQueue()

    init(limit: Int) { self.limit = max(1, limit) }

    /// How many checks wait for a free place.
    var waiting: Int { queued.count }

    /// Asks for a check of `token`: true when it is to start now, false when it waits (or runs already, and will
    /// run once more after).
    mutating func ask(_ token: String, urgent isUrgent: Bool) -> Bool {
        if running.contains(token) {
            again.insert(token)
            return false
        }
        if queued.contains(token) {
            if isUrgent { hurry(token) }
            return false
        }
        if running.count < limit {
            running.insert(token)
            return true
        }
        queued.insert(token)
        if isUrgent { urgent.append(token) } else { later.append(token) }
        return false
    }

    /// Moves a waiting check of `token` ahead of the re-checks (a client now waits for its answer).
    mutating func hurry(_ token: String) {
        if queued.contains(token) { urgent.append(token) }
    }

    /// `token`'s check answered. `stale`: it was asked about again meanwhile, so its answer may predate that
    /// change; it is in `next` then, to be checked once more. `next`: the checks to start now.
    mutating func ended(_ token: String) -> (stale: Bool, next: [String]) {
        guard running.contains(token) else { return (false, []) }
        if again.remove(token) != nil { return (true, [token]) }
        running.remove(token)
        var next: [String] = []
        while running.count < limit, let token = urgent.popFirst() ?? later.popFirst() {
            guard queued.remove(token) != nil else { continue }
            running.insert(token)
            next.append(token)
        }
        return (false, next)
    }

    /// First in, first out, each taken in constant time (`Array.removeFirst` moves every other element).
    private struct TokenQueue {
        private var tokens: [String] = []
        private var head = 0

        mutating func append(_ token: String) { tokens.append(token) }

        mutating func popFirst() -> String? {
            guard head < tokens.count else { return nil }
            let token = tokens[head]
            head += 1
            if head == tokens.count {
                tokens.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024, head * 2 >= tokens.count {
                // Fed while never emptied: drop the taken part once it is most of the array.
                tokens.removeFirst(head)
                head = 0
            }
            return token
        }
    }
}
