import Synchronization

/// Schemas this process has read, so a read costs one round trip instead of two. Never trusted blindly: every
/// read statement also returns the class's current fingerprint, and a mismatch reloads the schema and runs the
/// statement again (see `ObjectReader`); a create's INSERT runs only while the fingerprint is unchanged (see
/// `ObjectWriter`). Other writes read the schema inside their transaction. The service makes one at start
/// (`PostsService.build`) for its request handlers and its ballot handler.
final class SchemaCache: Sendable {
    private let entries = Mutex<[String: ClassSchema]>([:])

    func get(_ className: String) -> ClassSchema? { entries.withLock { $0[className] } }

    func set(_ schema: ClassSchema) { entries.withLock { $0[schema.className] = schema } }

    func remove(_ className: String) { _ = entries.withLock { $0.removeValue(forKey: className) } }
}
