@testable import CloudCore
import Contracts
import Testing

struct TargetSnapshotTests {
    @Test func aWebhookWinsOverAWorkerOfTheSameName() {
        let snapshot = TargetSnapshot(
            hooks: [Hook(functionName: "echo", url: "https://example.com/echo"),
                    Hook(className: "Cat", triggerName: "beforeSave", url: "https://example.com/cat")],
            workers: [WorkerTarget(kind: .function, name: "echo", className: "", queue: "q"),
                      WorkerTarget(kind: .function, name: "other", className: "", queue: "q"),
                      WorkerTarget(kind: .trigger, name: "beforeSave", className: "Cat", queue: "q"),
                      WorkerTarget(kind: .trigger, name: "afterSave", className: "Cat", queue: "q"),
                      WorkerTarget(kind: .job, name: "tidy", className: "", queue: "jobs")])
        #expect(snapshot.functions["echo"] == .webhook(url: "https://example.com/echo"))
        #expect(snapshot.functions["other"] == .worker(queue: "q"))
        #expect(snapshot.triggers[TriggerKey(className: "Cat", triggerName: .beforeSave)] == .webhook(url: "https://example.com/cat"))
        #expect(snapshot.jobs["tidy"] == .worker(queue: "jobs"))
        #expect(snapshot.triggerKeys == [TriggerKey(className: "Cat", triggerName: .afterSave),
                                         TriggerKey(className: "Cat", triggerName: .beforeSave)])
    }

    @Test func unknownTriggerNamesAreLeftOut() {
        let snapshot = TargetSnapshot(hooks: [Hook(className: "Cat", triggerName: "beforeLunch", url: "https://e.com")],
                                      workers: [WorkerTarget(kind: .trigger, name: "afterLunch", className: "Cat", queue: "q")])
        #expect(snapshot.triggers.isEmpty)
    }

    @Test func aRegistrationBecomesItsTargets() {
        let targets = HookStore.targets(of: RegisterCloudWorker(queue: "q", functions: ["f"], jobs: ["j"],
                                                                triggers: [TriggerKey(className: "Cat", triggerName: .beforeFind)]))
        #expect(targets == [WorkerTarget(kind: .function, name: "f", className: "", queue: "q"),
                            WorkerTarget(kind: .job, name: "j", className: "", queue: "q"),
                            WorkerTarget(kind: .trigger, name: "beforeFind", className: "Cat", queue: "q")])
    }
}
