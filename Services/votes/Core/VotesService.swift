import Contracts
import ServiceKit
import Storage

/// The `votes` service: see ARCHITECTURE.md for what it owns. Its own commands are registered here as they land.
public enum VotesService {
    public static let definition = ServiceDefinition(
        name: .votes,
        migrations: [OutboxMigration.migration])
}
