import ParseWire
import Runtime

/// Values a hostile or careless client can send, from a seeded generator, for the property tests that throw them at
/// every decoder and at the query compiler: numbers at the limits, dates beyond every calendar, strings that are
/// empty, long, or full of quoting and control characters, Parse's typed objects with every field wrong, and where
/// clauses built from every operator with any of those as operands. Fixed seeds keep each run the same.
public struct HostileJSON {
    public var generator: SplitMix64

    public init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    public static let numbers: [Double] = [
        0, -0.0, 1, -1, 0.5, 1e-308, -1e-308, .leastNonzeroMagnitude, 1e308, -1e308, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        9_007_199_254_740_992, 9_007_199_254_740_994, 9.3e18, -9.3e18, 1.8446744073709552e19, 1e15, 1e16, 2_147_483_648,
        -2_147_483_649, 4_294_967_296, 8.64e15, 8.640000000000001e15, -8.64e15, 8.64e18, 275_760, 1e10, 3.14159,
    ]

    public static let strings: [String] = [
        "", " ", "a", "null", "true", "0", "-1", "1e999999", "NaN", "Infinity", "-Infinity", "\u{0}", "a\u{0}b", "\"", "\\",
        "'", "'; DROP TABLE x; --", "%00", "$regex", "$where", "__type", "_User", "_Role", "objectId", "className",
        "😀", "e\u{301}", "\u{202E}gnp.exe", "\u{FEFF}", "\u{FFFF}", String(repeating: "a", count: 5_000),
        String(repeating: "(a+)+", count: 50) + "!", "[", "{", "0000-00-00T00:00:00.000Z", "275760-09-13T00:00:00.001Z",
        "-000001-01-01T00:00:00.000Z", "9999999-12-31T23:59:59.999Z", "2024-02-30T00:00:00.000Z", "2024-01-01T25:61:61Z",
        "in 300000000 years", "3000000000000000000000 years ago", "now", "in 1 fortnight", "in 1e400 days",
        "abc.def", "a.b.c.d.e.f.g", "..", "a-b", "1abc",
    ]

    public static let operators: [String] = [
        "$lt", "$lte", "$gt", "$gte", "$ne", "$eq", "$in", "$nin", "$all", "$exists", "$regex", "$options", "$select",
        "$dontSelect", "$inQuery", "$notInQuery", "$relatedTo", "$near", "$maxDistance", "$maxDistanceInRadians",
        "$maxDistanceInKilometers", "$maxDistanceInMiles", "$within", "$box", "$geoWithin", "$polygon", "$centerSphere",
        "$geoIntersects", "$point", "$text", "$search", "$term", "$language", "$caseSensitive", "$diacriticSensitive",
        "$relativeTime", "$containedBy", "$and", "$or", "$nor", "$foo", "$", "",
    ]

    public static let typeNames: [String] = [
        "Date", "Pointer", "Relation", "GeoPoint", "Polygon", "Bytes", "File", "Object", "Array", "Unknown", "",
    ]

    public mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &generator)] }

    public mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &generator) < percent }

    /// Any JSON value, hostile more often than not; `depth` bounds the nesting.
    public mutating func value(depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0...(depth > 3 ? 4 : 8), using: &generator) {
        case 0: return .null
        case 1: return .bool(chance(50))
        case 2: return .number(pick(Self.numbers) * (chance(50) ? 1 : -1))
        case 3: return .string(pick(Self.strings))
        case 4: return typed(depth: depth)
        case 5: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in value(depth: depth + 1) })
        case 6: return whereClause(depth: depth + 1)
        default:
            var fields: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                fields[chance(30) ? pick(Self.operators) : pick(Self.strings)] = value(depth: depth + 1)
            }
            return .object(fields)
        }
    }

    /// One of Parse's typed objects (`{"__type": ...}`), each field right or wrong at random.
    public mutating func typed(depth: Int) -> JSONValue {
        var fields: [String: JSONValue] = ["__type": .string(pick(Self.typeNames))]
        for key in ["iso", "className", "objectId", "latitude", "longitude", "coordinates", "base64", "name", "url"]
        where chance(40) {
            fields[key] = chance(50) ? value(depth: depth + 2) : .number(pick(Self.numbers))
        }
        return .object(fields)
    }

    /// A where clause over `fields` (and some fields no class has), each constraint any operator with any operand.
    public mutating func whereClause(fields: [String] = ["name", "votes", "tags", "owner", "when", "where", "meta"],
                                     depth: Int = 0) -> JSONValue {
        var clause: [String: JSONValue] = [:]
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            if depth < 3 && chance(15) {
                let combined = (0..<Int.random(in: 0...3, using: &generator)).map { _ in whereClause(fields: fields, depth: depth + 1) }
                clause[pick(["$or", "$and", "$nor"])] = chance(80) ? .array(combined) : value(depth: depth + 2)
                continue
            }
            let field = chance(80) ? pick(fields) : pick(Self.strings)
            if chance(25) {
                clause[field] = value(depth: depth + 2)
                continue
            }
            var constraint: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 1...2, using: &generator) {
                let op = pick(Self.operators)
                constraint[op] = operand(for: op, depth: depth)
            }
            clause[field] = .object(constraint)
        }
        return .object(clause)
    }

    /// An operand shaped for `op` half of the time (so the compiler goes past its first checks), anything otherwise.
    mutating func operand(for op: String, depth: Int) -> JSONValue {
        guard chance(50) else { return value(depth: depth + 2) }
        let number = JSONValue.number(pick(Self.numbers))
        switch op {
        case "$in", "$nin", "$all", "$containedBy", "$polygon":
            return .array((0..<Int.random(in: 0...3, using: &generator)).map { _ in chance(50) ? number : value(depth: depth + 2) })
        case "$relativeTime": return .string(pick(Self.strings))
        case "$lt", "$lte", "$gt", "$gte": return chance(50) ? .object(["$relativeTime": .string(pick(Self.strings))]) : typed(depth: depth)
        case "$near", "$point", "$geoIntersects":
            return .object(["__type": .string("GeoPoint"), "latitude": number, "longitude": .number(pick(Self.numbers))])
        case "$within", "$box": return .object(["$box": .array([typed(depth: depth), typed(depth: depth)])])
        case "$geoWithin", "$centerSphere":
            return .object(["$centerSphere": .array([.array([number, number]), number]),
                            "$polygon": .array([typed(depth: depth), .array([number, number])])])
        case "$text", "$search": return .object(["$search": .object(["$term": .string(pick(Self.strings)), "$language": .string(pick(Self.strings))])])
        case "$select", "$dontSelect":
            return .object(["query": .object(["className": .string(pick(["Inner", "_User", "", "bad name"])),
                                              "where": whereClause(depth: depth + 2)]),
                            "key": .string(pick(Self.strings))])
        case "$inQuery", "$notInQuery":
            return .object(["className": .string(pick(["Inner", "_User", "_Role", ""])), "where": whereClause(depth: depth + 2)])
        case "$relatedTo":
            return .object(["object": typed(depth: depth), "key": .string(pick(Self.strings))])
        case "$regex": return .string(pick(Self.strings))
        case "$options": return .string(pick(["i", "m", "x", "s", "imxs", "g", "", "ii"]))
        default: return number
        }
    }
}
