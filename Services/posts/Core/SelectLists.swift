import Synchronization

/// The select lists (`ValueCodec.selectList`) of one version of a class's fields, built once per table alias and
/// shared by every copy of the schema: every read and every write's `RETURNING` names each stored field, and
/// building that text for each request was a visible part of a get's cost. A schema whose fields change gets a
/// new, empty one (`ClassSchema.fields`), so a list never outlives the fields it was built from.
final class SelectLists: Sendable {
    private let lists = Mutex<[String: String]>([:])

    func list(table: String, _ build: () -> String) -> String {
        if let list = lists.withLock({ $0[table] }) { return list }
        let list = build()
        lists.withLock { $0[table] = list }
        return list
    }
}
