import Foundation
import Testing

extension IntegrationSuite {
    /// Subqueries whose inner class another service owns are answered in parts by the owners, each as the caller:
    /// every operator with `_User`, `_Role`, `_Session` and `_Installation` as the inner class and as the outer one
    /// gives what the same data gives with an ordinary class in their place, and hides what the caller may not read.
    @Suite struct CrossServiceSubquery {
        /// Users and their mirror in an ordinary class: the same labels and cities, the third one readable by itself
        /// alone (`Person`: by nobody but the master key), and posts pointing at both.
        struct World {
            let posts: String
            let persons: String
            let users: [AuthAPI.User]
            let userIds: [String]
            let personIds: [String]
            let roleName: String
        }

        static func world() async throws -> World {
            let persons = PostsHTTP.uniqueClass("Person")
            let posts = PostsHTTP.uniqueClass("Post")
            let cities = ["Paris", "Rome", "Paris"]
            var users: [AuthAPI.User] = []
            var personIds: [String] = []
            for (index, city) in cities.enumerated() {
                let label = ["a", "b", "c"][index]
                let user = try await AuthAPI.signUp("sub", extra: ["city": city, "label": label])
                users.append(user)
                var person: [String: Any] = ["city": city, "label": label]
                if index == 2 {
                    // The third of each kind is hidden from everyone but itself (and the master key), as a user is
                    // by default (parse-server's `enforcePrivateUsers`).
                    person["ACL"] = [user.id: ["read": true, "write": true]]
                } else {
                    let opened = try await AuthAPI.send("PUT", "/users/\(user.id)",
                                                        ["ACL": ["*": ["read": true], user.id: ["read": true, "write": true]]],
                                                        token: user.token)
                    #expect(opened.status == 200, "\(opened.text)")
                }
                personIds.append(try await PostsHTTP.create(persons, person, master: true))
            }
            for (index, city) in ["Paris", "Rome", "Lyon"].enumerated() {
                _ = try await PostsHTTP.create(posts, [
                    "title": String(index + 1), "city": city, "author": PostsHTTP.pointer("_User", users[index].id),
                    "person": PostsHTTP.pointer(persons, personIds[index]),
                ], master: true)
            }
            let roleName = "subq" + UUID().uuidString.prefix(8).lowercased()
            let role = try await AuthAPI.send("POST", "/roles", [
                "name": roleName, "ACL": ["*": ["read": true]],
                "users": ["__op": "AddRelation", "objects": [PostsHTTP.pointer("_User", users[1].id)]],
            ], master: true)
            #expect(role.status == 201, "\(role.text)")
            return World(posts: posts, persons: persons, users: users, userIds: users.map(\.id), personIds: personIds,
                         roleName: roleName)
        }

        static func titles(_ className: String, _ clause: [String: Any], token: String? = nil, master: Bool = false) async throws -> [String] {
            var headers: [String: String] = [:]
            if let token { headers["X-Parse-Session-Token"] = token }
            let reply = try await PostsHTTP.send("GET", "/classes/\(className)", master: master,
                                                 query: ["where": String(decoding: try JSONSerialization.data(withJSONObject: clause), as: UTF8.self),
                                                         "order": "title"], headers: headers)
            #expect(reply.status == 200, "\(clause): \(reply.text)")
            return PostsHTTP.results(reply).compactMap { $0["title"] as? String }
        }

        /// The labels of the rows of `path` matching `clause`, among `among` (users are shared by every test).
        static func labels(_ path: String, _ clause: [String: Any], among: [String], token: String? = nil,
                           master: Bool = false) async throws -> [String] {
            let clause = ["$and": [clause, ["objectId": ["$in": among]]]]
            var headers: [String: String] = [:]
            if let token { headers["X-Parse-Session-Token"] = token }
            let reply = try await PostsHTTP.send("GET", path, master: master,
                                                 query: ["where": String(decoding: try JSONSerialization.data(withJSONObject: clause), as: UTF8.self)],
                                                 headers: headers)
            #expect(reply.status == 200, "\(path) \(clause): \(reply.text)")
            return PostsHTTP.results(reply).compactMap { $0["label"] as? String }.sorted()
        }

