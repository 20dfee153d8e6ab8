import ParseWire
import Query
import Testing
@testable import PostsCore

struct NamesTests {
    @Test func acceptsParseNames() {
        for name in ["Cat", "GameScore", "a1_b", "X"] { #expect(Names.isValidClassName(name)) }
    }

    @Test func refusesAnythingThatCouldCarrySQL() {
        for name in ["", "1Cat", "_User", "Cat;DROP TABLE x", "Cat\"", "a b", "a.b", "é", String(repeating: "a", count: 64)] {
            #expect(!Names.isValidClassName(name), "\(name)")
        }
    }

    @Test func objectIdsAreTenAlphanumerics() {
        let ids = (0..<1000).map { _ in ObjectId.make() }
        #expect(Set(ids).count == 1000)
        for id in ids {
            #expect(id.count == 10)
            #expect(id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        }
    }

    @Test func longIndexNamesAreShortened() {
        let name = IndexManager.physicalName(String(repeating: "f", count: 60) + "_1", className: "Cat")
        #expect(name.utf8.count <= 63)
        #expect(IndexManager.physicalName("name_1", className: "Cat") == "Cat_name_1")
    }
}
