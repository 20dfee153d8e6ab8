import ParseWire

/// A short name for a class's permissions as `/schemas` shows them (`classLevelPermissions`, with its
/// `protectedFields`): posts puts it in every object event (`data.permissionsVersion`), and `live`, which keeps the
/// permissions it read, reads them again before it judges an event whose version is not theirs. So a change of
/// permissions applies to the first event after it, on every `live` replica. Equal permissions give equal text
/// (`compactText` sorts keys), hence equal versions.
public enum PermissionsVersion {
    public static func of(_ permissions: JSONValue) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in permissions.compactText.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }
}
