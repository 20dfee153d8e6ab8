import CLibPQ
import Runtime

/// Operations on a database as a whole rather than on its contents.
public enum PostgresDatabase {
    /// Creates the database named in `url` if it does not exist, by connecting to the maintenance
    /// database `postgres` on the same server with the same credentials. Tolerates a concurrent
    /// creation. Accepts only plain names (letters, digits, `_`, `-`; at most 63 bytes).
    /// `ownerOnly`: a database made now is closed to every role but its owner (the one `url` logs in as) and
    /// superusers, as the stack's own databases are set up for separate roles.
    public static func ensureExists(url: String, ownerOnly: Bool = false, logger: Logger) async throws {
        let database = try name(in: url)
        try validate(database)
        // The "dbname" given after the URL overrides the URL's own.
        let maintenance = try await PostgresConnection.connect(
            parameters: ConnectionParameters(url: url, overrides: [("dbname", "postgres")]))
        do {
            try await create(database, ownerOnly: ownerOnly, on: maintenance, logger: logger)
            await maintenance.close()
        } catch {
            await maintenance.close()
            throw error
        }
    }

    /// The database name in a libpq URI or conninfo string.
    public static func name(in url: String) throws -> String {
        guard let name = try options(of: url).first(where: { $0.keyword == "dbname" })?.value, !name.isEmpty else {
            throw PostgresError(sqlState: "3D000", message: "the database URL names no database")
        }
        return name
    }

    /// `url` (a libpq URI or conninfo string) naming `database` instead of its own, as a conninfo string: every
    /// other part (hosts, ports, user, options) as `url` has it.
    public static func url(_ url: String, database: String) throws -> String {
        try validate(database)
        var parts = try options(of: url).filter { $0.keyword != "dbname" }
        parts.append((keyword: "dbname", value: database))
        return parts.map { "\($0.keyword)='\(escaped($0.value))'" }.joined(separator: " ")
    }

    /// The keywords `url` sets, with their values.
    private static func options(of url: String) throws -> [(keyword: String, value: String)] {
        var errorText: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &errorText) else {
            let message = errorText.map { String(cString: $0) } ?? "cannot parse the database URL"
            PQfreemem(errorText)
            throw PostgresError(sqlState: "22023", message: message.trimmingTrailingNewlines())
        }
        defer { PQconninfoFree(options) }
        var found: [(keyword: String, value: String)] = []
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { found.append((String(cString: keyword), String(cString: value))) }
            option += 1
        }
        return found
    }

    /// A conninfo value between single quotes: backslash and quote escaped, as libpq reads them.
    private static func escaped(_ value: String) -> String {
        var text = ""
        for character in value {
            if character == "\\" || character == "'" { text.append("\\") }
            text.append(character)
        }
        return text
    }

    /// Drops the database named in `url` if it exists, closing the sessions still connected to it.
    public static func drop(url: String, logger: Logger) async throws {
        let database = try name(in: url)
        try validate(database)
        let maintenance = try await PostgresConnection.connect(
            parameters: ConnectionParameters(url: url, overrides: [("dbname", "postgres")]))
        do {
            _ = try await maintenance.query("DROP DATABASE IF EXISTS \"\(database)\" WITH (FORCE)")
            logger.info("dropped database", ["db.name": database])
            await maintenance.close()
        } catch {
            await maintenance.close()
            throw error
        }
    }

    /// The databases whose names start with `prefix`.
    public static func names(startingWith prefix: String, near url: String) async throws -> [String] {
        let maintenance = try await PostgresConnection.connect(
            parameters: ConnectionParameters(url: url, overrides: [("dbname", "postgres")]))
        do {
            let result = try await maintenance.query(
                "SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname", [prefix])
            await maintenance.close()
            return result.rows.compactMap { $0["datname"] }
        } catch {
            await maintenance.close()
            throw error
        }
    }

    private static func create(_ database: String, ownerOnly: Bool, on maintenance: PostgresConnection, logger: Logger) async throws {
        let existing = try await maintenance.query("SELECT 1 FROM pg_database WHERE datname = $1", [database])
        guard existing.rows.isEmpty else { return }
        do {
            // CREATE DATABASE takes no parameters; the name was validated, then quoted.
            _ = try await maintenance.query("CREATE DATABASE \"\(database)\"")
            if ownerOnly { _ = try await maintenance.query("REVOKE CONNECT, TEMPORARY ON DATABASE \"\(database)\" FROM PUBLIC") }
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
