import Foundation
import ParseWire

/// The geo operators, as parse-server's PostgreSQL adapter reads them. Distances on the sphere go through
/// `parse_geo_unit(point)`, the point on the unit sphere as a `cube` (the service's database creates it, with the
/// `cube` extension): a GiST index on that expression serves both the radius test (a bounding cube) and the order
/// by distance (the chord between two points grows with the angle between them, so ordering by it is exact).
extension WhereTranslator {
    static let geoOperators: Set<String> = ["$nearSphere", "$within", "$geoWithin", "$geoIntersects"]
    static let distanceLimits: [String: Double] = [
        "$maxDistance": 1, "$maxDistanceInRadians": 1,
        "$maxDistanceInMiles": GeoValue.earthRadiusMiles, "$maxDistanceInKilometers": GeoValue.earthRadiusKilometers,
    ]

    /// The SQL of one geo operator of `fields` (`op` is one of `geoOperators`).
    func geo(_ op: String, _ operand: JSONValue, _ fields: [String: JSONValue], _ column: QueryColumn) throws(ParseError) -> String {
        switch op {
        case "$nearSphere": return try nearSphere(operand, fields, column)
        case "$within": return try within(operand, column)
        case "$geoWithin": return try geoWithin(operand, column)
        default: return try geoIntersects(operand, column)
        }
    }

    private func requireKind(_ kind: FieldType.Kind, _ column: QueryColumn, _ op: String) throws(ParseError) -> Bool {
        if column.isSchemaless {
            throw ParseError(.invalidQuery, "The query operator \(op) is not supported on this class by this server.")
        }
        guard column.exists else { return false }
        guard column.type.kind == kind, !column.isNested else {
            throw ParseError(.invalidQuery, "\(op) applies to \(kind.rawValue) fields only.")
        }
        return true
    }

    /// A GeoPoint operand, validated; `message` is parse-server's text when it is not one.
    private func point(_ value: JSONValue?, _ message: String) throws(ParseError) -> (latitude: Double, longitude: Double) {
        guard let (latitude, longitude) = GeoValue.geoPoint(value) else { throw ParseError(.invalidJSON, message) }
        try GeoValue.validate(latitude: latitude, longitude: longitude, code: .invalidJSON)
        return (latitude, longitude)
    }

    /// Bound only once the operator is known to apply: a parameter the statement does not use has no type.
    private func pointSQL(_ point: (latitude: Double, longitude: Double)) -> String {
        GeoValue.pointSQL(latitude: point.latitude, longitude: point.longitude, &parameters)
    }

    private func nearSphere(_ operand: JSONValue, _ fields: [String: JSONValue], _ column: QueryColumn) throws(ParseError) -> String {
        let center = try point(operand, "bad $nearSphere value; should be a GeoPoint")
        var radians: Double?
        for (name, factor) in Self.distanceLimits.sorted(by: { $0.key < $1.key }) {
            guard let limit = fields[name] else { continue }
            guard let number = limit.numberValue ?? limit.stringValue.flatMap(Double.init), number >= 0, !number.isNaN else {
                throw ParseError(.invalidJSON, "bad \(name) value; should be a non-negative number")
            }
            radians = min(radians ?? .infinity, number / factor)
        }
        guard try requireKind(.geoPoint, column, "$nearSphere") else { return "FALSE" }
        let target = "parse_geo_unit(\(pointSQL(center)))"
        let stored = "parse_geo_unit(\(column.sql))"
        distanceOrder.append("\(stored) <-> \(target)")
        guard let radians else { return "\(column.sql) IS NOT NULL" }
        return withinAngle(stored, target, radians)
    }

    /// Points at most `radians` from `target`: a bounding cube the index answers, then the exact chord.
    private func withinAngle(_ stored: String, _ target: String, _ radians: Double) -> String {
        let chord = 2 * sin(min(radians, Double.pi) / 2)
        let bound = bind(chord) + "::double precision"
        return "(cube_enlarge(\(target), \(bound), 3) @> \(stored) AND \(stored) <-> \(target) <= \(bound))"
    }

