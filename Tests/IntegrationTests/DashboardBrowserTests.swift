import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension IntegrationSuite {
    /// The dashboard in headless Chromium (`Scripts/dashboard_walk.py`, Selenium): the Paws tutorial and the
    /// photo wall as a person clicks through them, a forged request from another origin, and the first page of
    /// a large class timed. Its steps and the timing are printed; screenshots go to `PARSE_TEST_SCREENSHOTS`.
    @Suite struct DashboardBrowser {
        static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Scripts/dashboard_walk.py").path

        @Test(.enabled(if: DashboardBrowser.hasBrowser, "needs chromium, chromium-driver and selenium (deploy/stack test installs them)"))
        func pawsTutorialAndPhotoWallInChromium() throws {
            #expect(try Self.run(["python3", Self.script]) == 0, "the browser walk failed: see its output above")
        }

        static var hasBrowser: Bool {
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
        }

        /// The exit status of `arguments` run with the tests' environment; its output goes to the test log.
        /// posix_spawn and waitpid, as `TestStack.control` does.
        static func run(_ arguments: [String]) throws -> Int32 {
            let argv = (["/usr/bin/env"] + arguments).map { strdup($0) } + [nil]
            let envp = TestStack.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            var pid: pid_t = 0
            guard posix_spawn(&pid, "/usr/bin/env", nil, nil, argv, envp) == 0 else {
                throw TestStack.StackError(description: "cannot run \(arguments.joined(separator: " "))")
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        }
    }
}
