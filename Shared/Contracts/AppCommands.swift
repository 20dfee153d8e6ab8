/// An app the stack serves besides its own, as the registry (`auth`) keeps it, with the keys a client uses.
public struct AppRecord: Codable, Sendable, Equatable {
    public var name: String
    public var applicationId: String
    public var masterKey: String
    public var clientKey: String
    public var restApiKey: String
    public var javascriptKey: String
    public var dotNetKey: String
    public var createdAt: String
    /// Where the push adapter sends the app's notifications (`PushEndpoints`' text); nil or empty: nowhere, and
    /// its pushes end with every device failed.
    public var pushEndpoints: String?

    public init(name: String, applicationId: String, masterKey: String, clientKey: String, restApiKey: String,
                javascriptKey: String, dotNetKey: String, createdAt: String, pushEndpoints: String? = nil) {
        self.pushEndpoints = pushEndpoints
        self.name = name
        self.applicationId = applicationId
        self.masterKey = masterKey
        self.clientKey = clientKey
        self.restApiKey = restApiKey
        self.javascriptKey = javascriptKey
        self.dotNetKey = dotNetKey
        self.createdAt = createdAt
    }
}

/// An app in the registry's list: the stack's own app (`PARSE_SERVER_APPLICATION_ID`, keys from the environment,
/// never in the registry's rows) says only its name and id.
public struct AppSummary: Codable, Sendable, Equatable {
    public var name: String
    public var applicationId: String
    /// The app the stack's environment names: it cannot be deleted, its keys are the environment's.
    public var isStackApp: Bool
    public var createdAt: String?

    public init(name: String, applicationId: String, isStackApp: Bool, createdAt: String?) {
        self.name = name
        self.applicationId = applicationId
        self.isStackApp = isStackApp
        self.createdAt = createdAt
    }
}

/// `apps.create.v1` (gateway to auth): a new app named `name` (unique, 1-100 characters), with `applicationId`
/// when given (else a new one) and new keys; answers its `AppRecord`. 137 for a name or id already taken.
public struct CreateApp: Codable, Sendable, Equatable {
    public static let type = "apps.create.v1"
    public var name: String
    public var applicationId: String?

    public init(name: String, applicationId: String? = nil) {
        self.name = name
        self.applicationId = applicationId
    }
}

/// `apps.list.v1` (gateway to auth, payload `Empty`): every app, the stack's own first; answers `AppList`.
public enum ListApps {
    public static let type = "apps.list.v1"
}

public struct AppList: Codable, Sendable, Equatable {
    public var apps: [AppSummary]

    public init(apps: [AppSummary]) { self.apps = apps }
}

/// `apps.resolve.v1` (gateway and services to auth): the app `applicationId` names, with its keys; 101 when no such
/// app exists (the stack's own is not in the registry: its keys are its processes' environment).
public struct ResolveApp: Codable, Sendable, Equatable {
    public static let type = "apps.resolve.v1"
    public var applicationId: String

    public init(applicationId: String) { self.applicationId = applicationId }
}

/// `apps.rename.v1` (gateway to auth): the app `applicationId` names is called `name` from the answer on (its
/// `AppRecord`); its id, keys and data stay. Refused for the stack's own app, whose name is its environment's.
public struct RenameApp: Codable, Sendable, Equatable {
    public static let type = "apps.rename.v1"
    public var applicationId: String
    public var name: String

    public init(applicationId: String, name: String) {
        self.applicationId = applicationId
        self.name = name
    }
}

/// `apps.push.set.v1` (gateway to auth): the app's push endpoints (`PushEndpoints`' text, empty for none); answers
/// its `AppRecord`. 107 for endpoints that are not `deviceType=http(s)://...`.
public struct SetAppPushEndpoints: Codable, Sendable, Equatable {
    public static let type = "apps.push.set.v1"
    public var applicationId: String
    public var endpoints: String

    public init(applicationId: String, endpoints: String) {
        self.applicationId = applicationId
        self.endpoints = endpoints
    }
}

/// `apps.delete.v1` (gateway to auth): marks the app named `name` deleted, so no request of its is served any more
/// and it is no longer listed; answers its `AppRecord`. The gateway then has every service drop its data
/// (`DropAppData`), then removes it (`PurgeApp`). An app marked deleted whose data is not all dropped yet is
/// answered again, so deleting it again finishes the deletion.
public struct DeleteApp: Codable, Sendable, Equatable {
    public static let type = "apps.delete.v1"
    public var name: String

    public init(name: String) { self.name = name }
}

/// `apps.purge.v1` (gateway to auth): the app's data is gone from every service; its row leaves the registry.
/// Answers `Empty`.
public struct PurgeApp: Codable, Sendable, Equatable {
    public static let type = "apps.purge.v1"
    public var applicationId: String

    public init(applicationId: String) { self.applicationId = applicationId }
}

/// `apps.data.drop.v1` (gateway to each service with a database): closes what the service holds of the app and
/// drops the app's database; answers `Empty`. Refused for an app still in the registry.
public struct DropAppData: Codable, Sendable, Equatable {
    public static let type = "apps.data.drop.v1"
    public var applicationId: String

    public init(applicationId: String) { self.applicationId = applicationId }
}

/// `apps.deleted` (event from auth's registry, published with the deletion's commit): every replica of every service
/// closes what it holds of the app (its database's pools and jobs, its LiveQuery clients), not only the one a drop
/// (`DropAppData`) reaches. An app's own events are `app.<id>.<key>`; this one is the registry's, the stack's app's.
public struct AppDeleted: Codable, Sendable, Equatable {
    public static let type = "apps.deleted.v1"
    public static let routingKey = "apps.deleted"
    public var applicationId: String

    public init(applicationId: String) { self.applicationId = applicationId }
}

/// How long a copy of an app's registry entry (or of its absence) may be used without asking the registry again.
/// The registry answers a change of an app (created, deleted) only once this long has passed since its commit, so
/// when the answer arrives no copy from before the change is used any more, on any replica.
public enum AppLease {
    public static let duration: Duration = .seconds(2)
}

/// `apps.keys.rotate.v1` (gateway to auth): new keys for the app, every old one refused from the answer on; answers
/// its `AppRecord` with them.
public struct RotateAppKeys: Codable, Sendable, Equatable {
    public static let type = "apps.keys.rotate.v1"
    public var applicationId: String

    public init(applicationId: String) { self.applicationId = applicationId }
}
