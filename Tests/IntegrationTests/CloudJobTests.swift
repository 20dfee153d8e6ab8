import Foundation
import Testing

extension IntegrationSuite {
    /// `POST /jobs/<name>` and `_JobStatus`, with the example worker's jobs.
    @Suite struct CloudJobs {
        func start(_ path: String, _ params: [String: Any] = [:], master: Bool = true) async throws -> Reply {
            try await PostsHTTP.send("POST", path, params, master: master)
        }

        @Test func aJobRunIsRecordedInJobStatus() async throws {
            let reply = try await start("/jobs/CloudJob1", ["startedBy": "Monty Python"])
            #expect(reply.status == 200)
            #expect(reply.text == "{}")
            let id = try #require(reply.header("X-Parse-Job-Status-Id"))
            let status = try await CloudAPI.finishedJob(id)
            #expect(status["objectId"] as? String == id)
            #expect(status["jobName"] as? String == "CloudJob1")
            #expect(status["source"] as? String == "api")
            #expect(status["status"] as? String == "succeeded")
            #expect(CloudAPI.text(status["params"]) == #"{"startedBy":"Monty Python"}"#)
            #expect((status["finishedAt"] as? [String: Any])?["__type"] as? String == "Date")
            #expect(status["createdAt"] is String)

            let found = try await PostsHTTP.find("_JobStatus", ["where": ["objectId": id]], master: true)
            #expect(PostsHTTP.results(found).map { $0["objectId"] as? String } == [id])
        }

        @Test func aFailingJobKeepsItsMessage() async throws {
            let reply = try await start("/jobs", ["jobName": "CloudJobFailing"])
            let id = try #require(reply.header("X-Parse-Job-Status-Id"), "\(reply.status) \(reply.text)")
            let status = try await CloudAPI.finishedJob(id)
            #expect(status["status"] as? String == "failed")
            #expect(status["message"] as? String == "cloud job failed")
        }

        @Test func aLongJobIsRunningWhenTheStartAnswers() async throws {
            let reply = try await start("/jobs/CloudJob2")
            let id = try #require(reply.header("X-Parse-Job-Status-Id"))
            let status = try await PostsHTTP.send("GET", "/classes/_JobStatus/\(id)", master: true)
            #expect(status.json?["status"] as? String == "running")
            #expect(try await CloudAPI.finishedJob(id)["status"] as? String == "succeeded")
        }

        @Test func jobsNeedTheMasterKeyAndAKnownName() async throws {
            let anonymous = try await start("/jobs/CloudJob1", master: false)
            #expect(anonymous.status == 403)
            #expect(anonymous.text == #"{"error":"unauthorized: master key is required"}"#)
            let unknown = try await start("/jobs/noSuchJob")
            #expect(unknown.status == 400)
            #expect(AuthAPI.error(unknown) == (141, "Invalid job."))
            let status = try await PostsHTTP.send("GET", "/classes/_JobStatus")
            #expect(status.status == 400)
            #expect(status.code == 119)
        }

        @Test func theJobsDataListsTheWorkersJobs() async throws {
            let reply = try await PostsHTTP.send("GET", "/cloud_code/jobs/data", master: true)
            let jobs = try #require(reply.json?["jobs"] as? [String])
            #expect(Set(jobs).isSuperset(of: ["CloudJob1", "CloudJob2", "CloudJobFailing"]))
            #expect(reply.json?["in_use"] as? [String] == [])
        }
    }
}
