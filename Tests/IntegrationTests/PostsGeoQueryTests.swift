import Foundation
import Testing

extension IntegrationSuite {
    /// GeoPoint and Polygon queries over HTTP, as the SDKs' `whereNear`, `withinKilometers`, `withinGeoBox`,
    /// `withinPolygon` and `polygonContains` send them.
    @Suite struct PostsGeoQueries {
        static let places: [(String, Double, Double)] = [
            ("caltrain", 37.776346, -122.394218), ("santaClara", 37.325635, -121.945753),
            ("oslo", 59.9139, 10.7522), ("sydney", -33.8688, 151.2093), ("nearWest", 0, 175), ("farEast", 0, -165),
        ]

        static func geoPoint(_ latitude: Double, _ longitude: Double) -> [String: Any] {
            ["__type": "GeoPoint", "latitude": latitude, "longitude": longitude]
        }

        static func fixture() async throws -> String {
            let className = PostsHTTP.uniqueClass("Place")
            for (name, latitude, longitude) in places {
                _ = try await PostsHTTP.create(className, ["name": name, "location": geoPoint(latitude, longitude)])
            }
            _ = try await PostsHTTP.create(className, ["name": "nowhere"])
            return className
        }

        static func names(_ className: String, _ clause: String, _ extra: [String: Any] = [:]) async throws -> [String] {
            var parameters = extra
            parameters["where"] = clause
            let reply = try await PostsHTTP.find(className, parameters)
            #expect(reply.status == 200, "\(clause): \(reply.text)")
            return PostsHTTP.results(reply).compactMap { $0["name"] as? String }
        }

        static let sanFrancisco = #"{"__type":"GeoPoint","latitude":37.7749,"longitude":-122.4194}"#

