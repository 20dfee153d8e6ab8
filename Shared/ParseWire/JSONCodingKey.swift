/// The keys the JSON coders make up themselves: array positions (`Index 3`, as Foundation names them) and `super`.
/// A position's name is only spelled out when asked for, which only an error does.
struct JSONCodingKey: CodingKey {
    private let name: String?
    let intValue: Int?

    var stringValue: String { name ?? "Index \(intValue ?? 0)" }

    init(stringValue: String) {
        name = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        name = nil
        self.intValue = intValue
    }

    init(index: Int) { self.init(intValue: index) }

    static let `super` = JSONCodingKey(stringValue: "super")
}
