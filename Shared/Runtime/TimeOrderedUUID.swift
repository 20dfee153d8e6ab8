import Foundation

/// Version 7 UUIDs (RFC 9562) as lowercase text: the first 48 bits are the Unix time in milliseconds, the other 74
/// are random. Ballot and event ids are keys of B-tree indexes (the ledger's primary key, posts' applied ballots,
/// the outbox's event ids); ids that grow with time are added at the right edge of the index, where the pages are
/// already in memory, instead of at a random page each, which after every checkpoint first writes the whole page to
/// the WAL. The gateway gives them to requests that come without an `X-Parse-Request-Id`, which the vote ledger
/// keeps in a unique index.
public enum TimeOrderedUUID {
    public static func string(at date: Date = Date()) -> String {
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        var bytes = [UInt8](repeating: 0, count: 6) + RandomPool.bytes(10)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        bytes[6] = bytes[6] & 0x0F | 0x70   // version 7
        bytes[8] = bytes[8] & 0x3F | 0x80   // RFC 9562 variant
        return RandomUUID.text(bytes)
    }
}
