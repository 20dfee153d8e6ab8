/// HTTP header fields in the order they were received or added. Duplicates are kept (a request may carry
/// several `Cookie` or `Accept` lines); lookups ignore ASCII case as HTTP requires.
public struct HTTPHeaders: Sendable, Sequence, Equatable, ExpressibleByDictionaryLiteral {
    public typealias Element = (name: String, value: String)

    fileprivate struct Field: Sendable, Equatable {
        var name: String
        var value: String
        /// Lower-cased name, computed once so lookups do not lower-case every stored name again.
        var key: String
    }

    private var fields: [Field] = []

    public init(_ pairs: [(String, String)] = []) {
        fields.reserveCapacity(pairs.count)
        for (name, value) in pairs { add(name, value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of `name`, or nil when absent.
    public subscript(_ name: String) -> String? {
        fields.first { Self.matches($0.key, name) }?.value
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        let key = Self.key(name)
        return fields.filter { $0.key == key }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { Self.matches($0.key, name) }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value, key: Self.key(name)))
    }

    /// Replaces every value of `name` with a single one, kept at the position of the first occurrence.
    public mutating func set(_ name: String, _ value: String) {
        let replacement = Field(name: name, value: value, key: Self.key(name))
        var result: [Field] = []
        result.reserveCapacity(fields.count + 1)
        var placed = false
        for field in fields {
            if field.key != replacement.key {
                result.append(field)
            } else if !placed {
                result.append(replacement)
                placed = true
            }
        }
        if !placed { result.append(replacement) }
        fields = result
    }

    public mutating func remove(_ name: String) {
        let key = Self.key(name)
        fields.removeAll { $0.key == key }
    }

    public func makeIterator() -> Iterator {
        Iterator(base: fields.makeIterator())
    }

    public struct Iterator: IteratorProtocol {
        fileprivate var base: IndexingIterator<[Field]>
        public mutating func next() -> Element? {
            base.next().map { (name: $0.name, value: $0.value) }
        }
    }

    /// Whether a stored lower-cased `key` is `name` in any case, compared byte by byte: the lookups on a request's
    /// path name headers in mixed case, and lower-casing each of those names would allocate a string per lookup.
    private static func matches(_ key: String, _ name: String) -> Bool {
        key.utf8.count == name.utf8.count
            && key.utf8.elementsEqual(name.utf8.lazy.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 })
    }

    /// Header names are ASCII; lower-casing only ASCII letters keeps this cheap and locale-free.
    private static func key(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return name }
        return String(decoding: name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