        @Test func nearSphereSortsByDistanceAndHonoursEveryDistanceLimit() async throws {
            let c = try await Self.fixture()
            let all = try await Self.names(c, #"{"location":{"$nearSphere":\#(Self.sanFrancisco)}}"#)
            #expect(all == ["caltrain", "santaClara", "farEast", "nearWest", "oslo", "sydney"])
            // From San Francisco: the station 2.2 km, Santa Clara 65 km (0.0102 rad), (0,-165) 0.95 rad, Oslo 1.31.
            for (limit, expected) in [(#""$maxDistanceInKilometers":10"#, ["caltrain"]),
                                      (#""$maxDistanceInKilometers":100"#, ["caltrain", "santaClara"]),
                                      (#""$maxDistanceInMiles":50"#, ["caltrain", "santaClara"]),
                                      (#""$maxDistanceInRadians":0.0016"#, ["caltrain"]),
                                      (#""$maxDistance":1.0"#, ["caltrain", "santaClara", "farEast"]),
                                      (#""$maxDistance":0"#, [])] {
                let found = try await Self.names(c, #"{"location":{"$nearSphere":\#(Self.sanFrancisco),\#(limit)}}"#)
                #expect(found == expected, "\(limit)")
            }
            // An explicit order wins over the distance.
            let byName = try await Self.names(c, #"{"location":{"$nearSphere":\#(Self.sanFrancisco),"$maxDistance":1.0}}"#,
                                              ["order": "-name"])
            #expect(byName == ["santaClara", "farEast", "caltrain"])
            let limited = try await Self.names(c, #"{"location":{"$nearSphere":\#(Self.sanFrancisco)}}"#, ["limit": 2])
            #expect(limited == ["caltrain", "santaClara"])
        }

        @Test func boxesPolygonsAndCentreSpheresSelectByPlace() async throws {
            let c = try await Self.fixture()
            let southwest = #"{"__type":"GeoPoint","latitude":37.708813,"longitude":-122.526398}"#
            let northeast = #"{"__type":"GeoPoint","latitude":37.822802,"longitude":-122.373962}"#
            // Corners in either order (PostgreSQL's box orders them, as parse-server's adapter relies on).
            #expect(try await Self.names(c, #"{"location":{"$within":{"$box":[\#(southwest),\#(northeast)]}}}"#) == ["caltrain"])
            #expect(try await Self.names(c, #"{"location":{"$within":{"$box":[\#(northeast),\#(southwest)]}}}"#) == ["caltrain"])
            let dateLine = try await Self.names(c, #"""
                {"location":{"$within":{"$box":[{"__type":"GeoPoint","latitude":-10,"longitude":170},
                                                 {"__type":"GeoPoint","latitude":10,"longitude":-170}]}}}
                """#)
            #expect(dateLine == ["farEast"])
            let triangle = #"[{"__type":"GeoPoint","latitude":30,"longitude":-130},{"__type":"GeoPoint","latitude":40,"longitude":-110},{"__type":"GeoPoint","latitude":45,"longitude":-130}]"#
            #expect(Set(try await Self.names(c, #"{"location":{"$geoWithin":{"$polygon":\#(triangle)}}}"#)) == ["caltrain", "santaClara"])
            // A Polygon value's coordinates, and bare pairs read as [longitude, latitude].
            let polygon = #"{"__type":"Polygon","coordinates":[[-130,30],[-110,40],[-130,45]]}"#
            #expect(Set(try await Self.names(c, #"{"location":{"$geoWithin":{"$polygon":\#(polygon)}}}"#)) == ["caltrain", "santaClara"])
            let sphere = #"{"location":{"$geoWithin":{"$centerSphere":[[-122.4194,37.7749],0.002]}}}"#
            #expect(try await Self.names(c, sphere) == ["caltrain"])
            let sphereOfPoint = #"{"location":{"$geoWithin":{"$centerSphere":[\#(Self.sanFrancisco),0.02]}}}"#
            #expect(Set(try await Self.names(c, sphereOfPoint)) == ["caltrain", "santaClara"])
            // Equality and $exists on a GeoPoint.
            #expect(try await Self.names(c, #"{"location":{"__type":"GeoPoint","latitude":59.9139,"longitude":10.7522}}"#) == ["oslo"])
            #expect(try await Self.names(c, #"{"location":{"$exists":false}}"#) == ["nowhere"])
            // A field the class does not have matches nothing.
            #expect(try await Self.names(c, #"{"elsewhere":{"$nearSphere":\#(Self.sanFrancisco)}}"#) == [])
        }

        @Test func polygonsAreStoredClosedAndAnswerGeoIntersects() async throws {
            let c = PostsHTTP.uniqueClass("Area")
            let open = try await PostsHTTP.create(c, ["name": "small", "area": ["__type": "Polygon", "coordinates": [[0, 0], [0, 1], [1, 1], [1, 0]]]])
            _ = try await PostsHTTP.create(c, ["name": "large", "area": ["__type": "Polygon", "coordinates": [[0, 0], [0, 2], [2, 2], [2, 0], [0, 0]]]])
            _ = try await PostsHTTP.create(c, ["name": "far", "area": ["__type": "Polygon", "coordinates": [[10, 10], [10, 15], [15, 15], [15, 10]]]])
            let read = try await PostsHTTP.send("GET", "/classes/\(c)/\(open)")
            let area = read.json?["area"] as? [String: Any]
            #expect(area?["__type"] as? String == "Polygon")
            let coordinates = (area?["coordinates"] as? [[Double]]) ?? []
            #expect(coordinates == [[0, 0], [0, 1], [1, 1], [1, 0], [0, 0]])
            let schema = try await PostsHTTP.send("GET", "/schemas/\(c)", master: true)
            #expect((schema.json?["fields"] as? [String: Any]).flatMap { $0["area"] as? [String: Any] }?["type"] as? String == "Polygon")
            let inside = #"{"area":{"$geoIntersects":{"$point":{"__type":"GeoPoint","latitude":0.5,"longitude":0.5}}}}"#
            #expect(Set(try await Self.names(c, inside)) == ["small", "large"])
            let outside = #"{"area":{"$geoIntersects":{"$point":{"__type":"GeoPoint","latitude":1.5,"longitude":1.5}}}}"#
            #expect(try await Self.names(c, outside) == ["large"])
            let same = #"{"area":{"__type":"Polygon","coordinates":[[10,10],[10,15],[15,15],[15,10]]}}"#
            #expect(try await Self.names(c, same) == ["far"])
        }

        @Test func badPolygonsAreRefusedAndNothingIsStored() async throws {
            let c = PostsHTTP.uniqueClass("Area")
            _ = try await PostsHTTP.create(c, ["name": "seed"])
            let cases: [([String: Any], Int, String)] = [
                (["__type": "Polygon", "coordinates": [[0, 0], [1, 1]]], 107, "Polygon must have at least 3 values"),
                (["__type": "Polygon", "coordinates": [[0, 0], [1, 1], [0, 0]]], 107, "GeoJSON: Loop must have at least 3 different vertices"),
                (["__type": "Polygon", "coordinates": [[0, 0], [1, 1], [95, 0]]], 107, "GeoPoint latitude out of bounds: 95 > 90.0."),
                (["__type": "Polygon", "coordinates": [[0, 0], [1, 1], [0, -181]]], 107, "GeoPoint longitude out of bounds: -181 < -180.0."),
                (["__type": "Polygon", "coordinates": [["a"], ["b"], ["c"]]], 111, "This is not a valid Polygon"),
                (["__type": "Polygon", "coordinates": 1234], 111, "This is not a valid Polygon"),
            ]
            for (value, code, message) in cases {
                let reply = try await PostsHTTP.send("POST", "/classes/\(c)", ["area": value])
                #expect(reply.status == 400, "\(value): \(reply.text)")
                #expect(reply.code == code, "\(value): \(reply.text)")
                #expect(reply.error == message, "\(value): \(reply.text)")
            }
            let count = try await PostsHTTP.find(c, ["count": 1, "limit": 0])
            #expect(count.json?["count"] as? Int == 1)
        }

        @Test func badGeoOperandsAnswerParseServersErrors() async throws {
            let c = try await Self.fixture()
            let point = Self.sanFrancisco
            let cases: [(String, Int, String)] = [
                (#"{"location":{"$nearSphere":{"__type":"GeoPoint","latitude":91,"longitude":0}}}"#, 107,
                 "GeoPoint latitude out of bounds: 91 > 90.0."),
                (#"{"location":{"$nearSphere":{"__type":"GeoPoint","latitude":0,"longitude":-180.5}}}"#, 107,
                 "GeoPoint longitude out of bounds: -180.5 < -180.0."),
                (#"{"location":{"$nearSphere":"here"}}"#, 107, "bad $nearSphere value; should be a GeoPoint"),
                (#"{"location":{"$nearSphere":\#(point),"$maxDistance":-1}}"#, 107,
                 "bad $maxDistance value; should be a non-negative number"),
                (#"{"location":{"$maxDistance":1}}"#, 102, "$maxDistance needs $nearSphere."),
                (#"{"location":{"$within":{"$box":[\#(point)]}}}"#, 107, "malformatted $within arg"),
                (#"{"location":{"$geoWithin":{"$polygon":[]}}}"#, 107, "bad $geoWithin value; $polygon should contain at least 3 GeoPoints"),
                (#"{"location":{"$geoWithin":{"$polygon":[\#(point),\#(point)]}}}"#, 107,
                 "bad $geoWithin value; $polygon should contain at least 3 GeoPoints"),
                (#"{"location":{"$geoWithin":{"$polygon":1234}}}"#, 107,
                 "bad $geoWithin value; $polygon should be Polygon object or Array of Parse.GeoPoint's"),
                (#"{"location":{"$geoWithin":{"$polygon":[1,2,3]}}}"#, 107, "bad $geoWithin value"),
                (#"{"location":{"$geoWithin":{"$polygon":{"__type":"Polygon","coordinates":[[1,2]]}}}}"#, 107,
                 "bad $geoWithin value; Polygon.coordinates should contain at least 3 lon/lat pairs"),
                (#"{"location":{"$geoWithin":{"$centerSphere":[\#(point)]}}}"#, 107,
                 "bad $geoWithin value; $centerSphere should be an array of Parse.GeoPoint and distance"),
                (#"{"location":{"$geoWithin":{"$centerSphere":["x",1]}}}"#, 107, "bad $geoWithin value; $centerSphere geo point invalid"),
                (#"{"location":{"$geoWithin":{"$centerSphere":[\#(point),-1]}}}"#, 107, "bad $geoWithin value; $centerSphere distance invalid"),
                (#"{"location":{"$geoIntersects":{"$point":1234}}}"#, 107, "bad $geoIntersect value; $point should be GeoPoint"),
                (#"{"name":{"$nearSphere":\#(point)}}"#, 102, "$nearSphere applies to GeoPoint fields only."),
                (#"{"location":{"$geoIntersects":{"$point":\#(point)}}}"#, 102, "$geoIntersects applies to Polygon fields only."),
                (#"{"location":{"$gt":\#(point)}}"#, 102,
                 "GeoPoint fields can only be queried with equality, $exists and the geo operators."),
            ]
            for (clause, code, message) in cases {
                let reply = try await PostsHTTP.find(c, ["where": clause])
                #expect(reply.status == 400, "\(clause): \(reply.text)")
                #expect(reply.code == code, "\(clause): \(reply.text)")
                #expect(reply.error == message, "\(clause): \(reply.text)")
            }
        }
    }
}
