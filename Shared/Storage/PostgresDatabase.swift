import CLibPQ
import Runtime

/// Operations on a database as a whole rather than on its contents.
public enum PostgresDatabase {
    /// Creates the database named in `url` if it does not exist, by connecting to the maintenance
    /// database `postgres` on the same server with the same credentials. Tolerates a concurrent
    /// creation. Accepts only plain names (letters, digits, `_`, `-`; at most 63 bytes).
    public static func ensureExists(url: String, logger: Logger) async throws {
        let database = try name(in: url)
        try validate(database)
        // The "dbname" given after the URL overrides the URL's own.
        let maintenance = try await PostgresConnection.connect(
            parameters: ConnectionParameters(url: url, overrides: [("dbname", "postgres")]))
        do {
            try await create(database, on: maintenance, logger: logger)
            await maintenance.close()
        } catch {
            await maintenance.close()
            throw error
        }
    }

    /// The database name in a libpq URI or conninfo string.
    public static func name(in url: String) throws -> String {
        var errorText: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &errorText) else {
            let message = errorText.map { String(cString: $0) } ?? "cannot parse the database URL"
            PQfreemem(errorText)
            throw PostgresError(sqlState: "22023", message: message.trimmingTrailingNewlines())
        }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "dbname", let value = option.pointee.val {
                let name = String(cString: value)
                if !name.isEmpty { return name }
            }
            option += 1
        }
        throw PostgresError(sqlState: "3D000", message: "the database URL names no database")
    }

    private static func create(_ database: String, on maintenance: PostgresConnection, logger: Logger) async throws {
        let existing = try await maintenance.query("SELECT 1 FROM pg_database WHERE datname = $1", [database])
        guard existing.rows.isEmpty else { return }
        do {
            // CREATE DATABASE takes no parameters; the name was validated, then quoted.
            _ = try await maintenance.query("CREATE DATABASE \"\(database)\"")
            logger.info("created database", ["db.name": database])
        } catch let error as PostgresError
                    where error.sqlState == PostgresError.duplicateDatabase
                    || error.sqlState == PostgresError.uniqueViolation {
            // Another process created it between our check and our CREATE.
        }
    }

    private static func validate(_ database: String) throws {
        let allowed = database.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard allowed, database.utf8.count <= 63, let first = database.utf8.first,
              first != UInt8(ascii: "-"), !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw PostgresError(sqlState: "42602", message: "invalid database name \"\(database)\"")
        }
    }
}

private extension String {
    func trimmingTrailingNewlines() -> String {
        var text = self
        while text.last?.isNewline == true { text.removeLast() }
        return text
    }
}
