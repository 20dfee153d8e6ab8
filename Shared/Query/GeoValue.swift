import ParseWire
import Storage

/// GeoPoints and Polygons as parse-server reads them, with its validation and its messages, and their SQL forms
/// (PostgreSQL's `point` is (longitude, latitude)).
public enum GeoValue {
    /// Mean earth radii parse-server converts distances with.
    public static let earthRadiusKilometers = 6371.0
    public static let earthRadiusMiles = 3958.8

    /// parse-server's `Parse.GeoPoint._validate`: latitude in [-90, 90], longitude in [-180, 180].
    public static func validate(latitude: Double, longitude: Double, code: ParseError.Code) throws(ParseError) {
        guard latitude.isFinite, longitude.isFinite else {
            throw ParseError(code, "GeoPoint latitude and longitude must be valid numbers")
        }
        if latitude < -90 { throw ParseError(code, "GeoPoint latitude out of bounds: \(js(latitude)) < -90.0.") }
        if latitude > 90 { throw ParseError(code, "GeoPoint latitude out of bounds: \(js(latitude)) > 90.0.") }
        if longitude < -180 { throw ParseError(code, "GeoPoint longitude out of bounds: \(js(longitude)) < -180.0.") }
        if longitude > 180 { throw ParseError(code, "GeoPoint longitude out of bounds: \(js(longitude)) > 180.0.") }
    }

    /// `(latitude, longitude)` of a `{"__type":"GeoPoint",...}` value; nil for anything else.
    public static func geoPoint(_ value: JSONValue?) -> (latitude: Double, longitude: Double)? {
        guard let value, value["__type"]?.stringValue == "GeoPoint",
              let latitude = value["latitude"]?.numberValue, let longitude = value["longitude"]?.numberValue else { return nil }
        return (latitude, longitude)
    }

    /// The SQL `point` of a GeoPoint, as bound parameters.
    public static func pointSQL(latitude: Double, longitude: Double, _ parameters: inout SQLParameters) -> String {
        "point(\(parameters.bind(longitude))::double precision, \(parameters.bind(latitude))::double precision)"
    }

    /// A stored Polygon's text for PostgreSQL (`((lng,lat),...)`), closed as parse-server stores it: the first
    /// point repeated at the end unless it is there already.
    public static func polygonText(_ value: JSONValue) throws(ParseError) -> String {
        guard let coordinates = value["coordinates"]?.arrayValue else {
            throw ParseError(.incorrectType, "This is not a valid Polygon")
        }
        guard coordinates.count >= 3 else {
            throw ParseError(.invalidJSON, "Polygon must have at least 3 values")
        }
        var points: [(latitude: Double, longitude: Double)] = []
        for item in coordinates {
            guard let pair = item.arrayValue, pair.count == 2, let latitude = pair[0].numberValue,
                  let longitude = pair[1].numberValue else {
                throw ParseError(.incorrectType, "This is not a valid Polygon")
            }
            try validate(latitude: latitude, longitude: longitude, code: .invalidJSON)
            points.append((latitude, longitude))
        }
        if points[0] != points[points.count - 1] { points.append(points[0]) }
        var distinct: [(Double, Double)] = []
        for point in points where !distinct.contains(where: { $0 == point }) { distinct.append(point) }
        guard distinct.count >= 3 else {
            throw ParseError(.invalidJSON, "GeoJSON: Loop must have at least 3 different vertices")
        }
        return path(points)
    }

    /// `((lng,lat),...)` for PostgreSQL's `polygon` and `path` input.
    public static func path(_ points: [(latitude: Double, longitude: Double)]) -> String {
        "(" + points.map { "(\($0.longitude),\($0.latitude))" }.joined(separator: ",") + ")"
    }

    /// A stored polygon read back (`((x,y),...)`) as its Parse value, `[[lat,lng],...]`.
    public static func polygon(fromSQL text: String) -> JSONValue? {
        let numbers = text.split(whereSeparator: { "(), ".contains($0) }).compactMap { Double($0) }
        guard numbers.count >= 2, numbers.count % 2 == 0 else { return nil }
        let coordinates = stride(from: 0, to: numbers.count, by: 2).map {
            JSONValue.array([.number(numbers[$0 + 1]), .number(numbers[$0])])
        }
        return .object(["__type": .string("Polygon"), "coordinates": .array(coordinates)])
    }

    /// A number as JavaScript prints it in messages (`100`, not `100.0`).
    static func js(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}
