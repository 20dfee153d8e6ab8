import Query
import Storage

/// How posts lays out `_Installation`'s table beyond parse-server's columns. Every installation write looks the
/// device's rows up by `installationId` or `deviceToken` (`InstallationRules`), so both have an index (parse-server
/// makes none; without them each write reads the whole class). A push that changes badges rewrites every row it
/// reaches; that rewrite stays a HOT update (no new index entry, the new version on the same page) only while the
/// page has room for it and no index covers a column it changes. So the table leaves room on each page, and
/// `badge` and `updatedAt` get no index made for queries.
enum InstallationTable {
    static let className = PlatformClasses.installation

    /// Percent of each page that inserts fill, the rest kept for updated versions of its rows. Devices register in
    /// turn with random objectIds and a push walks the objectId order, so a page's rows are rewritten by many of the
    /// push's page statements, each finding the versions the earlier ones left dead pruned: little room is needed
    /// then. A page whose rows one page statement rewrites together (a class imported in objectId order) needs
    /// room for all of them; this leaves room for about half, and the rest of its rows then go elsewhere.
    static let fillfactor = 70

    /// The fields `InstallationRules` looks rows up by.
    static let lookupFields = ["installationId", "deviceToken"]

    /// What a push's badge change writes.
    static let pushWrittenFields: Set<String> = ["badge", "updatedAt"]

    /// Not recorded in the class's schema: parse-server lists no such index, and the schema API cannot drop it.
    static func indexName(_ field: String) -> String { "\(className)_\(field)_lookup" }

    static func createIndexSQL(_ field: String) -> String {
        "CREATE INDEX IF NOT EXISTS \(Names.quoted(indexName(field))) ON \(Names.table(className)) (\(Names.quoted(field)))"
    }

    static let storageSQL = "ALTER TABLE \(Names.table(className)) SET (fillfactor = \(fillfactor))"

    /// The statements that follow adding `field`'s column to `className`'s table.
    static func afterAddingColumn(_ field: String, className: String) -> [String] {
        className == self.className && lookupFields.contains(field) ? [createIndexSQL(field)] : []
    }

    /// Whether a query on `field` of `className` must not make an index for it: the look-up fields have theirs,
    /// and one on what a push writes would make every badge update write an entry into it.
    static func takesNoQueryIndex(_ field: String, className: String) -> Bool {
        className == self.className && (lookupFields.contains(field) || pushWrittenFields.contains(field))
    }

    /// For databases whose class was made before: the page room applies to pages filled from now on, the indexes
    /// are built at once (the migration holds the table's write lock meanwhile).
    static let migration = Migration(version: 12, name: "installation look-up indexes", sql: """
        DO $$ BEGIN
            IF to_regclass('\(Names.table(className))') IS NOT NULL THEN
                EXECUTE '\(storageSQL)';
                \(lookupFields.map { field in """
                IF EXISTS (SELECT 1 FROM information_schema.columns
                           WHERE table_schema = 'classes' AND table_name = '\(className)' AND column_name = '\(field)') THEN
                        EXECUTE '\(createIndexSQL(field))';
                    END IF;
                """ }.joined(separator: "\n            "))
            END IF;
        END $$;
        """)
}
