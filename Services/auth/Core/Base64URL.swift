import Foundation

/// base64url without padding, as JSON Web Tokens and keys write their parts (RFC 7515).
enum Base64URL {
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") || text.hasSuffix("=") else { return nil }
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }
}
