import Foundation
import ParseWire

/// Values indexed for `WhereMatcher.same`, so that "is any of them the same as this one" takes constant time: a
/// `$in` of 100,000 values against an Array field of 100,000 elements compared every pair, on live's one thread.
struct SameValues: Sendable {
    private var plain: Set<JSONValue> = []
    private var pointerIds: Set<String> = []
    /// Instants of Date values and of strings that read as dates: a Date value is the same as either.
    private var instants: Set<Date> = []
    /// Instants of Date values only: a string is the same as a Date value of its instant, not as another string.
    private var dateInstants: Set<Date> = []

    init(_ values: [JSONValue]) {
        for value in values {
            plain.insert(value)
            if let id = WhereMatcher.pointerId(value) { pointerIds.insert(id) }
            if let date = WhereMatcher.instant(value) {
                instants.insert(date)
                dateInstants.insert(date)
            } else if let text = value.stringValue, let date = ParseDate.date(from: text) {
                instants.insert(date)
            }
        }
    }

    /// Whether `WhereMatcher.same(value, v)` holds for some `v` of the values: pointers by objectId, Date values
    /// by instant (with strings of the same instant), a string also with a Date value of its instant, the rest as
    /// JSON.
    func containsSame(_ value: JSONValue) -> Bool {
        if let id = WhereMatcher.pointerId(value) { return pointerIds.contains(id) }
        if let date = WhereMatcher.instant(value) { return instants.contains(date) }
        if plain.contains(value) { return true }
        guard !dateInstants.isEmpty, let text = value.stringValue, let date = ParseDate.date(from: text) else { return false }
        return dateInstants.contains(date)
    }
}

/// `$in`'s list, indexed: whether a field's value equals one of the values as a query means it (`WhereMatcher.equals`).
struct Membership: Sendable {
    private let hasNull: Bool
    private let values: SameValues
    /// The values that are not arrays: the ones an element of an Array field is compared with.
    private let scalars: SameValues

    init(_ list: [JSONValue]) {
        hasNull = list.contains(where: \.isNull)
        let values = list.filter { !$0.isNull }
        self.values = SameValues(values)
        scalars = SameValues(values.filter { $0.arrayValue == nil })
    }

    func contains(_ field: JSONValue?) -> Bool {
        guard let field else { return hasNull }
        if values.containsSame(field) { return true }
        guard let items = field.arrayValue else { return false }
        return items.contains(where: scalars.containsSame)
    }
}
