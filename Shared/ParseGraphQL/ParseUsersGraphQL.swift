import GraphQL
import ParseWire

/// `viewer` and the users' mutations (`signUp`, `logInWith`, `logIn`, `logOut`, `resetPassword`,
/// `confirmResetPassword`, `sendVerificationEmail`, `challenge`), as parse-server's `usersQueries` and
/// `usersMutations` define them, over the users' REST routes.
struct ParseUsersGraphQL {
    let users: ParseClassDefinition
    let classes: ParseClassDirectory

    private typealias T = ParseGraphQLDefaultTypes

    var viewerType: GraphQLNamedType {
        .object("Viewer", description: "The Viewer object type is used in operations that involve outputting the current user data.", fields: [
            GraphQLFieldDefinition("sessionToken", T.nonNull("String"), description: "The current user session token."),
            GraphQLFieldDefinition("user", T.nonNull(users.graphQLName), description: "This is the current user."),
        ])
    }

    var viewerQuery: GraphQLFieldDefinition {
        GraphQLFieldDefinition("viewer", T.nonNull("Viewer"), description: "The viewer query can be used to return the current user data.",
                               waits: true, resolve: { _, _, info in
            try await ParseGraphQLErrors.resolving(info) { context in
                try await Self.viewer(context, selection: info.selectedFields)
            }
        })
    }

    /// `{"sessionToken", "user"}` for the session the calls carry.
    static func viewer(_ context: ParseGraphQLContext, selection: GraphQLSelectedFields?) async throws -> GraphQLData {
        guard let token = context.backend.sessionToken else { throw ParseError(.invalidSessionToken, "Invalid session token") }
        var query: [String: String] = [:]
        let include = ParseObjectQueries(context: context).includes(selection?["user"] ?? GraphQLSelectedFields(), className: "_User")
        if !include.isEmpty { query["include"] = include.joined(separator: ",") }
        guard case .object(var user) = try await context.backend.get("users/me", query: query) else {
            throw ParseError(.invalidSessionToken, "Invalid session token")
        }
        user["sessionToken"] = nil
        return .object([GraphQLObjectMember("sessionToken", .string(token)), GraphQLObjectMember("user", GraphQLData(json: .object(user)))])
    }

    /// The viewer of the session an answer of the users' routes carries, its `authDataResponse` kept.
    private static func viewer(after answer: JSONValue, _ info: GraphQLResolveInfo, _ context: ParseGraphQLContext) async throws -> [GraphQLObjectMember] {
        guard let token = answer["sessionToken"]?.stringValue else { throw ParseError(.invalidSessionToken, "Invalid session token") }
        let session = ParseGraphQLContext(backend: try await context.backend.actingFor(sessionToken: token), classes: context.classes)
        var viewer = try await viewer(session, selection: info.selectedFields["viewer"])
        if let response = answer["authDataResponse"], let user = viewer["user"] {
            viewer = viewer.setting("user", user.setting("authDataResponse", GraphQLData(json: response)))
        }
        return [GraphQLObjectMember("viewer", viewer)]
    }

    private var viewerOutput: [GraphQLFieldDefinition] {
        [GraphQLFieldDefinition("viewer", T.nonNull("Viewer"), description: "This is the new user that was created, signed up and returned as a viewer.")]
    }

    private static let okOutput = [GraphQLFieldDefinition("ok", T.nonNull("Boolean"), description: "It's always true.")]

