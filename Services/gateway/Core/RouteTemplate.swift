/// The route of a request as a template (`classes/:className/:objectId`), for metric labels and the API request
/// counts: never the raw path or a class name, so the number of series stays bounded whatever clients send. Paths that fit no known route
/// fall into `unknown`, or `<route>/other` below a known first segment. Every template has a number (`index`), so
/// the metrics keep what they resolved per template in an array instead of looking strings up per request.
enum RouteTemplate {
    /// `route` is the path below the mount without its leading slash (`GatewayResponder.routePath`), nil for a
    /// path outside the mount.
    static func of(_ route: String?) -> String {
        names[index(of: route)]
    }

    /// The template's position in `names`.
    static func index(of route: String?) -> Int {
        guard let route else { return outsideMount }
        if route.isEmpty { return root }
        let utf8 = route.utf8
        let firstEnd = utf8.firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
        guard let entry = firstSegments[String(route[..<firstEnd])] else { return unknown }
        guard firstEnd != utf8.endIndex else { return entry.bare }
        let rest = route[route.index(after: firstEnd)...]
        let depth = 2 + rest.utf8.count(where: { $0 == UInt8(ascii: "/") })
        switch entry.deeper {
        case .named(let byDepth):
            return depth - 2 < byDepth.count ? byDepth[depth - 2] : entry.other
        case .literal(let seconds, let fallback):
            guard depth == 2 else { return entry.other }
            return seconds[String(rest)] ?? fallback ?? entry.other
        case .single:
            return entry.other
        }
    }

    /// Every template, in the order of their indices.
    static let names: [String] = tables.names
    private static let firstSegments = tables.firstSegments
    private static let outsideMount = tables.outsideMount
    private static let root = tables.root
    private static let unknown = tables.unknown

    /// Routes whose further segments are names or ids: the template for two segments, three, ...
    private static let named: [(String, [String])] = [
        ("classes", ["classes/:className", "classes/:className/:objectId"]),
        ("roles", ["roles/:objectId"]),
        ("installations", ["installations/:objectId"]),
        ("schemas", ["schemas/:className"]),
        ("aggregate", ["aggregate/:className"]),
        ("purge", ["purge/:className"]),
        ("files", ["files/:filename", "files/:appId/:filename"]),
        ("events", ["events/:eventName"]),
        ("functions", ["functions/:functionName"]),
        ("jobs", ["jobs/:jobName"]),
        ("push_audiences", ["push_audiences/:objectId"]),
        ("hooks", ["hooks/:kind", "hooks/:kind/:name"]),
        ("cloud_code", ["cloud_code/:kind", "cloud_code/:kind/:name"]),
    ]

    /// Routes with a fixed second segment (`users/me`, `health/ready`) or else an id.
    private static let literals: [(String, [String], fallback: String?)] = [
        ("users", ["me"], ":objectId"),
        ("sessions", ["me"], ":objectId"),
        ("health", ["ready"], nil),
        ("push", [], ":objectId"),
        ("analytics", ["requests", "active"], nil),
    ]

    private static let singles: [String] = [
        "login", "logout", "batch", "config", "serverInfo", "requestPasswordReset", "verifyPassword",
        "upgradeToRevocableSession", "verificationEmailRequest", "loginAs", "graphql", "scriptlog", "apps", "challenge", "settings",
        "graphql-config",
    ]

    /// What a first segment leads to: its own template, the templates below it, and `<first>/other`.
    private struct Entry {
        enum Deeper {
            case named([Int])
            case literal([String: Int], fallback: Int?)
            case single
        }

        var bare: Int
        var deeper: Deeper
        var other: Int
    }

    private struct Tables {
        var names: [String] = []
        var firstSegments: [String: Entry] = [:]
        var outsideMount = 0, root = 0, unknown = 0

        mutating func add(_ name: String) -> Int {
            names.append(name)
            return names.count - 1
        }
    }

    private static let tables: Tables = {
        var tables = Tables()
        tables.outsideMount = tables.add("outside_mount")
        tables.root = tables.add("/")
        tables.unknown = tables.add("unknown")
        for (first, templates) in named {
            let bare = tables.add(first)
            let below = templates.map { tables.add($0) }
            tables.firstSegments[first] = Entry(bare: bare, deeper: .named(below), other: tables.add(first + "/other"))
        }
        for (first, seconds, fallback) in literals {
            let bare = tables.add(first)
            let known = Dictionary(uniqueKeysWithValues: seconds.map { ($0, tables.add(first + "/" + $0)) })
            let fallbackIndex = fallback.map { tables.add(first + "/" + $0) }
            tables.firstSegments[first] = Entry(bare: bare, deeper: .literal(known, fallback: fallbackIndex),
                                                other: tables.add(first + "/other"))
        }
        for first in singles {
            tables.firstSegments[first] = Entry(bare: tables.add(first), deeper: .single, other: tables.add(first + "/other"))
        }
        return tables
    }()

    /// The method as a label: the ones HTTP defines, anything else `other`.
    static func method(_ method: String) -> String {
        methods[methodIndex(method)]
    }

    /// The method's position in `methods`.
    static func methodIndex(_ method: String) -> Int {
        methods.firstIndex(of: method) ?? methods.count - 1
    }

    /// The methods HTTP defines, the most used first, and `other` last.
    static let methods = ["GET", "POST", "PUT", "DELETE", "OPTIONS", "HEAD", "PATCH", "CONNECT", "TRACE", "other"]
}
