import ParseWire

/// The last known state of objects of subscribed classes, so a vote event (class, object, field, total) can be
/// sent as the whole object without asking posts each time. Bounded: past its capacity it forgets the oldest half.
struct ObjectCache {
    let capacity: Int
    private var objects: [String: [String: JSONValue]] = [:]
    private var order: [String] = []

    init(capacity: Int) { self.capacity = capacity }

    static func key(_ className: String, _ objectId: String) -> String { className + "/" + objectId }

    subscript(key: String) -> [String: JSONValue]? {
        get { objects[key] }
        set {
            if newValue != nil && objects[key] == nil {
                order.append(key)
                if order.count > capacity {
                    for old in order.prefix(capacity / 2) { objects[old] = nil }
                    order.removeFirst(capacity / 2)
                }
            }
            objects[key] = newValue
        }
    }
}
