// swift-tools-version:6.0
// Swift 6 language mode: strict concurrency checking is an error, not a warning.
import PackageDescription

let services = ["auth", "posts", "votes", "files", "cloud"]

func serviceTargets(_ name: String) -> [Target] {
    let title = name.prefix(1).uppercased() + name.dropFirst()
    let core = title + "Core"
    let extra: [Target.Dependency] = name == "auth" ? ["CCrypt", "CCurl", "CLibCrypto", "HTTPClient"] : name == "cloud" ? ["HTTPClient"] : []
    let usesQueries = name == "auth" || name == "posts"
    // posts keeps the GraphQL configuration and checks it with the GraphQL API's own rules.
    let usesGraphQL = name == "posts"
    return [
        .target(name: core, dependencies: ["ServiceKit", "Contracts", "ParseWire", "Storage", "Runtime", "Messaging", "Metrics"] + extra
                    + (usesQueries ? ["Query"] : []) + (usesGraphQL ? ["ParseGraphQL"] : []),
                path: "Services/\(name)/Core"),
        .executableTarget(name: name, dependencies: [.target(name: core), "ServiceKit", "Runtime"],
                          path: "Services/\(name)/App"),
        .testTarget(name: title + "Tests",
                    dependencies: [.target(name: core), "ServiceKit", "Contracts", "ParseWire", "Storage", "Runtime", "Messaging",
                                   "ScratchDatabase", "TestDoubles"] + (usesQueries ? ["Query"] : []),
                    path: "Tests/\(title)Tests"),
    ]
}