        @Test func authsClassesInsideAQueryOnAnOrdinaryClassAnswerAsAnOrdinaryClassWould() async throws {
            let w = try await Self.world()
            let cases: [(String, [String: Any], [String: Any], [String])] = [
                ("$inQuery", ["author": ["$inQuery": ["className": "_User", "where": ["city": "Paris"]]]],
                 ["person": ["$inQuery": ["className": w.persons, "where": ["city": "Paris"]]]], ["1"]),
                ("$notInQuery", ["author": ["$notInQuery": ["className": "_User", "where": ["city": "Paris"]]]],
                 ["person": ["$notInQuery": ["className": w.persons, "where": ["city": "Paris"]]]], ["2", "3"]),
                ("$select", ["city": ["$select": ["query": ["className": "_User", "where": [:] as [String: Any]], "key": "city"]]],
                 ["city": ["$select": ["query": ["className": w.persons, "where": [:] as [String: Any]], "key": "city"]]], ["1", "2"]),
                ("$dontSelect", ["city": ["$dontSelect": ["query": ["className": "_User", "where": ["label": "a"]], "key": "city"]]],
                 ["city": ["$dontSelect": ["query": ["className": w.persons, "where": ["label": "a"]], "key": "city"]]], ["2", "3"]),
            ]
            for (name, overUsers, overPersons, expected) in cases {
                // Anonymous: the third user and person are hidden, whatever the class.
                let users = try await Self.titles(w.posts, overUsers)
                #expect(users == expected, "\(name) over _User: \(users)")
                #expect(try await Self.titles(w.posts, overPersons) == users, "\(name): _User and an ordinary class disagree")
            }
            // As the third user: its own row is readable, so the answers change the same way for both.
            let own = try await Self.titles(w.posts, cases[0].1, token: w.users[2].token)
            #expect(own == ["1", "3"], "\(own)")
            #expect(try await Self.titles(w.posts, cases[0].2, token: w.users[2].token) == own)
        }

