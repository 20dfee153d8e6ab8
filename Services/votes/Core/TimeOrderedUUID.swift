import Foundation
import Runtime

/// Version 7 UUIDs (RFC 9562) as lowercase text: the first 48 bits are the Unix time in milliseconds, the other 74
/// are random. Ballot and event ids are keys of B-tree indexes (the ledger's primary key, posts' applied ballots,
/// the outbox's event ids); ids that grow with time are added at the right edge of the index, where the pages are
/// already in memory, instead of at a random page each, which after every checkpoint first writes the whole page to
/// the WAL.
enum TimeOrderedUUID {
    static func string(at date: Date = Date()) -> String {
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        var bytes = [UInt8](repeating: 0, count: 6) + Hex.randomBytes(10)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        bytes[6] = bytes[6] & 0x0F | 0x70   // version 7
        bytes[8] = bytes[8] & 0x3F | 0x80   // RFC 9562 variant
        let hex = Array(Hex.encode(bytes).utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, digit) in hex.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { text.append(UInt8(ascii: "-")) }
            text.append(digit)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
