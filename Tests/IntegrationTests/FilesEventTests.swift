import Foundation
import Testing

extension IntegrationSuite {
    /// `file.stored` and `file.deleted` go through the files service's outbox, written in the same transaction as
    /// the change and then published with confirms.
    @Suite struct FilesEvents {
        /// Fails (non-zero psql status) unless `condition` holds in the files service's database.
        private func filesDatabaseHolds(_ condition: String) throws -> Bool {
            guard let scratch = TestStack.environment["PARSE_TEST_DATABASE_URL"],
                  let slash = scratch.lastIndex(of: "/") else { throw AuthTestError(description: "no PARSE_TEST_DATABASE_URL") }
            let url = String(scratch[..<slash]) + "/parse_files"
            let psql = ["/usr/bin/psql", "/usr/lib/postgresql/15/bin/psql"].first { FileManager.default.isExecutableFile(atPath: $0) }
            guard let psql else { throw AuthTestError(description: "psql not found") }
            let sql = "DO $$ BEGIN IF NOT (\(condition)) THEN RAISE EXCEPTION 'condition does not hold'; END IF; END $$"
            return try Spawned.run([psql, "-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql]) == 0
        }

        private func eventPublished(_ routingKey: String, name: String) async throws -> Bool {
            for _ in 0..<40 {
                if try filesDatabaseHolds("""
                    EXISTS (SELECT 1 FROM outbox WHERE routing_key = '\(routingKey)' AND payload->>'subject' = '\(name)'
                            AND payload->>'type' = '\(routingKey).v1' AND published_at IS NOT NULL)
                    """) { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return false
        }

        @Test func storingAndDeletingPublishEvents() async throws {
            let stored = try await FilesAPI.store("event.txt", Data("event".utf8), contentType: "text/plain")
            #expect(try await eventPublished("file.stored", name: stored.name))
            #expect(try filesDatabaseHolds("""
                (SELECT payload->'data'->>'size' FROM outbox WHERE payload->>'subject' = '\(stored.name)') = '5'
                """))
            let deleted = try await HTTP.send("DELETE", "/files/\(stored.name)", headers: FilesAPI.headers(master: true))
            #expect(deleted.status == 200)
            #expect(try await eventPublished("file.deleted", name: stored.name))
        }

        @Test func anInterruptedUploadLeavesNoFile() async throws {
            let user = try await AuthAPI.signUp("cut")
            let marker = "cut\(UUID().uuidString.prefix(8).lowercased())"
            try FilesRawUpload.cutShort("/files/\(marker).bin", headers: FilesAPI.headers(token: user.token),
                                        declaredLength: 6_000_000, sent: FilesAPI.pattern(3_500_000))
            var cleaned = false
            for _ in 0..<50 where !cleaned {
                cleaned = try filesDatabaseHolds("NOT EXISTS (SELECT 1 FROM file_uploads WHERE name LIKE '%\(marker)%')")
                if !cleaned { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(cleaned, "the parts of the interrupted upload were not dropped")
            #expect(try filesDatabaseHolds("NOT EXISTS (SELECT 1 FROM files WHERE name LIKE '%\(marker)%')"))
            #expect(try filesDatabaseHolds("NOT EXISTS (SELECT 1 FROM file_parts p WHERE NOT EXISTS "
                + "(SELECT 1 FROM files f WHERE f.upload_id = p.upload_id) AND NOT EXISTS "
                + "(SELECT 1 FROM file_uploads u WHERE u.upload_id = p.upload_id))"))
        }

        @Test func aStoredFileLeavesNoUploadInProgressAndKeepsItsParts() async throws {
            let stored = try await FilesAPI.store("parts.bin", FilesAPI.pattern(2_500_000))
            #expect(try filesDatabaseHolds("NOT EXISTS (SELECT 1 FROM file_uploads WHERE name = '\(stored.name)')"))
            #expect(try filesDatabaseHolds("""
                (SELECT count(*) FROM file_parts p JOIN files f USING (upload_id) WHERE f.name = '\(stored.name)') = 3
                """))
        }
    }
}