let package = Package(
    name: "parse-swift-backend",
    products: [
        .executable(name: "gateway", targets: ["gateway"]),
    ] + services.map { .executable(name: $0, targets: [$0]) } + [.executable(name: "parse-import", targets: ["parse-import"]),
                                                          .executable(name: "vote-consumer", targets: ["vote-consumer"]),
                                                          .executable(name: "dead-letters", targets: ["dead-letters"]),
                                                          .executable(name: "push-adapter", targets: ["push-adapter"]),
                                                          .executable(name: "live", targets: ["live"]),
                                                          .executable(name: "cloud-example-worker", targets: ["cloud-example-worker"]),
                                                          .library(name: "ParseCloud", targets: ["ParseCloud"])],
    targets: [
        // C libraries from the OS (Debian: libpq-dev, librabbitmq-dev, libmicrohttpd-dev, pkgconf).
        .systemLibrary(name: "CLibPQ", path: "Shared/CLibPQ", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CRabbitMQ", path: "Shared/CRabbitMQ", pkgConfig: "librabbitmq",
                       providers: [.apt(["librabbitmq-dev"])]),
        .systemLibrary(name: "CCrypt", path: "Shared/CCrypt", pkgConfig: "libcrypt",
                       providers: [.apt(["libcrypt-dev"])]),
        .systemLibrary(name: "CLibCrypto", path: "Shared/CLibCrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        // epoll and eventfd, which Glibc's module leaves out (no library to link).
        .systemLibrary(name: "CEpoll", path: "Shared/CEpoll"),
        // glibc's malloc_trim, which Glibc's module leaves out (no library to link).
        .systemLibrary(name: "CMalloc", path: "Shared/CMalloc"),
        // libcurl (Debian: libcurl4-openssl-dev): the SMTP client for verification and password reset mails, and the HTTP client for providers' keys and APIs.
        .systemLibrary(name: "CCurl", path: "Shared/CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", path: "Shared/CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),
        // PCRE2 (Debian: libpcre2-dev): `$regex` matched in memory by live, with match and depth limits.
        .systemLibrary(name: "CPCRE2", path: "Shared/CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"])]),

        .target(name: "ParseWire", dependencies: ["Runtime"], path: "Shared/ParseWire"),
        .target(name: "Contracts", dependencies: ["ParseWire"], path: "Shared/Contracts"),
        .target(name: "Runtime", dependencies: ["CMalloc"], path: "Shared/Runtime"),
        .target(name: "Storage", dependencies: ["CLibPQ", "Runtime", "Metrics"], path: "Shared/Storage"),
        .target(name: "Messaging", dependencies: ["CRabbitMQ", "Contracts", "ParseWire", "Runtime", "Metrics"],
                path: "Shared/Messaging"),
        // Parse queries (`where`, `order`, `keys`...) to parameterised SQL, for any service that stores objects.
        .target(name: "Query", dependencies: ["Contracts", "ParseWire", "Storage", "CPCRE2"], path: "Shared/Query"),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "Runtime"], path: "Shared/HTTPServer"),
        .target(name: "HTTPClient", dependencies: ["CCurl", "Runtime"], path: "Shared/HTTPClient"),
        // Prometheus metrics of the process (counters, gauges, histograms, /proc figures) and their text format.
        .target(name: "Metrics", path: "Shared/Metrics"),
        // `GET /metrics` over Shared/HTTPServer: the gateway's page and the backend services' metrics port.
        .target(name: "MetricsHTTP", dependencies: ["Metrics", "HTTPServer", "Runtime"], path: "Shared/MetricsHTTP"),
        .target(name: "ServiceKit", dependencies: ["Messaging", "Storage", "Contracts", "ParseWire", "Runtime", "Metrics",
                                                   "MetricsHTTP", "Query"],
                path: "Shared/ServiceKit"),

        .target(name: "GatewayCore", dependencies: ["HTTPServer", "Messaging", "Contracts", "ParseWire", "Runtime", "Metrics",
                                                    "MetricsHTTP", "Storage", "CCrypt", "CLibCrypto", "GraphQL", "ParseGraphQL"],
                path: "Services/gateway/Core"),
        .executableTarget(name: "gateway", dependencies: ["GatewayCore", "Runtime"], path: "Services/gateway/App"),
        // Loads a Parse JSON export into a class through the public REST API.
        .executableTarget(name: "parse-import", dependencies: ["ParseWire", "HTTPClient"], path: "Services/import"),
        // The app registry's API from the command line (compose's one-off container, deploy/stack app).
        .executableTarget(name: "parse-apps", dependencies: ["HTTPClient"], path: "Services/apps-admin"),
        .executableTarget(name: "json-bench", dependencies: ["Contracts", "ParseWire"], path: "bench/json"),
        // bench/live.sh's fan-out client: reads every subscriber on one thread (bench/live.md).
        .executableTarget(name: "live-fanout-client", dependencies: ["CEpoll", "ParseWire"], path: "bench/live-client"),
        // Downstream consumer of vote events (example and operations tool): prints, forwards or replays them.
        .executableTarget(name: "vote-consumer", dependencies: ["Messaging", "Contracts", "ParseWire", "Runtime", "HTTPClient"],
                          path: "Services/vote-consumer"),

        // Operators' tool for the commands kept in `<queue>.dead`: count, list, requeue, purge.
        .executableTarget(name: "dead-letters", dependencies: ["Messaging", "Contracts", "ParseWire", "Runtime"],
                          path: "Services/dead-letters"),
        // Delivers `push.requested.v1` events to an HTTP endpoint per device type and reports the results to posts.
        .target(name: "PushAdapterCore", dependencies: ["Messaging", "Contracts", "ParseWire", "Runtime", "HTTPClient"],
                path: "Services/push-adapter/Core"),
        .executableTarget(name: "push-adapter", dependencies: ["PushAdapterCore", "Runtime", "MetricsHTTP"],
                          path: "Services/push-adapter/App"),
        .testTarget(name: "PushAdapterTests", dependencies: ["PushAdapterCore", "Contracts", "ParseWire"],
                    path: "Tests/PushAdapterTests"),
        // Parse LiveQuery over WebSocket: subscriptions in memory, fed by object and vote events.
        .target(name: "LiveCore", dependencies: ["CLibCrypto", "CEpoll", "Messaging", "Contracts", "ParseWire", "Query", "Runtime",
                                                 "MetricsHTTP", "GraphQL", "ParseGraphQL"],
                path: "Services/live/Core"),
        .executableTarget(name: "live", dependencies: ["LiveCore", "Runtime"], path: "Services/live/App"),
        .testTarget(name: "LiveTests", dependencies: ["LiveCore", "ParseWire", "Contracts", "Query", "GraphQL", "Runtime"], path: "Tests/LiveTests"),

        // Cloud Code workers in Swift: define functions, jobs and triggers, serve them from a queue, call the API back.
        .target(name: "ParseCloud", dependencies: ["HTTPClient", "Messaging", "Contracts", "ParseWire", "Runtime"],
                path: "Shared/ParseCloud"),
        .executableTarget(name: "cloud-example-worker", dependencies: ["ParseCloud", "ParseWire", "Runtime"],
                          path: "Services/cloud-example-worker"),
        .testTarget(name: "ParseCloudTests", dependencies: ["ParseCloud", "Contracts", "ParseWire", "Runtime"], path: "Tests/ParseCloudTests"),

        // GraphQL's language and execution, written here since no GraphQL library is available to the project.
        .target(name: "GraphQL", dependencies: ["ParseWire"], path: "Shared/GraphQL"),
        .testTarget(name: "GraphQLTests", dependencies: ["GraphQL"], path: "Tests/GraphQLTests"),
        // parse-server's GraphQL API over a Parse schema: its types, queries and mutations, resolved by REST calls.
        .target(name: "ParseGraphQL", dependencies: ["GraphQL", "ParseWire", "Runtime"], path: "Shared/ParseGraphQL"),
        .testTarget(name: "ParseGraphQLTests", dependencies: ["ParseGraphQL", "GraphQL", "ParseWire"], path: "Tests/ParseGraphQLTests"),

        // Scratch databases for the test targets that need a schema of their own; no product uses it.
        .target(name: "ScratchDatabase", dependencies: ["Storage", "Runtime"], path: "Tests/Support"),
        // In-memory stand-ins for the bus and the database, for unit tests of what runs over them.
        .target(name: "TestDoubles", dependencies: ["Messaging", "Contracts", "ParseWire", "Runtime", "Storage"],
                path: "Tests/TestDoubles"),
        .testTarget(name: "MetricsTests", dependencies: ["Metrics", "MetricsHTTP", "HTTPServer", "Runtime"],
                    path: "Tests/MetricsTests"),
        .testTarget(name: "ParseWireTests", dependencies: ["ParseWire", "Contracts", "Runtime", "TestDoubles"],
                    path: "Tests/ParseWireTests"),
        .testTarget(name: "QueryTests", dependencies: ["Query", "Contracts", "ParseWire", "Storage", "Runtime", "ScratchDatabase", "TestDoubles"],
                    path: "Tests/QueryTests"),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "Runtime"], path: "Tests/StorageTests"),
        .testTarget(name: "MessagingTests", dependencies: ["Messaging", "Contracts", "ParseWire", "Runtime"],
                    path: "Tests/MessagingTests"),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer"], path: "Tests/HTTPServerTests"),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "HTTPServer"], path: "Tests/HTTPClientTests"),
        .testTarget(name: "GatewayTests", dependencies: ["GatewayCore", "HTTPServer", "Messaging", "Contracts", "ParseWire", "Runtime",
                                                     "TestDoubles", "Metrics", "CCrypt", "GraphQL"],
                    path: "Tests/GatewayTests"),
        .testTarget(name: "ServiceKitTests", dependencies: ["ServiceKit", "Runtime", "Storage", "ScratchDatabase", "Contracts", "Messaging",
                                                       "ParseWire"],
                    path: "Tests/ServiceKitTests"),
        .testTarget(name: "SystemTests", dependencies: ["GatewayCore", "AuthCore", "PostsCore", "VotesCore", "FilesCore", "ServiceKit",
                                                  "HTTPServer", "Messaging", "Contracts", "ParseWire", "Runtime", "Storage",
                                                  "ScratchDatabase", "TestDoubles"],
                    path: "Tests/SystemTests"),
        .testTarget(name: "IntegrationTests", dependencies: ["ParseWire", "Contracts", "HTTPServer", "Messaging", "Runtime",
                                                         "TestDoubles"],
                    path: "Tests/IntegrationTests",
                    exclude: ["Scripts"]),
    ] + services.flatMap(serviceTargets)
)
