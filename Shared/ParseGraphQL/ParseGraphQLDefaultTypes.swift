import GraphQL
import ParseWire

/// The types every Parse GraphQL schema has, named and shaped as parse-server's `defaultGraphQLTypes` and
/// graphql-relay's make them: Parse's scalars (`Date`, `Bytes`, `File`, `Object`, `Any`), geo points, ACLs, the
/// `ParseObject` and `Node` interfaces, paging and the constraint inputs each field type is queried with.
enum ParseGraphQLDefaultTypes {
    static func nonNull(_ name: String) -> GraphQLTypeReference { .nonNull(.named(name)) }
    static func listOf(_ name: String) -> GraphQLTypeReference { .list(.nonNull(.named(name))) }

    static var all: [GraphQLNamedType] {
        [upload, any, object, date, bytes, file, fileInfo, fileInput, geoPointInput, geoPoint, parseObject, readPreference,
         readOptionsInput, searchInput, textInput, boxInput, withinInput, centerSphereInput, geoWithinInput,
         geoIntersectsInput] + whereInputs + [element, aclInput, userACLInput, roleACLInput, publicACLInput, acl, userACL,
         roleACL, publicACL, subqueryInput, selectInput, node, pageInfo]
    }

    // MARK: Scalars

    /// Files sent beside the operation (the GraphQL multipart request), as graphql-upload names them.
    static let upload = GraphQLNamedType.scalar("Upload", description: "The `Upload` scalar type represents a file upload.",
                                                serialize: { _ in nil },
                                                parse: { value in if case .int? = value["__upload"] { value } else { nil } })

    static let any = GraphQLNamedType.scalar(
        "Any", description: "The Any scalar type is used in operations and types that involve any type of value.",
        serialize: { $0.sortingKeys })

    static let object = GraphQLNamedType.scalar(
        "Object", description: "The Object scalar type is used in operations and types that involve objects.",
        serialize: { isObjectLike($0)?.sortingKeys }, parse: isObjectLike)

    private static func isObjectLike(_ value: GraphQLData) -> GraphQLData? {
        switch value {
        case .object, .list: value
        default: nil
        }
    }

    static let date = GraphQLNamedType.scalar(
        "Date", description: "The Date scalar type is used in operations and types that involve dates.",
        serialize: { value in
            switch value {
            case .string: value
            case .object where value["__type"] == .string("Date"): value["iso"].flatMap { $0.stringValue.map(GraphQLData.string) }
            default: nil
            }
        },
        parse: { value in
            let iso: String? = switch value {
            case .string(let text): text
            case .object where value["__type"] == .string("Date"): value["iso"]?.stringValue
            default: nil
            }
            guard let iso, ParseDate.date(from: iso) != nil else { return nil }
            return .object([GraphQLObjectMember("__type", .string("Date")), GraphQLObjectMember("iso", .string(iso))])
        })

    static let bytes = GraphQLNamedType.scalar(
        "Bytes", description: "The Bytes scalar type is used in operations and types that involve base 64 binary data.",
        serialize: { value in
            switch value {
            case .string: value
            case .object where value["__type"] == .string("Bytes"): value["base64"].flatMap { $0.stringValue.map(GraphQLData.string) }
            default: nil
            }
        },
        parse: { value in
            switch value {
            case .string: .object([GraphQLObjectMember("__type", .string("Bytes")), GraphQLObjectMember("base64", value)])
            case .object where value["__type"] == .string("Bytes") && value["base64"]?.stringValue != nil: value
            default: nil
            }
        })

    static let file = GraphQLNamedType.scalar(
        "File", description: "The File scalar type is used in operations and types that involve files.",
        serialize: { value in
            switch value {
            case .string: value
            case .object where value["__type"] == .string("File"): value["name"].flatMap { $0.stringValue.map(GraphQLData.string) }
            default: nil
            }
        },
        parse: { value in
            switch value {
            case .string: .object([GraphQLObjectMember("__type", .string("File")), GraphQLObjectMember("name", value)])
            case .object where value["__type"] == .string("File") && value["name"]?.stringValue != nil: value
            default: nil
            }
        })