    private func within(_ operand: JSONValue, _ column: QueryColumn) throws(ParseError) -> String {
        guard let corners = operand["$box"]?.arrayValue, corners.count == 2 else {
            throw ParseError(.invalidJSON, "malformatted $within arg")
        }
        let first = try point(corners[0], "bad $within value; $box should contain two GeoPoints")
        let second = try point(corners[1], "bad $within value; $box should contain two GeoPoints")
        guard try requireKind(.geoPoint, column, "$within") else { return "FALSE" }
        return "\(column.sql) <@ box(\(pointSQL(first)), \(pointSQL(second)))"
    }

    private func geoWithin(_ operand: JSONValue, _ column: QueryColumn) throws(ParseError) -> String {
        if let centerSphere = operand["$centerSphere"] { return try self.centerSphere(centerSphere, column) }
        guard let polygon = operand["$polygon"] else {
            throw ParseError(.invalidJSON, "bad $geoWithin value; should have $polygon or $centerSphere")
        }
        let items: [JSONValue]
        if polygon["__type"]?.stringValue == "Polygon" {
            guard let coordinates = polygon["coordinates"]?.arrayValue, coordinates.count >= 3 else {
                throw ParseError(.invalidJSON, "bad $geoWithin value; Polygon.coordinates should contain at least 3 lon/lat pairs")
            }
            items = coordinates
        } else if let array = polygon.arrayValue {
            guard array.count >= 3 else {
                throw ParseError(.invalidJSON, "bad $geoWithin value; $polygon should contain at least 3 GeoPoints")
            }
            items = array
        } else {
            throw ParseError(.invalidJSON, "bad $geoWithin value; $polygon should be Polygon object or Array of Parse.GeoPoint's")
        }
        var points: [(latitude: Double, longitude: Double)] = []
        for item in items {
            // parse-server reads a pair as [longitude, latitude] here, unlike a stored Polygon's coordinates.
            if let pair = item.arrayValue, pair.count == 2, let longitude = pair[0].numberValue, let latitude = pair[1].numberValue {
                try GeoValue.validate(latitude: latitude, longitude: longitude, code: .invalidJSON)
                points.append((latitude, longitude))
            } else if let (latitude, longitude) = GeoValue.geoPoint(item) {
                try GeoValue.validate(latitude: latitude, longitude: longitude, code: .invalidJSON)
                points.append((latitude, longitude))
            } else {
                throw ParseError(.invalidJSON, "bad $geoWithin value")
            }
        }
        guard try requireKind(.geoPoint, column, "$geoWithin") else { return "FALSE" }
        return "\(column.sql) <@ \(bind(GeoValue.path(points)))::polygon"
    }

    private func centerSphere(_ operand: JSONValue, _ column: QueryColumn) throws(ParseError) -> String {
        guard let items = operand.arrayValue, items.count >= 2 else {
            throw ParseError(.invalidJSON, "bad $geoWithin value; $centerSphere should be an array of Parse.GeoPoint and distance")
        }
        let latitude: Double, longitude: Double
        if let pair = items[0].arrayValue, pair.count == 2, let x = pair[0].numberValue, let y = pair[1].numberValue {
            (latitude, longitude) = (y, x)
        } else if let point = GeoValue.geoPoint(items[0]) {
            (latitude, longitude) = point
        } else {
            throw ParseError(.invalidJSON, "bad $geoWithin value; $centerSphere geo point invalid")
        }
        try GeoValue.validate(latitude: latitude, longitude: longitude, code: .invalidJSON)
        guard let radians = items[1].numberValue ?? items[1].stringValue.flatMap(Double.init), radians >= 0 else {
            throw ParseError(.invalidJSON, "bad $geoWithin value; $centerSphere distance invalid")
        }
        guard try requireKind(.geoPoint, column, "$geoWithin") else { return "FALSE" }
        let center = pointSQL((latitude, longitude))
        return withinAngle("parse_geo_unit(\(column.sql))", "parse_geo_unit(\(center))", radians)
    }

    private func geoIntersects(_ operand: JSONValue, _ column: QueryColumn) throws(ParseError) -> String {
        let target = try point(operand["$point"], "bad $geoIntersect value; $point should be GeoPoint")
        guard try requireKind(.polygon, column, "$geoIntersects") else { return "FALSE" }
        return "\(column.sql) @> \(pointSQL(target))"
    }
}
