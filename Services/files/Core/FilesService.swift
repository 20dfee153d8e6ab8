import Contracts
import ServiceKit
import Storage

/// The `files` service: see ARCHITECTURE.md for what it owns. Its own commands are registered here as they land.
public enum FilesService {
    public static let definition = ServiceDefinition(
        name: .files,
        migrations: [OutboxMigration.migration])
}
