import Foundation
import Synchronization
import Testing

extension IntegrationSuite {
    /// Bytes stream through the gateway and the files service in bounded parts: ten 20 MB uploads and then ten
    /// 20 MB downloads at once keep each process far below the size of the files.
    @Suite struct FilesMemory {
        static let limitBytes = 150 * 1024 * 1024

        @Test func tenParallel20MBTransfersStayUnder150MBEach() async throws {
            try #require(TestStack.residentBytes("gateway") != nil, "cannot read the gateway's resident size")
            let peaks = Mutex(["gateway": 0, "files": 0])
            let sampling = Task {
                while !Task.isCancelled {
                    for service in ["gateway", "files"] {
                        if let bytes = TestStack.residentBytes(service) { peaks.withLock { $0[service] = max($0[service]!, bytes) } }
                    }
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
            let user = try await AuthAPI.signUp("memory")
            let bytes = FilesAPI.pattern(20 * 1024 * 1024, seed: 99)
            let urls = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        let reply = try await FilesAPI.upload("m\(index).bin", bytes, contentType: "application/octet-stream",
                                                              token: user.token)
                        guard reply.status == 201, let url = reply.json?["url"] as? String else {
                            throw AuthTestError(description: "upload failed: \(reply.status) \(reply.text)")
                        }
                        return url
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for url in urls {
                    group.addTask { try await FilesAPI.get(url).body == bytes }
                }
                for try await same in group { #expect(same, "a download differs from its upload") }
            }
            sampling.cancel()
            let measured = peaks.withLock { $0 }
            print("files memory: peak RSS gateway \(measured["gateway"]! >> 20) MB, files \(measured["files"]! >> 20) MB")
            #expect(measured["gateway"]! < Self.limitBytes, "gateway peaked at \(measured["gateway"]! >> 20) MB")
            #expect(measured["files"]! < Self.limitBytes, "files peaked at \(measured["files"]! >> 20) MB")
        }
    }
}
