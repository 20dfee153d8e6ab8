import Contracts
import ServiceKit
import Storage

/// The `auth` service: see ARCHITECTURE.md for what it owns. Its own commands are registered here as they land.
public enum AuthService {
    public static let definition = ServiceDefinition(
        name: .auth,
        migrations: [OutboxMigration.migration])
}
