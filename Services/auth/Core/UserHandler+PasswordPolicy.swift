import Foundation
import ParseWire

extension UserHandler {
    /// A new password for `user` against the password policy: its strength rules (with the username it will have),
    /// then the history. Returns the history to store, nil when no history is kept.
    func checkPolicy(_ password: String, of user: UserRecord, newUsername: String?) async throws -> [String]? {
        guard let policy = settings.passwordPolicy else { return nil }
        try policy.check(password, username: newUsername ?? user.username)
        guard policy.maxPasswordHistory > 0 else { return nil }
        let row = try await pool.query("SELECT array_to_json(password_history)::text AS history FROM users WHERE id = $1",
                                       [user.id]).first
        let earlier = row?["history"].flatMap { JSONValue.parse($0)?.arrayValue }?.compactMap(\.stringValue) ?? []
        let recent = Array(earlier.suffix(policy.maxPasswordHistory - 1)) + [user.passwordHash].compactMap { $0 }
        for hash in recent where await PasswordHasher.verify(password, against: hash) {
            throw policy.historyError()
        }
        // The current password joins the history; with a history of n, the n-1 before the new one are kept.
        return Array(recent.suffix(policy.maxPasswordHistory - 1))
    }
}
