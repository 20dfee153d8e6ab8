#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The socket address the daemon listens on, built from an IP literal. Host names are refused on purpose: a
/// name that resolves differently tomorrow must not silently widen what the server listens on.
struct BindAddress {
    private enum Storage {
        case v4(sockaddr_in)
        case v6(sockaddr_in6)
    }

    private let storage: Storage

    init(host: String, port: UInt16) throws(HTTPServerError) {
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            storage = .v4(v4)
            return
        }
        let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, literal, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            storage = .v6(v6)
            return
        }
        throw .cannotStart("bind address \"\(host)\" is not an IPv4 or IPv6 literal")
    }

    var isIPv6: Bool {
        if case .v6 = storage { return true }
        return false
    }

    func withSocketAddress<Result>(_ body: (UnsafeMutablePointer<sockaddr>) -> Result) -> Result {
        switch storage {
        case .v4(var address):
            return withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body)
            }
        case .v6(var address):
            return withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body)
            }
        }
    }

    /// "127.0.0.1", "::1", ...; "" for families other than IPv4 and IPv6.
    static func text(of address: UnsafePointer<sockaddr>) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = Int32(address.pointee.sa_family)
        let written: UnsafePointer<CChar>?
        switch family {
        case AF_INET:
            written = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                withUnsafePointer(to: v4.pointee.sin_addr) {
                    inet_ntop(AF_INET, $0, &buffer, socklen_t(buffer.count))
                }
            }
        case AF_INET6:
            written = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                withUnsafePointer(to: v6.pointee.sin6_addr) {
                    inet_ntop(AF_INET6, $0, &buffer, socklen_t(buffer.count))
                }
            }
        default:
            return ""
        }
        guard written != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
