import Contracts
import ParseWire
import Runtime
import ServiceKit
import Storage
import TestDoubles
import Testing
@testable import CloudCore
import Messaging

/// The cloud service as `main` builds it (`CloudService.build`), its commands sent over an in-memory bus; the
/// database is never reached (its pool points nowhere), so these are the answers made before any statement.
@Suite struct CloudServiceBuildTests {
    private static let logger = Logger(service: "cloud-tests", level: .error)

    private static func built() throws -> ServiceHandlers {
        let pool = PostgresPool(configuration: PostgresConfiguration(url: "postgres://postgres@127.0.0.1:1/none"), logger: logger)
        return CloudService.build(configuration: try CloudService.Configuration.fromEnvironment(Environment([:])),
                                  bus: RPCClient(bus: InMemoryBus()), database: pool)
    }

    @Test func theServiceTakesFunctionsJobsTriggersWorkersAndREST() throws {
        #expect(Set(try Self.built().router.types) == [RESTRequest.type, RunCloudFunction.type, StartCloudJob.type,
                                                       RunTrigger.type, ListTriggers.type, RegisterCloudWorker.type,
                                                       AppendScriptLogs.type])
    }

    @Test func onlyTheMasterIdentityRegistersAWorker() async throws {
        let bus = InMemoryBus()
        bus.serve(.cloud, try Self.built().router, logger: Self.logger)
        let client = RPCClient(bus: bus)
        await #expect(throws: ParseError(.operationForbidden, "Registering a Cloud Code worker needs the master identity.")) {
            let _: Empty = try await client.send(RegisterCloudWorker.type, RegisterCloudWorker(queue: "cloud.worker.x"),
                                                 to: .cloud, requestId: "r1", identity: Identity(userId: "u1"),
                                                 timeout: .seconds(5))
        }
        #expect(bus.calls.map(\.type) == [RegisterCloudWorker.type])
    }
}
