import Glibc
import Runtime

/// parse-server's `masterKeyIps`: exact addresses or IPv4 CIDR ranges (`10.0.0.0/8`); `0.0.0.0/0` and `::/0`
/// allow every IPv4 / IPv6 address.
public struct IPAllowList: Sendable, Equatable {
    private enum Entry: Equatable {
        case exact(String)
        case ipv4(network: UInt32, mask: UInt32)
        case anyIPv6
    }

    private let entries: [Entry]

    /// parse-server's default for both keys: the machine itself.
    public static let loopback = IPAllowList(entries: [.exact("127.0.0.1"), .exact("::1")])

    private init(entries: [Entry]) { self.entries = entries }

    /// `setting` names the variable in the error a wrong item gets.
    public init(_ items: [String], setting: String = "PARSE_SERVER_MASTER_KEY_IPS") throws {
        entries = try items.map { item in
            if item == "::/0" || item == "::0" { return .anyIPv6 }
            guard let slash = item.firstIndex(of: "/") else {
                guard Self.isAddress(item) else {
                    throw ConfigurationError("\(setting): '\(item)' is not an IP address")
                }
                return .exact(item)
            }
            guard let address = Self.ipv4(String(item[..<slash])), let bits = Int(item[item.index(after: slash)...]),
                  (0...32).contains(bits) else {
                throw ConfigurationError("\(setting): '\(item)' is not an address or IPv4 CIDR range")
            }
            let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
            return .ipv4(network: address & mask, mask: mask)
        }
    }

    public func allows(_ address: String) -> Bool {
        let plain = address.hasPrefix("::ffff:") ? String(address.dropFirst(7)) : address
        let v4 = Self.ipv4(plain)
        return entries.contains { entry in
            switch entry {
            case .exact(let allowed): allowed == address || allowed == plain
            case .ipv4(let network, let mask): v4.map { $0 & mask == network } ?? false
            case .anyIPv6: address.contains(":") && v4 == nil
            }
        }
    }

    private static func isAddress(_ text: String) -> Bool {
        var buffer = in6_addr()
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }

    private static func ipv4(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard let byte = UInt8(part) else { return nil }
            value = value << 8 | UInt32(byte)
        }
        return value
    }
}