    // MARK: Objects, inputs and interfaces

    static let fileInfo = GraphQLNamedType.object("FileInfo", description: "The FileInfo object type is used to return the information about files.", fields: [
        GraphQLFieldDefinition("name", nonNull("String"), description: "This is the file name."),
        GraphQLFieldDefinition("url", nonNull("String"), description: "This is the url in which the file can be downloaded."),
    ])

    static let fileInput = GraphQLNamedType.inputObject("FileInput", description: "If this field is set to null the file will be unlinked (the file will not be deleted on cloud storage).", fields: [
        GraphQLArgumentDefinition("file", .named("File"), description: "A File Scalar can be an url or a FileInfo object."),
        GraphQLArgumentDefinition("upload", .named("Upload"), description: "Use this field if you want to create a new file."),
    ])

    static let geoPointInput = GraphQLNamedType.inputObject("GeoPointInput", fields: [
        GraphQLArgumentDefinition("latitude", nonNull("Float"), description: "This is the latitude."),
        GraphQLArgumentDefinition("longitude", nonNull("Float"), description: "This is the longitude."),
    ])

    static let geoPoint = GraphQLNamedType.object("GeoPoint", fields: [
        GraphQLFieldDefinition("latitude", nonNull("Float"), description: "This is the latitude."),
        GraphQLFieldDefinition("longitude", nonNull("Float"), description: "This is the longitude."),
    ])

    static let userACLInput = GraphQLNamedType.inputObject("UserACLInput", description: "Allow to manage users in ACL.", fields: [
        GraphQLArgumentDefinition("userId", nonNull("ID")), GraphQLArgumentDefinition("read", nonNull("Boolean")),
        GraphQLArgumentDefinition("write", nonNull("Boolean")),
    ])
    static let roleACLInput = GraphQLNamedType.inputObject("RoleACLInput", description: "Allow to manage roles in ACL.", fields: [
        GraphQLArgumentDefinition("roleName", nonNull("String")), GraphQLArgumentDefinition("read", nonNull("Boolean")),
        GraphQLArgumentDefinition("write", nonNull("Boolean")),
    ])
    static let publicACLInput = GraphQLNamedType.inputObject("PublicACLInput", description: "Allow to manage public rights.", fields: [
        GraphQLArgumentDefinition("read", nonNull("Boolean")), GraphQLArgumentDefinition("write", nonNull("Boolean")),
    ])
    static let aclInput = GraphQLNamedType.inputObject("ACLInput", description: "Allow to manage access rights. If not provided object will be publicly readable and writable", fields: [
        GraphQLArgumentDefinition("users", listOf("UserACLInput")), GraphQLArgumentDefinition("roles", listOf("RoleACLInput")),
        GraphQLArgumentDefinition("public", .named("PublicACLInput")),
    ])

    static let userACL = GraphQLNamedType.object("UserACL", fields: [
        GraphQLFieldDefinition("userId", nonNull("ID")), GraphQLFieldDefinition("read", nonNull("Boolean")),
        GraphQLFieldDefinition("write", nonNull("Boolean")),
    ])
    static let roleACL = GraphQLNamedType.object("RoleACL", fields: [
        GraphQLFieldDefinition("roleName", nonNull("ID")), GraphQLFieldDefinition("read", nonNull("Boolean")),
        GraphQLFieldDefinition("write", nonNull("Boolean")),
    ])
    static let publicACL = GraphQLNamedType.object("PublicACL", fields: [
        GraphQLFieldDefinition("read", .named("Boolean")), GraphQLFieldDefinition("write", .named("Boolean")),
    ])

