import Contracts
import ServiceKit
import Storage

/// The `posts` service: see ARCHITECTURE.md for what it owns. Its own commands are registered here as they land.
public enum PostsService {
    public static let definition = ServiceDefinition(
        name: .posts,
        migrations: [OutboxMigration.migration])
}
