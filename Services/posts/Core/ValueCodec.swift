import Foundation
import ParseWire
import Query
import Storage

/// Parse values to SQL parameters and columns back to Parse values, type by type (see the schema's `FieldType`).
struct ValueCodec: Sendable {
    /// For File URLs: `<serverURL>/files/<appId>/<name>`.
    var serverURL: String
    var applicationId: String

    // MARK: reading

    /// The select list for a class: every stored field as text the decoder reads.
    static func selectList(_ schema: ClassSchema, table: String = "") -> String {
        schema.selectLists.list(table: table) { buildSelectList(schema, table: table) }
    }

    private static func buildSelectList(_ schema: ClassSchema, table: String) -> String {
        let prefix = table.isEmpty ? "" : table + "."
        var columns = [
            "\(prefix)\"objectId\"",
            dateText("\(prefix)\"createdAt\"") + " AS \"createdAt\"",
            dateText("\(prefix)\"updatedAt\"") + " AS \"updatedAt\"",
            "array_to_json(\(prefix)\"_rperm\")::text AS \"_rperm\"",
            "array_to_json(\(prefix)\"_wperm\")::text AS \"_wperm\"",
        ]
        for (name, type) in schema.fields.sorted(by: { $0.key < $1.key }) where type.columnType != nil {
            let column = prefix + Names.quoted(name)
            let expression = switch type.kind {
            case .date: dateText(column)
            case .object, .array, .bytes: column + "::text"
            default: column
            }
            columns.append(expression + " AS " + Names.quoted(name))
        }
        return columns.joined(separator: ", ")
    }

    /// Exactly the wire form of Parse dates, computed by PostgreSQL.
    static func dateText(_ column: String) -> String {
        "to_char(\(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
    }

    /// One row as the Parse object clients read: null fields omitted, Relation fields as stubs.
    func object(_ row: PostgresRow, _ schema: ClassSchema) -> [String: JSONValue] {
        var object: [String: JSONValue] = [:]
        if let id = row["objectId"] { object["objectId"] = .string(id) }
        if let created = row["createdAt"] { object["createdAt"] = .string(created) }
        if let updated = row["updatedAt"] { object["updatedAt"] = .string(updated) }
        let readers = row["_rperm"].flatMap { JSONValue.parse($0)?.arrayValue?.compactMap(\.stringValue) }
        let writers = row["_wperm"].flatMap { JSONValue.parse($0)?.arrayValue?.compactMap(\.stringValue) }
        if let acl = AccessControl.acl(read: readers, write: writers) { object["ACL"] = acl }
        for (name, type) in schema.fields {
            if type.kind == .relation {
                object[name] = .object(["__type": .string("Relation"), "className": .string(type.targetClass ?? "")])
                continue
            }
            guard let text = row[name], let value = decode(text, type) else { continue }
            object[name] = value
        }
        return object
    }

    func decode(_ text: String, _ type: FieldType) -> JSONValue? {
        switch type.kind {
        case .string: return .string(text)
        case .number: return Double(text).map(JSONValue.number)
        case .boolean: return .bool(text == "t" || text == "true")
        case .date: return .object(["__type": .string("Date"), "iso": .string(text)])
        case .object, .array, .bytes: return JSONValue.parse(text)
        case .pointer:
            return .object(["__type": .string("Pointer"), "className": .string(type.targetClass ?? ""), "objectId": .string(text)])
        case .file:
            return .object(["__type": .string("File"), "name": .string(text), "url": .string("\(serverURL)/files/\(applicationId)/\(text)")])
        case .geoPoint:
            let parts = text.trimmingCharacters(in: CharacterSet(charactersIn: "()")).split(separator: ",")
            guard parts.count == 2, let longitude = Double(parts[0]), let latitude = Double(parts[1]) else { return nil }
            return .object(["__type": .string("GeoPoint"), "latitude": .number(latitude), "longitude": .number(longitude)])
        case .polygon: return GeoValue.polygon(fromSQL: text)
        case .relation, .acl: return nil
        }
    }
}
