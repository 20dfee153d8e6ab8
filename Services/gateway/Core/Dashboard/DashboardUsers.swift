import CCrypt
import Dispatch
import Foundation
import Runtime

/// parse-dashboard's `users` option: `[{"user":"ann","pass":"$2b$10$..."}]`, passwords as bcrypt hashes (as
/// its `useEncryptedPasswords`); `readOnly: true` users act with the read-only master key.
public struct DashboardUsers: Sendable {
    struct Entry: Sendable, Decodable {
        var user: String
        var pass: String
        var readOnly: Bool?
    }

    let entries: [Entry]

    var isEmpty: Bool { entries.isEmpty }

    public init(json: String?) throws {
        guard let json, !json.isEmpty else { entries = []; return }
        do {
            entries = try JSONDecoder().decode([Entry].self, from: Data(json.utf8))
        } catch {
            throw ConfigurationError("PARSE_DASHBOARD_USERS must be a JSON list of {\"user\",\"pass\"}: \(error)")
        }
        for entry in entries where !Self.isBcrypt(entry.pass) {
            throw ConfigurationError("PARSE_DASHBOARD_USERS: the password of '\(entry.user)' must be a bcrypt hash ($2b$...)")
        }
    }

    /// The user's entry when the password matches its hash. bcrypt takes tens of milliseconds on purpose, so it
    /// runs on a dispatch queue, off the cooperative pool; an unknown name costs the same as a wrong password.
    func authenticate(user: String, password: String) async -> Entry? {
        let entry = entries.first { ConstantTime.equals($0.user, user) }
        let hash = entry?.pass ?? Self.decoyHash
        let matches = await withCheckedContinuation { continuation in
            Self.queue.async { continuation.resume(returning: Self.verify(password, against: hash)) }
        }
        return matches ? entry : nil
    }

    private static let queue = DispatchQueue(label: "dashboard.bcrypt", attributes: .concurrent)
    /// A hash of nothing anyone types, checked for unknown names so that they take as long as known ones.
    private static let decoyHash = "$2b$10$CwTycUXWue0Thq9StjUM0uJ8.bHHGyhVNHm3Qf3Ygb1u8f0DTCVaW"

    static func isBcrypt(_ text: String) -> Bool {
        (text.hasPrefix("$2a$") || text.hasPrefix("$2b$") || text.hasPrefix("$2y$")) && text.count == 60
    }

    static func verify(_ password: String, against stored: String) -> Bool {
        guard isBcrypt(stored) else { return false }
        let size = MemoryLayout<crypt_data>.size
        let data = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<crypt_data>.alignment)
        defer {
            data.initializeMemory(as: UInt8.self, repeating: 0, count: size)
            data.deallocate()
        }
        data.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        guard let result = crypt_rn(password, stored, data, Int32(size)) else { return false }
        return ConstantTime.equals(String(cString: result), stored)
    }
}
