import Foundation
import ParseCloud
import Runtime

// The example Cloud Code worker: the functions, jobs and triggers of docs/cloud-code.md, the tests and the Parse
// PHP SDK's test suite.
do {
    let cloud = Cloud(try CloudWorkerConfiguration.fromEnvironment())
    ExampleCloudCode.define(on: cloud)
    try await cloud.run()
} catch {
    Logger(service: "cloud-worker").error("stopped on an error", ["error": "\(error)"])
    exit(1)
}
