import ParseWire
import Query
import Runtime
import Storage

/// parse-server's `schema` option at start (`SchemaMigrations/DefinedSchemas.js`): each defined class is created or
/// brought to its definition through the same steps as `/schemas` (`SchemasHandler.apply`): missing fields and
/// indexes added, indexes not defined dropped, changed ones made again, the class-level permissions set, with
/// `addField: {}` so no client adds a field behind the definitions. parse-server closes `addField` on the classes
/// it was not given too; here they keep their permissions, so an app can define some classes and leave the
/// others as they were (the option, once removed, leaves nothing behind on them either). Fields the
/// database has beyond a definition are deleted with `deleteExtraFields`, a field of another type dropped and made
/// again with `recreateModifiedFields` (its values are lost); otherwise both are logged. The auth service's classes
/// (`_User`, `_Role`, `_Session`) are not kept here and are skipped, logged; a platform class (`_Installation`...)
/// only gains fields and indexes. A definition that cannot be applied stops the start, naming the class and field.
struct DefinedSchemas {
    let options: SchemaOptions
    let logger: Logger

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The `/schemas` bodies that bring `current` to `definition`, in order: a field made again is dropped in the
    /// first and added in the second, as parse-server does. `warnings` gets what is left as it is.
    static func plan(_ definition: [String: JSONValue], current: ClassSchema?, options: SchemaOptions,
                     warnings: inout [String]) throws -> [[String: JSONValue]] {
        let className = definition["className"]?.stringValue ?? ""
        let isPlatformClass = className.hasPrefix("_")
        var wanted: [String: FieldType] = [:]
        for (name, spec) in definition["fields"]?.objectValue ?? [:] where ClassSchema.systemFields[name] == nil {
            do {
                guard Names.isValidFieldName(name) else { throw ParseError(.invalidKeyName, "invalid field name: \(name)") }
                wanted[name] = try SchemasHandler.fieldType(spec)
            } catch let error as ParseError {
                throw Failure(description: "schema.definitions: \(className).\(name): \(error.message)")
            }
        }
        var first: [String: JSONValue] = [:], second: [String: JSONValue] = [:]
        for (name, type) in wanted.sorted(by: { $0.key < $1.key }) {
            guard let existing = current?.fields[name] else {
                first[name] = Self.spec(type)
                continue
            }
            guard existing != type else { continue }
            if options.recreateModifiedFields && !isPlatformClass {
                first[name] = .object(["__op": .string("Delete")])
                second[name] = Self.spec(type)
            } else {
                warnings.append("The field \"\(name)\" type differ between the schema and the database for \"\(className)\"; "
                                + "Schema is defined as \"\(type.description)\" and current database type is \"\(existing.description)\"")
            }
        }
        let extra = (current?.fields.keys.filter { wanted[$0] == nil } ?? []).sorted()
        if !extra.isEmpty, !isPlatformClass {
            if options.deleteExtraFields {
                for name in extra { first[name] = .object(["__op": .string("Delete")]) }
            } else if options.strict {
                warnings.append("The following fields exist in the database for \"\(className)\", but are missing in the schema : "
                                + "\"\(extra.joined(separator: "\" ,\""))\"")
            }
        }
        var firstIndexes: [String: JSONValue] = [:], secondIndexes: [String: JSONValue] = [:]
        let definedIndexes = definition["indexes"]?.objectValue ?? [:]
        for (name, spec) in definedIndexes where name != "_id_" {
            guard let existing = current?.indexes[name] else {
                firstIndexes[name] = spec
                continue
            }
            if existing != spec {
                firstIndexes[name] = .object(["__op": .string("Delete")])
                secondIndexes[name] = spec
            }
        }
        for name in current?.indexes.keys.sorted() ?? [] where name != "_id_" && definedIndexes[name] == nil && !isPlatformClass {
            firstIndexes[name] = .object(["__op": .string("Delete")])
        }
        var permissions = definition["classLevelPermissions"]?.objectValue
            ?? current?.classLevelPermissions ?? ClassSchema.defaultPermissions
        permissions["addField"] = .object([:])
        var bodies: [[String: JSONValue]] = [[
            "fields": .object(first), "indexes": .object(firstIndexes), "classLevelPermissions": .object(permissions),
        ]]
        if !second.isEmpty || !secondIndexes.isEmpty {
            bodies.append(["fields": .object(second), "indexes": .object(secondIndexes)])
        }
        return bodies
    }

    /// Applies every definition in one transaction, under a lock that makes replicas starting together take turns.
    func apply(on pool: PostgresPool) async throws {
        let definedNames = Set(options.definitions.compactMap { $0["className"]?.stringValue })
        let options = self.options
        let logger = self.logger
        let warnings = try await pool.transaction { connection -> [String] in
            var warnings: [String] = []
            _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtext('posts.defined-schemas'))")
            for definition in options.definitions {
                let className = definition["className"]?.stringValue ?? ""
                if AuthClassSchemas.all[className] != nil {
                    logger.warning("schema.definitions: the auth service keeps \(className); its definition is skipped")
                    continue
                }
                do {
                    try Names.requireClassName(className)
                    var current = try await SchemaStore.load(className, on: connection)
                    for body in try Self.plan(definition, current: current, options: options, warnings: &warnings) {
                        current = try await SchemasHandler.apply(body, to: current, className: className, on: connection)
                    }
                } catch let error as ParseError {
                    throw Failure(description: "schema.definitions: \(className) cannot be applied: \(error.message)")
                }
            }
            if options.strict {
                for schema in try await SchemaStore.loadAll(on: connection) where !definedNames.contains(schema.className) {
                    warnings.append("The class \"\(schema.className)\" is in the database but not defined in the schema")
                }
            }
            return warnings
        }
        for warning in warnings { logger.warning(warning) }
        logger.info("schema definitions applied", ["classes": String(options.definitions.count)])
    }

    private static func spec(_ type: FieldType) -> JSONValue {
        var spec: [String: JSONValue] = ["type": .string(type.kind.rawValue)]
        if let target = type.targetClass { spec["targetClass"] = .string(target) }
        return .object(spec)
    }
}
