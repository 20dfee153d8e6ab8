import Contracts
import ParseWire
import Runtime
import ServiceKit
import Storage
import TestDoubles
import Testing
@testable import FilesCore
@testable import Messaging

/// The files service as `main` builds it (`FilesService.build`), its commands sent over an in-memory bus; the
/// database is never reached (its pool points nowhere), so these are the refusals made before any statement.
@Suite struct FilesServiceBuildTests {
    private static let logger = Logger(service: "files-tests", level: .error)

    private static func client() throws -> (RPCClient, ServiceHandlers) {
        let pool = PostgresPool(configuration: PostgresConfiguration(url: "postgres://postgres@127.0.0.1:1/none"), logger: logger)
        let handlers = FilesService.build(configuration: try FilesService.Configuration.fromEnvironment(Environment([:])),
                                          bus: RPCClient(bus: InMemoryBus()), database: pool)
        let bus = InMemoryBus()
        bus.serve(.files, handlers.router, logger: logger)
        return (RPCClient(bus: bus), handlers)
    }

    @Test func everyFileCommandHasAHandler() throws {
        let (_, handlers) = try Self.client()
        #expect(handlers.router.types == [FileCommands.abort, FileCommands.append, FileCommands.commit, FileCommands.create,
                                          FileCommands.delete, FileCommands.info, FileCommands.metadata, FileCommands.open,
                                          FileCommands.read, AdvanceCacheGeneration.type, ReadRuntimeSettings.type,
                                          ChangeRuntimeSettings.type].sorted())
    }

    @Test func aDeleteWithoutTheMasterKeyIsParseServersRefusal() async throws {
        let (client, _) = try Self.client()
        await #expect(throws: ParseError(.operationForbidden, "unauthorized: master key is required")) {
            let _: Empty = try await client.send(FileCommands.delete, FileNameReference(name: "a.txt"), to: .files,
                                                 requestId: "r1", identity: .anonymous, timeout: .seconds(5))
        }
    }

    @Test func aMalformedCommandIsRefusedAsInvalidJSON() async throws {
        let (client, _) = try Self.client()
        await #expect(throws: ParseError(.invalidJSON, "Malformed \(FileCommands.info) command.")) {
            let _: FileInfo = try await client.send(FileCommands.info, ["unexpected": 1], to: .files, requestId: "r2",
                                                    identity: .anonymous, timeout: .seconds(5))
        }
    }
}
