import CLibCrypto
import Foundation
import Synchronization

/// Dashboard logins as signed cookies: `<expiry>.<nonce>.<user>.<mac>`, the MAC an HMAC-SHA256 under the master
/// key, so every gateway replica accepts the cookies of the others and none stores them. The CSRF token is a
/// second MAC of the cookie, handed to the page at login and sent back in a header, which a page of another
/// origin cannot read or forge. A logout is remembered by this replica until the cookie would have expired.
final class DashboardSessionCookie: Sendable {
    static let name = "parse_dashboard_session"

    struct Session: Sendable, Equatable {
        var user: String
        var readOnly: Bool
        var csrfToken: String
    }

    private let key: [UInt8]
    private let length: Int
    private let loggedOut = Mutex<[String: Int]>([:])

    init(secret: String, sessionLength: Int) {
        key = Array(secret.utf8)
        length = sessionLength
    }

    /// A new cookie value for `user`; `readOnly` travels signed inside it.
    func issue(user: String, readOnly: Bool, now: Date = Date()) -> String {
        let expiry = Int(now.timeIntervalSince1970) + length
        var nonce = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in nonce.indices { nonce[index] = generator.next() }
        let body = "\(expiry).\(Self.hex(nonce)).\(readOnly ? "r" : "w")\(Self.base64URL(user))"
        return body + "." + mac("session|" + body)
    }

    /// The session a cookie value stands for, or nil when it is forged, expired or logged out.
    func session(_ cookie: String, now: Date = Date()) -> Session? {
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, let expiry = Int(parts[0]), expiry > Int(now.timeIntervalSince1970),
              let last = cookie.lastIndex(of: ".") else { return nil }
        let body = String(cookie[..<last])
        guard ConstantTime.equals(mac("session|" + body), String(parts[3])) else { return nil }
        if loggedOut.withLock({ $0[String(parts[1])] != nil }) { return nil }
        let tagged = parts[2]
        guard let flag = tagged.first, let user = Self.unbase64URL(String(tagged.dropFirst())) else { return nil }
        return Session(user: user, readOnly: flag == "r", csrfToken: mac("csrf|" + cookie))
    }

    func logOut(_ cookie: String, now: Date = Date()) {
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, let expiry = Int(parts[0]) else { return }
        let seconds = Int(now.timeIntervalSince1970)
        loggedOut.withLock { entries in
            entries = entries.filter { $0.value > seconds }
            entries[String(parts[1])] = expiry
        }
    }

    /// The cookie value a request carries, if any.
    static func value(in cookieHeaders: [String]) -> String? {
        for header in cookieHeaders {
            for pair in header.split(separator: ";") {
                let trimmed = pair.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix(name + "=") { return String(trimmed.dropFirst(name.count + 1)) }
            }
        }
        return nil
    }

    func mac(_ message: String) -> String {
        var out = [UInt8](repeating: 0, count: 32)
        var written = 0
        let bytes = Array(message.utf8)
        let done = key.withUnsafeBytes { keyBytes in
            EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil, keyBytes.baseAddress, keyBytes.count,
                      bytes, bytes.count, &out, out.count, &written)
        }
        precondition(done != nil && written == 32, "HMAC-SHA256 failed")
        return Self.hex(out)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func unbase64URL(_ text: String) -> String? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map { String(decoding: $0, as: UTF8.self) }
    }
}
