import Foundation
import Storage
import Testing

/// bytea in binary format both ways: `PostgresBinary` parameters and `binaryColumn` results.
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

        let column = try await connection.binaryColumn("SELECT data FROM \(table) ORDER BY id")
        #expect(column.count == 3)
        #expect(column[0] == every)
        #expect(column[1] == nil)
        #expect(column[2] == [])
        let slice = try await connection.binaryColumn(
            "SELECT substring(data FROM $2::int FOR $3::int) FROM \(table) WHERE id = $1", [1, 1001, 5])
        #expect(slice == [Array(every[1000..<1005])])
        #expect(try await connection.binaryColumn("SELECT data FROM \(table) WHERE id = 99").isEmpty)
        _ = try await connection.query("DROP TABLE \(table)")
        await connection.close()
    }

    @Test func errorsAreThrownNotReadAsRows() async throws {
        let connection = try await PostgresConnection.connect(url: TestDatabase.url)
        await #expect(throws: PostgresError.self) {
            _ = try await connection.binaryColumn("SELECT data FROM no_such_table_here")
        }
        await #expect(throws: PostgresError.self) {
            _ = try await connection.query("SELECT $1::int", binary: [PostgresBinary([1, 2])])
        }
        #expect(try await connection.binaryColumn("SELECT 'still usable'::bytea") == [Array("still usable".utf8)])
        await connection.close()
    }
}
