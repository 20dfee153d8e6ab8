import Foundation
@testable import Storage
import Testing

struct ValueEncodingTests {
    @Test func scalarsUsePostgresTextFormat() {
        #expect(true.postgresText == "true")
        #expect(false.postgresText == "false")
        #expect(Int64(-42).postgresText == "-42")
        #expect(Int32.max.postgresText == "2147483647")
        #expect(0.1.postgresText == "0.1")
        #expect(Double.infinity.postgresText == "inf")
    }

    @Test func datesAreISO8601UTCWithMilliseconds() {
        #expect(Date(timeIntervalSince1970: 0).postgresText == "1970-01-01T00:00:00.000Z")
        #expect(Date(timeIntervalSince1970: 1_717_171_717.123).postgresText == "2024-05-31T16:08:37.123Z")
        #expect(Date(timeIntervalSince1970: -0.001).postgresText == "1969-12-31T23:59:59.999Z")
        #expect(Date(timeIntervalSince1970: 951_782_400).postgresText == "2000-02-29T00:00:00.000Z")
    }

    @Test func timestampOutputParses() {
        let expected = Date(timeIntervalSince1970: 1_717_171_717.123)
        #expect(PostgresTimestamp.parse("2024-05-31 16:08:37.123+00") == expected)
        #expect(PostgresTimestamp.parse("2024-05-31 18:38:37.123+02:30") == expected)
        #expect(PostgresTimestamp.parse("2024-05-31 08:08:37.123-08") == expected)
        #expect(PostgresTimestamp.parse("2024-05-31T16:08:37.123Z") == expected)
        #expect(PostgresTimestamp.parse("2024-05-31 16:08:37") == Date(timeIntervalSince1970: 1_717_171_717))
        #expect(PostgresTimestamp.parse("infinity") == nil)
        #expect(PostgresTimestamp.parse("2024-13-01 00:00:00") == nil)
        #expect(PostgresTimestamp.parse("2024-05-31 16:08:37+00 trailing") == nil)
    }

    @Test func byteaHexRoundTrips() {
        let bytes: [UInt8] = [0, 1, 0x7f, 0x80, 0xfe, 0xff]
        #expect(bytes.postgresText == "\\x00017f80feff")
        #expect(Data(bytes).postgresText == "\\x00017f80feff")
        #expect(ByteaHex.decode("\\x00017F80FEFF") == bytes)
        #expect(ByteaHex.decode("\\x") == [])
        #expect(ByteaHex.decode("\\x0") == nil)
        #expect(ByteaHex.decode("\\xzz") == nil)
        #expect(ByteaHex.decode("plain") == nil)
    }

    @Test func connectionFailureClassification() {
        #expect(PostgresError(sqlState: nil, message: "gone").isConnectionFailure)
        #expect(PostgresError(sqlState: "57P01", message: "terminated").isConnectionFailure)
        #expect(PostgresError(sqlState: "08006", message: "failure").isConnectionFailure)
        #expect(PostgresError(sqlState: "XX000", message: "lost", connectionLost: true).isConnectionFailure)
        #expect(!PostgresError(sqlState: "23505", message: "duplicate").isConnectionFailure)
    }
}

struct PostgresRowTests {
    @Test func readsTypedValuesByName() {
        let row = PostgresRow(columns: ["n", "flag", "blob", "at", "n"], values: ["7", "t", "\\x0102", "2024-05-31 16:08:37+00", "8"])
        #expect(row.int("n") == 7)
        #expect(row.bool("flag") == true)
        #expect(row.bytes("blob") == [1, 2])
        #expect(row.date("at") == Date(timeIntervalSince1970: 1_717_171_717))
        #expect(row[4] == "8")
        #expect(row.int("flag") == nil)
    }
}
