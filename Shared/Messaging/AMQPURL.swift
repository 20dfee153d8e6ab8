import Foundation

/// `amqp://user:password@host:port/vhost`, as RabbitMQ documents it. The vhost is percent-decoded
/// (`%2F` is `/`); an empty path means the default vhost `/`.
///
/// Several URLs separated by commas name the nodes of one cluster: the properties describe the first, and a
/// connection moves on to the next of `nodes` whenever the one it uses cannot be reached or goes away.
public struct AMQPURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String
    public var vhost: String
    /// The nodes after the first, in the order given.
    public var otherNodes: [AMQPURL] = []

    public init(_ text: String) throws {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let nodes = try parts.map { part in
            do { return try AMQPURL(single: part) } catch { throw MessagingError.invalidURL(parts.count == 1 ? text : part) }
        }
        self = nodes[0]
        otherNodes = Array(nodes.dropFirst())
    }

    private init(single text: String) throws {
        guard let components = URLComponents(string: text), components.scheme == "amqp",
              let host = components.host, !host.isEmpty else {
            throw MessagingError.invalidURL(text)
        }
        self.host = host
        self.port = components.port ?? 5672
        self.user = components.user ?? "guest"
        self.password = components.password ?? "guest"
        let path = components.percentEncodedPath
        self.vhost = path.isEmpty || path == "/" ? "/" : (String(path.dropFirst()).removingPercentEncoding ?? "/")
    }

    /// Every node, the first one included, each on its own.
    public var nodes: [AMQPURL] {
        var first = self
        first.otherNodes = []
        return [first] + otherNodes
    }

    /// Without the passwords, for logs.
    public var description: String {
        nodes.map { "amqp://\($0.user)@\($0.host):\($0.port)/\($0.vhost == "/" ? "" : $0.vhost)" }
            .joined(separator: ",")
    }
}