        @Test func rolesSessionsAndInstallationsAsTheInnerClass() async throws {
            let w = try await Self.world()
            // Objects whose author is in a role: the role's members through `$relatedTo`, inside `$inQuery`.
            let role = try #require(PostsHTTP.results(try await PostsHTTP.send("GET", "/roles", master: true,
                query: ["where": #"{"name":"\#(w.roleName)"}"#])).first?["objectId"] as? String)
            let inRole: [String: Any] = ["author": ["$inQuery": ["className": "_User", "where": [
                "$relatedTo": ["object": PostsHTTP.pointer("_Role", role), "key": "users"]]]]]
            #expect(try await Self.titles(w.posts, inRole) == ["2"])
            // `_Role` itself as the inner class: posts pointing at the role.
            let tagged = try await PostsHTTP.create(w.posts, ["title": "r", "team": PostsHTTP.pointer("_Role", role)], master: true)
            _ = tagged
            let byRole: [String: Any] = ["team": ["$inQuery": ["className": "_Role", "where": ["name": w.roleName]]]]
            #expect(try await Self.titles(w.posts, byRole) == ["r"])

            // `_Session`: a user's query sees its own sessions only, so it finds its own posts only.
            let mine: [String: Any] = ["author": ["$select": ["query": ["className": "_Session", "where": [:] as [String: Any]], "key": "user"]]]
            #expect(try await Self.titles(w.posts, mine, token: w.users[0].token) == ["1"])
            #expect(try await Self.titles(w.posts, mine, token: w.users[1].token) == ["2"])
            #expect(try await Self.titles(w.posts, mine, master: true) == ["1", "2", "3"])

            // `_Installation` (posts' own) inside a query on `_User`: users with an installation.
            let installation = try await PostsHTTP.send("POST", "/installations", [
                "deviceType": "ios", "installationId": UUID().uuidString.lowercased(), "owner": PostsHTTP.pointer("_User", w.users[1].id),
            ], master: true)
            #expect([200, 201].contains(installation.status), "\(installation.text)")
            let withDevice: [String: Any] = ["objectId": ["$select": ["query": ["className": "_Installation",
                "where": ["owner": PostsHTTP.pointer("_User", w.users[1].id)]], "key": "owner.objectId"]]]
            #expect(try await Self.labels("/users", withDevice, among: w.userIds, master: true) == ["b"])
        }

        @Test func ordinaryClassesInsideQueriesOnAuthsClasses() async throws {
            let w = try await Self.world()
            // Users in the cities of the persons labelled a: the same as with `_User` itself as the inner class.
            let overPersons: [String: Any] = ["city": ["$select": ["query": ["className": w.persons, "where": ["label": "a"]], "key": "city"]]]
            let overUsers: [String: Any] = ["city": ["$select": ["query": ["className": "_User", "where": ["label": "a"]], "key": "city"]]]
            let anonymous = try await Self.labels("/users", overPersons, among: w.userIds)
            #expect(anonymous == ["a"], "the hidden third user is not found: \(anonymous)")
            #expect(try await Self.labels("/users", overUsers, among: w.userIds) == anonymous)
            #expect(try await Self.labels("/users", overPersons, among: w.userIds, master: true) == ["a", "c"])
            let notThere: [String: Any] = ["city": ["$dontSelect": ["query": ["className": w.persons, "where": ["label": "a"]], "key": "city"]]]
            #expect(try await Self.labels("/users", notThere, among: w.userIds) == ["b"])

            // A post's relation to users, read from `/users`.
            let post = try #require(PostsHTTP.results(try await PostsHTTP.find(w.posts, ["where": ["title": "1"]], master: true))
                .first?["objectId"] as? String)
            let liked = try await PostsHTTP.send("PUT", "/classes/\(w.posts)/\(post)", [
                "likers": ["__op": "AddRelation", "objects": [PostsHTTP.pointer("_User", w.users[0].id), PostsHTTP.pointer("_User", w.users[2].id)]],
            ], master: true)
            #expect(liked.status == 200)
            let likers: [String: Any] = ["$relatedTo": ["object": PostsHTTP.pointer(w.posts, post), "key": "likers"]]
            #expect(try await Self.labels("/users", likers, among: w.userIds) == ["a"], "the hidden liker stays hidden")
            #expect(try await Self.labels("/users", likers, among: w.userIds, master: true) == ["a", "c"])

            // Roles named after what an ordinary class holds, and sessions of the users a class names.
            let teams = PostsHTTP.uniqueClass("Team")
            _ = try await PostsHTTP.create(teams, ["roleName": w.roleName], master: true)
            let roles = try await PostsHTTP.send("GET", "/roles", master: true, query: [
                "where": #"{"name":{"$select":{"query":{"className":"\#(teams)","where":{}},"key":"roleName"}}}"#])
            #expect(PostsHTTP.results(roles).compactMap { $0["name"] as? String } == [w.roleName], "\(roles.text)")
            let sessions = try await PostsHTTP.send("GET", "/sessions", master: true, query: [
                "where": #"{"user":{"$inQuery":{"className":"_User","where":{"label":"b","objectId":{"$in":["\#(w.userIds.joined(separator: "\",\""))"]}}}}}"#])
            let owners = Set(PostsHTTP.results(sessions).compactMap { ($0["user"] as? [String: Any])?["objectId"] as? String })
            #expect(owners == [w.users[1].id], "\(sessions.text)")
        }

        /// The inner query is a find: a class whose `count` is closed still answers it.
        @Test func anInnerClassWithoutCountPermissionAnswersItsFind() async throws {
            let w = try await Self.world()
            let secretive = PostsHTTP.uniqueClass("NoCount")
            let schema = try await PostsHTTP.send("POST", "/schemas/\(secretive)", [
                "className": secretive, "fields": ["city": ["type": "String"]],
                "classLevelPermissions": [
                    "find": ["*": true], "get": ["*": true], "count": [:] as [String: Any], "create": ["*": true],
                    "update": ["*": true], "delete": ["*": true], "addField": ["*": true],
                ],
            ], master: true)
            #expect(schema.status == 200, "\(schema.text)")
            _ = try await PostsHTTP.create(secretive, ["city": "Paris"], master: true)
            let inParis: [String: Any] = ["city": ["$select": ["query": ["className": secretive, "where": [:] as [String: Any]], "key": "city"]]]
            #expect(try await Self.labels("/users", inParis, among: w.userIds) == ["a"])
        }

        @Test func errorsOfTheInnerQueryAreTheCallersErrors() async throws {
            let w = try await Self.world()
            let badInner = try await PostsHTTP.send("GET", "/classes/\(w.posts)", query: [
                "where": #"{"author":{"$inQuery":{"className":"_User","where":{"city":{"$foo":1}}}}}"#])
            #expect(badInner.status == 400 && badInner.code == 102, "\(badInner.text)")
            let improper = try await PostsHTTP.send("GET", "/classes/\(w.posts)", query: [
                "where": #"{"city":{"$select":{"query":{"className":"_User"}}}}"#])
            #expect(improper.code == 102 && improper.error == "improper usage of $select", "\(improper.text)")
            // Nesting across services is bounded: posts asks auth asks posts... six times is refused.
            var nested: [String: Any] = ["title": "1"]
            for level in 0..<6 {
                nested = level.isMultiple(of: 2)
                    ? ["favorite": ["$inQuery": ["className": w.posts, "where": nested]]]
                    : ["author": ["$inQuery": ["className": "_User", "where": nested]]]
            }
            let deep = try await PostsHTTP.send("GET", "/classes/\(w.posts)", master: true, query: [
                "where": String(decoding: try JSONSerialization.data(withJSONObject: nested), as: UTF8.self)])
            #expect(deep.status == 400 && deep.code == 102 && deep.error?.contains("nested") == true, "\(deep.text)")
            // An email is the master key's to query: inside a subquery as much as outside.
            let email = try await PostsHTTP.send("GET", "/classes/\(w.posts)", query: [
                "where": #"{"author":{"$inQuery":{"className":"_User","where":{"email":"x@example.com"}}}}"#])
            #expect(email.status == 400 && email.code == 119, "\(email.text)")
        }
    }
}
