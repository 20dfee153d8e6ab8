import Contracts
import CCrypt
import Dispatch
import Foundation

/// bcrypt through the system's libcrypt: new hashes are `$2b$10$...` as parse-server writes them; `$2a$` and
/// `$2y$` hashes from other bcrypt implementations verify too, so exported users log in unchanged.
/// Hashing takes tens of milliseconds on purpose, so it runs on a dispatch queue, off the cooperative pool.
enum PasswordHasher {
    static let cost = 10
    private static let queue = DispatchQueue(label: "auth.bcrypt", attributes: .concurrent)

    static func hash(_ password: String) async throws -> String {
        try await onQueue { try hashNow(password) }
    }

    static func verify(_ password: String, against stored: String) async -> Bool {
        (try? await onQueue { verifyNow(password, against: stored) }) ?? false
    }

    static func hashNow(_ password: String) throws -> String {
        var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        // A nil random-bytes argument makes libcrypt draw the salt from the OS's cryptographic source.
        guard crypt_gensalt_rn("$2b$", UInt(cost), nil, 0, &setting, Int32(setting.count)) != nil else {
            throw PasswordHashError(description: "crypt_gensalt_rn failed (errno \(errno))")
        }
        let settingText = String(decoding: setting.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let hashed = crypt(password, setting: settingText), hashed.hasPrefix("$2b$") else {
            throw PasswordHashError(description: "crypt_rn failed (errno \(errno))")
        }
        return hashed
    }

    static func verifyNow(_ password: String, against stored: String) -> Bool {
        guard stored.hasPrefix("$2a$") || stored.hasPrefix("$2b$") || stored.hasPrefix("$2y$"),
              let computed = crypt(password, setting: stored) else { return false }
        return SessionTokenDigest.constantTimeEqual(Array(computed.utf8), Array(stored.utf8))
    }

    /// `crypt_rn` with its scratch area on the heap (it is about 32 KB); nil on failure. The scratch area is
    /// zeroed first, as libcrypt asks.
    private static func crypt(_ phrase: String, setting: String) -> String? {
        let size = MemoryLayout<crypt_data>.size
        let data = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<crypt_data>.alignment)
        defer {
            data.initializeMemory(as: UInt8.self, repeating: 0, count: size)   // no password bytes left behind
            data.deallocate()
        }
        data.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        guard let result = crypt_rn(phrase, setting, data, Int32(size)) else { return nil }
        let text = String(cString: result)
        return text.hasPrefix("*") ? nil : text
    }

    private static func onQueue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}

struct PasswordHashError: Error, CustomStringConvertible {
    let description: String
}