    /// A Parse ACL (`{"*": {...}, "<userId>": {...}, "role:<name>": {...}}`) as users, roles and public rights.
    static let acl = GraphQLNamedType.object("ACL", description: "Current access control list of the current object.", fields: [
        GraphQLFieldDefinition("users", listOf("UserACL"), resolve: { source, _, _ in
            let rules = aclRules(source).filter { $0.key != "*" && !$0.key.hasPrefix("role:") }
            return rules.isEmpty ? GraphQLData.null : GraphQLData.list(rules.map { rule in
                .object([GraphQLObjectMember("userId", .string(RelayIdentifiers.globalID(className: "_User", objectId: rule.key))),
                         GraphQLObjectMember("read", .boolean(rule.value["read"] == .boolean(true))),
                         GraphQLObjectMember("write", .boolean(rule.value["write"] == .boolean(true)))])
            })
        }),
        GraphQLFieldDefinition("roles", listOf("RoleACL"), resolve: { source, _, _ in
            let rules = aclRules(source).filter { $0.key.hasPrefix("role:") }
            return rules.isEmpty ? GraphQLData.null : GraphQLData.list(rules.map { rule in
                .object([GraphQLObjectMember("roleName", .string(String(rule.key.dropFirst(5)))),
                         GraphQLObjectMember("read", .boolean(rule.value["read"] == .boolean(true))),
                         GraphQLObjectMember("write", .boolean(rule.value["write"] == .boolean(true)))])
            })
        }),
        GraphQLFieldDefinition("public", .named("PublicACL"), resolve: { source, _, _ in
            guard let rule = aclRules(source).first(where: { $0.key == "*" }) else { return GraphQLData.null }
            return GraphQLData.object([GraphQLObjectMember("read", .boolean(rule.value["read"] == .boolean(true))),
                                       GraphQLObjectMember("write", .boolean(rule.value["write"] == .boolean(true)))])
        }),
    ])

    private static func aclRules(_ source: any Sendable) -> [GraphQLObjectMember] {
        (source as? GraphQLData)?.objectMembers ?? []
    }

    /// An object's ACL as its type's `ACL` field gives it: public read and write when it has none.
    static func aclOf(_ object: any Sendable) -> GraphQLData {
        if let acl = (object as? GraphQLData)?["ACL"], !acl.isNull { return acl }
        let everyone = GraphQLData.object([GraphQLObjectMember("read", .boolean(true)), GraphQLObjectMember("write", .boolean(true))])
        return .object([GraphQLObjectMember("*", everyone)])
    }

    /// The fields of every Parse object, on the `ParseObject` interface and each class's type.
    static var parseObjectFields: [GraphQLFieldDefinition] {
        [GraphQLFieldDefinition("objectId", nonNull("ID"), description: "This is the object id. You can use either the global or the object id."),
         GraphQLFieldDefinition("createdAt", nonNull("Date"), description: "This is the date in which the object was created."),
         GraphQLFieldDefinition("updatedAt", nonNull("Date"), description: "This is the date in which the object was las updated."),
         GraphQLFieldDefinition("ACL", nonNull("ACL"), description: "This is the access control list of the object.",
                                resolve: { source, _, _ in aclOf(source) })]
    }

    static let parseObject = GraphQLNamedType.interface(
        "ParseObject", description: "The ParseObject interface type is used as a base type for the auto generated object types.",
        fields: parseObjectFields, resolveType: classTypeName)

    static let node = GraphQLNamedType.interface("Node", description: "An object with an ID", fields: [
        GraphQLFieldDefinition("id", nonNull("ID"), description: "The id of the object."),
    ], resolveType: classTypeName)

    /// The type of a Parse object (`className` in it, as found objects and `node` carry it).
    static func classTypeName(_ value: any Sendable, _ schema: GraphQLSchema) -> String? {
        (value as? GraphQLData)?["className"]?.stringValue.map(ParseClassDefinition.graphQLName(of:))
    }

    static let pageInfo = GraphQLNamedType.object("PageInfo", description: "Information about pagination in a connection.", fields: [
        GraphQLFieldDefinition("hasNextPage", nonNull("Boolean"), description: "When paginating forwards, are there more items?"),
        GraphQLFieldDefinition("hasPreviousPage", nonNull("Boolean"), description: "When paginating backwards, are there more items?"),
        GraphQLFieldDefinition("startCursor", .named("String"), description: "When paginating backwards, the cursor to continue."),
        GraphQLFieldDefinition("endCursor", .named("String"), description: "When paginating forwards, the cursor to continue."),
    ])

