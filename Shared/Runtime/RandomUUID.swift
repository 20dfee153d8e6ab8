/// Random (version 4) UUIDs as lowercase text, from the system's generator through `RandomPool`. Foundation's
/// `UUID()` on Linux opens and reads `/dev/urandom` for every one: with a request id and a correlation id per
/// request, that file open showed up in the gateway's profile.
public enum RandomUUID {
    public static func string() -> String {
        var bytes = RandomPool.bytes(16)
        bytes[6] = bytes[6] & 0x0F | 0x40   // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80   // RFC 4122 variant
        return text(bytes)
    }

    /// 16 bytes in the 8-4-4-4-12 lowercase hex form.
    public static func text(_ bytes: [UInt8]) -> String {
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
