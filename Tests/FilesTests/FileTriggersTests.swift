import Contracts
@testable import FilesCore
@testable import Messaging
import ParseWire
import Runtime
import ServiceKit
import Storage
import Testing

/// files' before* hook points with Cloud Code replaced by `InMemoryTriggerRunner`; a refusal comes before the
/// database, which these handlers never reach.
struct FileTriggersTests {
    static let refusal = ParseError(TriggerFailure.scriptFailed, "No executables.")
    static let unreachablePool = PostgresPool(configuration: PostgresConfiguration(url: "postgres://postgres@127.0.0.1:1/x"),
                                              logger: Logger(service: "files-tests", level: .error))

    static func handler(_ runner: InMemoryTriggerRunner) async -> FileCommandHandler {
        let registry = TriggerRegistry(runner: runner, logger: Logger(service: "files-tests", level: .error))
        await registry.reload()
        return FileCommandHandler(store: FileStore(pool: unreachablePool), policy: FileUploadPolicy(),
                                  cloud: CloudTriggers(service: .files, registry: registry, runner: runner))
    }

    @Test(arguments: [TriggerName.beforeSaveFile, .beforeSave])
    func aRefusingBeforeSaveFileRefusesTheUpload(_ name: TriggerName) async throws {
        let runner = InMemoryTriggerRunner()
        runner.register(name, TriggerName.fileClassName) { _ in throw Self.refusal }
        let handler = await Self.handler(runner)
        let create = FileCreateRequest(name: "run.sh", contentType: "text/plain", isComplete: true)
        let command = RawCommand(type: FileCommands.create, requestId: "r1", identity: Identity(userId: "u1"),
                                 headers: create.headers, body: Array("echo hi".utf8))
        await #expect(throws: Self.refusal) { _ = try await handler.create(command) }
        let call = try #require(runner.calls.first)
        #expect(call.trigger.key == TriggerKey(className: "@File", triggerName: name))
        #expect(call.trigger.object?["name"] == .string("run.sh"))
        #expect(call.trigger.object?["fileSize"] == .number(7))
        #expect(call.identity.userId == "u1")
    }

    @Test func withoutFileTriggersNothingIsAsked() async throws {
        let runner = InMemoryTriggerRunner()
        runner.register(.beforeSave, "Cat")
        let handler = await Self.handler(runner)
        let command = RawCommand(type: FileCommands.create, requestId: "r1", identity: Identity(userId: "u1"),
                                 headers: FileCreateRequest(name: "a.txt", contentType: nil, isComplete: true).headers,
                                 body: [1])
        // It goes on to the database, which is not there.
        await #expect(throws: (any Error).self) { _ = try await handler.create(command) }
        #expect(runner.calls.isEmpty)
    }
}