    static let readPreference = GraphQLNamedType.enumeration("ReadPreference", description: "The ReadPreference enum type is used in queries in order to select in which database replica the operation must run.", values: [
        GraphQLEnumValueDefinition("PRIMARY"), GraphQLEnumValueDefinition("PRIMARY_PREFERRED"), GraphQLEnumValueDefinition("SECONDARY"),
        GraphQLEnumValueDefinition("SECONDARY_PREFERRED"), GraphQLEnumValueDefinition("NEAREST"),
    ])

    static let readOptionsInput = GraphQLNamedType.inputObject("ReadOptionsInput", description: "The ReadOptionsInputt type is used in queries in order to set the read preferences.", fields: [
        GraphQLArgumentDefinition("readPreference", .named("ReadPreference")),
        GraphQLArgumentDefinition("includeReadPreference", .named("ReadPreference")),
        GraphQLArgumentDefinition("subqueryReadPreference", .named("ReadPreference")),
    ])

    static let searchInput = GraphQLNamedType.inputObject("SearchInput", fields: [
        GraphQLArgumentDefinition("term", nonNull("String")), GraphQLArgumentDefinition("language", .named("String")),
        GraphQLArgumentDefinition("caseSensitive", .named("Boolean")), GraphQLArgumentDefinition("diacriticSensitive", .named("Boolean")),
    ])
    static let textInput = GraphQLNamedType.inputObject("TextInput", fields: [GraphQLArgumentDefinition("search", nonNull("SearchInput"))])
    static let boxInput = GraphQLNamedType.inputObject("BoxInput", fields: [
        GraphQLArgumentDefinition("bottomLeft", nonNull("GeoPointInput")), GraphQLArgumentDefinition("upperRight", nonNull("GeoPointInput")),
    ])
    static let withinInput = GraphQLNamedType.inputObject("WithinInput", fields: [GraphQLArgumentDefinition("box", nonNull("BoxInput"))])
    static let centerSphereInput = GraphQLNamedType.inputObject("CenterSphereInput", fields: [
        GraphQLArgumentDefinition("center", nonNull("GeoPointInput")), GraphQLArgumentDefinition("distance", nonNull("Float")),
    ])
    static let geoWithinInput = GraphQLNamedType.inputObject("GeoWithinInput", fields: [
        GraphQLArgumentDefinition("polygon", listOf("GeoPointInput")), GraphQLArgumentDefinition("centerSphere", .named("CenterSphereInput")),
    ])
    static let geoIntersectsInput = GraphQLNamedType.inputObject("GeoIntersectsInput", fields: [
        GraphQLArgumentDefinition("point", .named("GeoPointInput")),
    ])
    static let subqueryInput = GraphQLNamedType.inputObject("SubqueryInput", fields: [
        GraphQLArgumentDefinition("className", nonNull("String")), GraphQLArgumentDefinition("where", nonNull("Object")),
    ])
    static let selectInput = GraphQLNamedType.inputObject("SelectInput", fields: [
        GraphQLArgumentDefinition("query", nonNull("SubqueryInput")), GraphQLArgumentDefinition("key", nonNull("String")),
    ])
    static let keyValueInput = GraphQLNamedType.inputObject("KeyValueInput", fields: [
        GraphQLArgumentDefinition("key", nonNull("String")), GraphQLArgumentDefinition("value", nonNull("Any")),
    ])
    static let element = GraphQLNamedType.object("Element", description: "The Element object type is used to return array items' value.", fields: [
        GraphQLFieldDefinition("value", nonNull("Any"), description: "Return the value of the element in the array"),
    ])

    // MARK: Constraints

    /// `equalTo` ... `notIn` of a type, as each `<Type>WhereInput` has them.
    private static func comparisons(_ type: String, ordered: Bool = true) -> [GraphQLArgumentDefinition] {
        var fields = [GraphQLArgumentDefinition("equalTo", .named(type)), GraphQLArgumentDefinition("notEqualTo", .named(type))]
        if ordered {
            fields += ["lessThan", "lessThanOrEqualTo", "greaterThan", "greaterThanOrEqualTo"].map { GraphQLArgumentDefinition($0, .named(type)) }
            fields += [GraphQLArgumentDefinition("in", .list(.named(type))), GraphQLArgumentDefinition("notIn", .list(.named(type)))]
        }
        return fields
    }

