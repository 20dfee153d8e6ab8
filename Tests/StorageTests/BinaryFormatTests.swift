import Foundation
import Storage
import Testing

/// bytea in binary format both ways: `PostgresBinary` parameters and `binaryRows` results.
@Suite(.enabled(if: TestDatabase.isConfigured))
struct BinaryFormatTests {
    @Test func bytesRoundTripAsTheyAreWithTextParametersBeside() async throws {
        let connection = try await PostgresConnection.connect(url: TestDatabase.url)
        let table = TestDatabase.uniqueName("binary")
        try await connection.execute(script: "CREATE TABLE \(table) (id int PRIMARY KEY, label text, data bytea)")
        let every = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }   // NULs and every byte value
        let inserted = try await connection.query(
            "INSERT INTO \(table) VALUES ($1, $2, $3::bytea), (2, NULL, NULL), (3, 'empty', $4::bytea)",
            binary: [1, "Ünïcødé", PostgresBinary(every), PostgresBinary([])])
        #expect(inserted.affectedRows == 3)

        let stored = try await connection.query("SELECT label, length(data) AS count, data FROM \(table) WHERE id = 1")
        #expect(stored.first?["label"] == "Ünïcødé")
        #expect(stored.first?.int("count") == every.count)
        #expect(stored.first?.bytes("data") == every)

        let rows = try await connection.binaryRows("SELECT id, data FROM \(table) ORDER BY id")
        #expect(rows.map { PostgresBinary.integer($0[0]) } == [1, 2, 3])
        #expect(rows[0][1] == every)
        #expect(rows[1][1] == nil)
        #expect(rows[2][1] == [])
        let slice = try await connection.binaryRows(
            "SELECT substring(data FROM $2::int FOR $3::int) FROM \(table) WHERE id = $1", [1, 1001, 5])
        #expect(slice == [[Array(every[1000..<1005])]])
        #expect(try await connection.binaryRows("SELECT data FROM \(table) WHERE id = 99").isEmpty)
        let integers = try await connection.binaryRows("SELECT -2::smallint, -70000::int, -5000000000::bigint")
        #expect(integers.first?.map(PostgresBinary.integer) == [-2, -70000, -5_000_000_000])
        _ = try await connection.query("DROP TABLE \(table)")
        await connection.close()
    }

    @Test func errorsAreThrownNotReadAsRows() async throws {
        let connection = try await PostgresConnection.connect(url: TestDatabase.url)
        await #expect(throws: PostgresError.self) {
            _ = try await connection.binaryRows("SELECT data FROM no_such_table_here")
        }
        await #expect(throws: PostgresError.self) {
            _ = try await connection.query("SELECT $1::int", binary: [PostgresBinary([1, 2])])
        }
        #expect(try await connection.binaryRows("SELECT 'still usable'::bytea") == [[Array("still usable".utf8)]])
        await connection.close()
    }
}