    var mutations: (types: [GraphQLNamedType], fields: [GraphQLFieldDefinition]) {
        let createFields = "Create\(users.graphQLName)FieldsInput"
        let signUp = RelayMutation.make("signUp", typeName: "SignUp", description: "The signUp mutation can be used to create and sign up a new user.",
            inputFields: [GraphQLArgumentDefinition("fields", .named(createFields))], outputFields: viewerOutput) { input, info, context in
            let fields = try await ParseFieldsInput(classes: context.classes, backend: context.backend).parseFields(input["fields"], className: "_User")
            let answer = try await context.backend.rest("POST", "users", query: [:], body: .object(fields))
            return try await Self.viewer(after: answer, info, context)
        }
        let logInWithFields = GraphQLNamedType.inputObject("UserLoginWithInput", fields: ParseClassGraphQLTypes(parseClass: users, classes: classes)
            .createFieldsInputFields.filter { !["password", "username", "authData"].contains($0.name) })
        let logInWith = RelayMutation.make("logInWith", typeName: "LogInWith", description: "The logInWith mutation can be used to signup, login user with 3rd party authentication system. This mutation create a user if the authData do not correspond to an existing one.",
            inputFields: [GraphQLArgumentDefinition("authData", T.nonNull("Object"), description: "This is the auth data of your custom auth provider"),
                          GraphQLArgumentDefinition("fields", .named("UserLoginWithInput"))], outputFields: viewerOutput) { input, info, context in
            var fields = try await ParseFieldsInput(classes: context.classes, backend: context.backend).parseFields(input["fields"], className: "_User")
            fields["authData"] = input["authData"]?.json
            let answer = try await context.backend.rest("POST", "users", query: [:], body: .object(fields))
            return try await Self.viewer(after: answer, info, context)
        }
        let logIn = RelayMutation.make("logIn", typeName: "LogIn", description: "The logIn mutation can be used to log in an existing user.",
            inputFields: [GraphQLArgumentDefinition("username", T.nonNull("String"), description: "This is the username used to log in the user."),
                          GraphQLArgumentDefinition("password", T.nonNull("String"), description: "This is the password used to log in the user."),
                          GraphQLArgumentDefinition("authData", .named("Object"), description: "Auth data payload, needed if some required auth adapters are configured.")],
            outputFields: viewerOutput) { input, info, context in
            var body: [String: JSONValue] = ["username": input["username"]?.json ?? .null, "password": input["password"]?.json ?? .null]
            if let authData = input["authData"], !authData.isNull { body["authData"] = authData.json }
            let answer = try await context.backend.rest("POST", "login", query: [:], body: .object(body))
            return try await Self.viewer(after: answer, info, context)
        }
        let logOut = RelayMutation.make("logOut", typeName: "LogOut", description: "The logOut mutation can be used to log out an existing user.",
            inputFields: [], outputFields: Self.okOutput) { _, _, context in
            if context.backend.sessionToken != nil { _ = try await context.backend.rest("POST", "logout", query: [:], body: .object([:])) }
            return [GraphQLObjectMember("ok", .boolean(true))]
        }
        let resetPassword = Self.emailMutation("resetPassword", typeName: "ResetPassword", path: "requestPasswordReset",
                                               description: "The resetPassword mutation can be used to reset the password of an existing user.")
        let confirmResetPassword = RelayMutation.make("confirmResetPassword", typeName: "ConfirmResetPassword", description: "The confirmResetPassword mutation can be used to reset the password of an existing user.",
            inputFields: [GraphQLArgumentDefinition("username", T.nonNull("String"), description: "Username of the user that have received the reset email"),
                          GraphQLArgumentDefinition("password", T.nonNull("String"), description: "New password of the user"),
                          GraphQLArgumentDefinition("token", T.nonNull("String"), description: "Reset token that was emailed to the user")],
            outputFields: Self.okOutput) { input, _, context in
            guard let username = input["username"]?.stringValue, !username.isEmpty else { throw ParseError(.usernameMissing, "you must provide a username") }
            guard let password = input["password"]?.stringValue, !password.isEmpty else { throw ParseError(.passwordMissing, "you must provide a password") }
            guard let token = input["token"]?.stringValue, !token.isEmpty else { throw ParseError(.otherCause, "you must provide a token") }
            try await context.backend.resetPassword(username: username, token: token, password: password)
            return [GraphQLObjectMember("ok", .boolean(true))]
        }
        let sendVerificationEmail = Self.emailMutation("sendVerificationEmail", typeName: "SendVerificationEmail", path: "verificationEmailRequest",
                                                       description: "The sendVerificationEmail mutation can be used to send the verification email again.")
        let challenge = RelayMutation.make("challenge", typeName: "Challenge", description: "The challenge mutation can be used to initiate an authentication challenge when an auth adapter needs it.",
            inputFields: [GraphQLArgumentDefinition("username", .named("String"), description: "This is the username used to log in the user."),
                          GraphQLArgumentDefinition("password", .named("String"), description: "This is the password used to log in the user."),
                          GraphQLArgumentDefinition("authData", .named("Object"), description: "Auth data allow to preidentify the user if the auth adapter needs preidentification."),
                          GraphQLArgumentDefinition("challengeData", .named("Object"), description: "Challenge data payload, can be used to post data to auth providers to auth providers if they need data for the response.")],
            outputFields: [GraphQLFieldDefinition("challengeData", .named("Object"), description: "Challenge response from configured auth adapters.")]) { input, _, context in
            var body = input.json.objectValue ?? [:]
            body["clientMutationId"] = nil
            let answer = try await context.backend.rest("POST", "challenge", query: [:], body: .object(body))
            return [GraphQLObjectMember("challengeData", answer["challengeData"].map(GraphQLData.init(json:)) ?? .null)]
        }
        let all = [signUp, logInWith, logIn, logOut, resetPassword, confirmResetPassword, sendVerificationEmail, challenge]
        return (all.flatMap(\.types) + [logInWithFields], all.map(\.field))
    }

    /// A mutation that posts `{"email"}` to a users' route and answers `ok`.
    private static func emailMutation(_ name: String, typeName: String, path: String, description: String)
        -> (types: [GraphQLNamedType], field: GraphQLFieldDefinition) {
        RelayMutation.make(name, typeName: typeName, description: description,
                               inputFields: [GraphQLArgumentDefinition("email", T.nonNull("String"))], outputFields: okOutput) { input, _, context in
            _ = try await context.backend.rest("POST", path, query: [:], body: .object(["email": input["email"]?.json ?? .null]))
            return [GraphQLObjectMember("ok", .boolean(true))]
        }
    }
}