    private static let exists = GraphQLArgumentDefinition("exists", .named("Boolean"))
    private static let subqueryKeys = [GraphQLArgumentDefinition("inQueryKey", .named("SelectInput")),
                                       GraphQLArgumentDefinition("notInQueryKey", .named("SelectInput"))]
    private static let regex = [GraphQLArgumentDefinition("matchesRegex", .named("String")), GraphQLArgumentDefinition("options", .named("String"))]

    static let whereInputs: [GraphQLNamedType] = [
        .inputObject("IdWhereInput", fields: comparisons("ID") + [exists] + subqueryKeys),
        .inputObject("StringWhereInput", fields: comparisons("String") + [exists] + regex
                        + [GraphQLArgumentDefinition("text", .named("TextInput"))] + subqueryKeys),
        .inputObject("NumberWhereInput", fields: comparisons("Float") + [exists] + subqueryKeys),
        .inputObject("BooleanWhereInput", fields: comparisons("Boolean", ordered: false) + [exists] + subqueryKeys),
        .inputObject("ArrayWhereInput", fields: comparisons("Any") + [exists, GraphQLArgumentDefinition("containedBy", .list(.named("Any"))),
                                                                      GraphQLArgumentDefinition("contains", .list(.named("Any")))] + subqueryKeys),
        keyValueInput,
        .inputObject("ObjectWhereInput", fields: [GraphQLArgumentDefinition("equalTo", .named("KeyValueInput")),
                                                  GraphQLArgumentDefinition("notEqualTo", .named("KeyValueInput")),
                                                  GraphQLArgumentDefinition("in", .list(.named("KeyValueInput"))),
                                                  GraphQLArgumentDefinition("notIn", .list(.named("KeyValueInput")))]
                        + ["lessThan", "lessThanOrEqualTo", "greaterThan", "greaterThanOrEqualTo"].map { GraphQLArgumentDefinition($0, .named("KeyValueInput")) }
                        + [exists] + subqueryKeys),
        .inputObject("DateWhereInput", fields: comparisons("Date") + [exists] + subqueryKeys),
        .inputObject("BytesWhereInput", fields: comparisons("Bytes") + [exists] + subqueryKeys),
        .inputObject("FileWhereInput", fields: comparisons("File") + [exists] + regex + subqueryKeys),
        .inputObject("GeoPointWhereInput", fields: [exists, GraphQLArgumentDefinition("nearSphere", .named("GeoPointInput"))]
                        + ["maxDistance", "maxDistanceInRadians", "maxDistanceInMiles", "maxDistanceInKilometers"].map { GraphQLArgumentDefinition($0, .named("Float")) }
                        + [GraphQLArgumentDefinition("within", .named("WithinInput")), GraphQLArgumentDefinition("geoWithin", .named("GeoWithinInput"))]),
        .inputObject("PolygonWhereInput", fields: [exists, GraphQLArgumentDefinition("geoIntersects", .named("GeoIntersectsInput"))]),
    ]

    /// The constraint input of a field of Parse type `type` (parse-server's `transformConstraintTypeToGraphQL`);
    /// nil for a type that cannot be queried.
    static func whereInput(forParseType type: String, targetClass: String?, fieldName: String, classes: ParseClassDirectory) -> String? {
        if fieldName == "id" || fieldName == "objectId" { return "IdWhereInput" }
        switch type {
        case "String": return "StringWhereInput"
        case "Number": return "NumberWhereInput"
        case "Boolean": return "BooleanWhereInput"
        case "Array": return "ArrayWhereInput"
        case "Object", "ACL": return "ObjectWhereInput"
        case "Date": return "DateWhereInput"
        case "File": return "FileWhereInput"
        case "GeoPoint": return "GeoPointWhereInput"
        case "Polygon": return "PolygonWhereInput"
        case "Bytes": return "BytesWhereInput"
        case "Pointer", "Relation":
            return targetClass.flatMap { classes[$0] }.map { "\($0.graphQLName)RelationWhereInput" } ?? "Object"
        default: return nil
        }
    }
}
