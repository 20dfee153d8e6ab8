import Contracts
import Messaging
import Runtime
import ServiceKit
import Storage

/// The `files` service: file bytes and metadata in its own database, received and sent in bounded parts
/// (`FileCommands`), with `file.stored` and `file.deleted` events through the outbox.
public enum FilesService: BuildableService {
    public static let name = ServiceName.files

    /// Everything the service reads from its environment, read once at start.
    public struct Configuration: ServiceSettings {
        public var service: ServiceConfiguration
        var policy: FileUploadPolicy

        /// Guessing at who may upload is worse than not starting: a malformed policy stops the service.
        public static func fromEnvironment(_ env: Environment = Environment()) throws -> Configuration {
            Configuration(service: try ServiceConfiguration.fromEnvironment(.files, env),
                          policy: try FileUploadPolicy.fromEnvironment(env))
        }
    }

    public static let migrations: [Migration] = [OutboxMigration.migration, FilesMigrations.tables,
                                                 CacheGenerations.migration(version: 3), RuntimeSettings.migration(version: 4),
                                                 OutboxMigration.claims(version: 5)]

    /// The service's handlers over `bus` (Cloud Code triggers) and its database.
    public static func build(configuration: Configuration, bus: RPCClient, database pool: PostgresPool) -> ServiceHandlers {
        var handlers = ServiceHandlers()
        let cloud = CloudTriggers.start(configuration: configuration.service, calls: bus, pool: pool, jobs: &handlers.jobs)
        let settings = RuntimeSettings(pool: pool, owner: FilesRuntimeSettings(startUp: configuration.policy))
        let handler = FileCommandHandler(store: FileStore(pool: pool), policy: configuration.policy, cloud: cloud,
                                         settings: settings)
        var router = CommandRouter()
        settings.register(&router)
        CacheGenerations.register(&router, pool: pool)
        // The commands that may run a file trigger check the trigger list they decide with (reads run none).
        router.registerRaw(FileCommands.create) { command, _ in
            try await cloud.withCurrentRegistrations { try await handler.create(command) }
        }
        router.registerRaw(FileCommands.append) { command, _ in try await handler.append(command) }
        router.register(FileCommands.commit, FileCommitRequest.self) { command, _ in
            try await cloud.withCurrentRegistrations { try await handler.commit(command) }
        }
        router.register(FileCommands.abort, FileUploadReference.self) { command, _ in try await handler.abort(command) }
        router.register(FileCommands.info, FileNameReference.self) { command, _ in try await handler.info(command) }
        router.registerRaw(FileCommands.read) { command, _ in try await handler.read(command) }
        router.registerRaw(FileCommands.open) { command, _ in try await handler.open(command) }
        router.register(FileCommands.metadata, FileNameReference.self) { command, _ in
            try await handler.metadata(command)
        }
        router.register(FileCommands.delete, FileNameReference.self) { command, _ in
            try await cloud.withCurrentRegistrations { try await handler.delete(command) }
        }
        handlers.router = router
        return handlers
    }
}
