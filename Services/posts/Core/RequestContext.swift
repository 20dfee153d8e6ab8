import Contracts
import ParseWire
import Runtime
import ServiceKit
import Storage

/// What every handler needs about the call: who makes it, where the client reached us, the settings.
struct RequestContext: Sendable {
    var identity: Identity
    var serverURL: String
    var configuration: PostsConfiguration
    var requestId: String
    /// Where `include` finds `_User` objects; nil leaves `_User` pointers unexpanded.
    var users: UserDirectory? = nil
    /// Cloud Code's triggers; nil where none can run (tools, tests).
    var cloud: CloudTriggers? = nil
    var triggerRequest = TriggerRequestInfo()
    /// The service's schemas read so far (`PostsService.build` passes its one); a context made without one (tools,
    /// tests) keeps what it reads to itself.
    var schemas = SchemaCache()
    /// Set for a batch the client named with its request id: its writes are applied once each (`BatchHandler`).
    var once: IdempotentRequests? = nil
    /// Where a create may go with others in one transaction (`CreateBatcher`); nil: each in its own.
    var creates: CreateBatcher? = nil
    /// Where a get by id may go with others in one pipeline (`GetBatcher`); nil: each on a connection of its own.
    var gets: GetBatcher? = nil
    /// Where subqueries over other services' classes go, as this caller; nil where no bus is at hand.
    var foreignSubqueries: ForeignSubqueries? = nil
    /// `/settings` and the run-time values of the settings; nil where there are none (tools, tests): the start-up
    /// configuration then holds.
    var settings: SettingsHandler? = nil

    /// File urls start with the public server URL when one is configured, as the gateway's upload answers do, and
    /// name the app the request is for.
    var codec: ValueCodec {
        ValueCodec(serverURL: configuration.publicServerURL ?? serverURL,
                   applicationId: AppContext.current ?? configuration.applicationId)
    }

    /// Throws `StaleTriggerList` when a read statement's row (`SchemaStore.withFingerprint`) says the trigger
    /// registrations are newer than the list this request decided with; `CloudTriggers.withCurrentRegistrations`
    /// then reloads the list and runs the request again.
    func requireCurrentTriggers(_ row: PostgresRow?) throws(StaleTriggerList) {
        try cloud?.requireCurrent(row?.int("__hooks").map(Int64.init))
    }

    /// Whether this caller may make `className` exist by writing to or reading it: `allowClientClassCreation` as it
    /// is now, read on `connection` (inside the request's transaction, where it has one).
    func mayUseMissingClass(_ className: String, on connection: PostgresConnection) async throws {
        guard !identity.isMaster else { return }
        let overrides = settings == nil ? [:] : try await RuntimeSettings.overrides(on: connection)
        guard try PostsRuntimeSettings(startUp: configuration).allowClientClassCreation(overrides) else {
            throw ParseError(.operationForbidden, "This user is not allowed to access non-existent class: \(className)")
        }
    }
}
