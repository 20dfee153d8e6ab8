/// The keys the JSON coders make up themselves: array positions (`Index 3`, as Foundation names them) and `super`.
struct JSONCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    init(index: Int) { self.init(intValue: index) }

    static let `super` = JSONCodingKey(stringValue: "super")
}
