import Contracts
import Messaging
import Runtime
import ServiceKit
import Storage

/// The `files` service: file bytes and metadata in its own database, received and sent in bounded parts
/// (`FileCommands`), with `file.stored` and `file.deleted` events through the outbox.
public enum FilesService {
    public static let definition = ServiceDefinition(
        name: .files,
        migrations: [OutboxMigration.migration, FilesMigrations.tables],
        registerCommands: { router, pool, calls, jobs in
            // Guessing at who may upload is worse than not starting: a malformed policy stops the service.
            let policy = try FileUploadPolicy.fromEnvironment()
            let cloud = try CloudTriggers.start(.files, calls: calls, jobs: &jobs)
            let handler = FileCommandHandler(store: FileStore(pool: pool), policy: policy, cloud: cloud)
            router.registerRaw(FileCommands.create) { command, _ in try await handler.create(command) }
            router.registerRaw(FileCommands.append) { command, _ in try await handler.append(command) }
            router.register(FileCommands.commit, FileCommitRequest.self) { command, _ in try await handler.commit(command) }
            router.register(FileCommands.abort, FileUploadReference.self) { command, _ in try await handler.abort(command) }
            router.register(FileCommands.info, FileNameReference.self) { command, _ in try await handler.info(command) }
            router.registerRaw(FileCommands.read) { command, _ in try await handler.read(command) }
            router.registerRaw(FileCommands.open) { command, _ in try await handler.open(command) }
            router.register(FileCommands.metadata, FileNameReference.self) { command, _ in
                try await handler.metadata(command)
            }
            router.register(FileCommands.delete, FileNameReference.self) { command, _ in try await handler.delete(command) }
        })
}
