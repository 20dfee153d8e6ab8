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
            let counted = try await PostsHTTP.find("_JobStatus", ["where": ["jobName": "CloudJob1", "status": "succeeded"],
                                                                  "count": 1, "limit": 0], master: true)
            #expect((counted.json?["count"] as? Int ?? 0) >= 1, "\(counted.text)")
            #expect(PostsHTTP.results(counted).isEmpty)
            let missing = try await PostsHTTP.send("GET", "/classes/_JobStatus/noSuchJobStatus", master: true)
            #expect(missing.status == 404 && missing.code == 101)
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
            #expect(reply.json?["in_use"] is [String])
        }

        /// parse-server's `/cloud_code/jobs` (its CloudCodeRouter), and the run the schedule starts here.
        @Test func aScheduleIsStoredRunOnceWhenDueEditedAndDeleted() async throws {
            let description = "once " + UUID().uuidString
            let created = try await PostsHTTP.send("POST", "/cloud_code/jobs", ["job_schedule": [
                "jobName": "CloudJob1", "description": description, "params": #"{"startedBy":"schedule"}"#]], master: true)
            #expect(created.status == 201, "\(created.text)")
            let id = try #require(created.json?["objectId"] as? String)
            #expect(created.json?["createdAt"] is String)
            let listed = try await PostsHTTP.send("GET", "/cloud_code/jobs", master: true)
            let schedule = try #require((listed.jsonArray ?? []).first { $0["objectId"] as? String == id })
            #expect(schedule["jobName"] as? String == "CloudJob1" && schedule["description"] as? String == description)
            #expect(schedule["startAfter"] is String, "a schedule without a start starts now, as parse-server sets it")
            let data = try await PostsHTTP.send("GET", "/cloud_code/jobs/data", master: true)
            #expect((data.json?["in_use"] as? [String])?.contains("CloudJob1") == true)

            // Due at once, with no repeat: one run, from the schedule, with its parameters.
            var runs: [[String: Any]] = []
            for _ in 0..<60 where runs.isEmpty {
                try await Task.sleep(for: .milliseconds(500))
                let found = try await PostsHTTP.find("_JobStatus", ["order": "-createdAt", "limit": 50], master: true)
                runs = PostsHTTP.results(found).filter {
                    $0["source"] as? String == "schedule" && CloudAPI.text($0["params"]) == #"{"startedBy":"schedule"}"#
                }
            }
            let run = try #require(runs.first, "the schedule started no run within 30 s")
            #expect(run["jobName"] as? String == "CloudJob1")
            #expect(try await CloudAPI.finishedJob(try #require(run["objectId"] as? String))["status"] as? String == "succeeded")
            try await Task.sleep(for: .seconds(3))
            let again = try await PostsHTTP.find("_JobStatus", ["order": "-createdAt", "limit": 50], master: true)
            #expect(PostsHTTP.results(again).filter { $0["source"] as? String == "schedule"
                && CloudAPI.text($0["params"]) == #"{"startedBy":"schedule"}"# }.count == 1, "a schedule without a repeat runs once")
            let after = try await PostsHTTP.send("GET", "/cloud_code/jobs", master: true)
            #expect(((after.jsonArray ?? []).first { $0["objectId"] as? String == id })?["lastRun"] is Double)

            let edited = try await PostsHTTP.send("PUT", "/cloud_code/jobs/\(id)", ["job_schedule": [
                "jobName": "CloudJob1", "description": description + " edited", "repeatMinutes": 1440]], master: true)
            #expect(edited.status == 200)
            #expect((edited.json?["response"] as? [String: Any])?["updatedAt"] is String, "\(edited.text)")
            let deleted = try await PostsHTTP.send("DELETE", "/cloud_code/jobs/\(id)", master: true)
            #expect(deleted.status == 200)
            let gone = try await PostsHTTP.send("DELETE", "/cloud_code/jobs/\(id)", master: true)
            #expect(gone.status == 404 && gone.code == 101)
        }

        /// The workers registered over AMQP, and whether one reads its queue now.
        @Test func theWorkersAreListedWithWhetherTheyAreConnected() async throws {
            func exampleWorker() async throws -> [String: Any]? {
                let reply = try await PostsHTTP.send("GET", "/cloud_code/workers", master: true)
                #expect(reply.status == 200, "\(reply.text)")
                return (reply.jsonArray ?? []).first { ($0["jobs"] as? [String])?.contains("CloudJob2") == true }
            }
            let worker = try #require(try await exampleWorker())
            #expect(worker["connected"] as? Bool == true && (worker["consumers"] as? Int ?? 0) >= 1, "\(worker)")
            #expect((worker["functions"] as? [String])?.isEmpty == false && worker["registeredAt"] is String)
            try await TestStack.while(["stop-service", "cloud-example-worker"], restartWith: ["start-service", "cloud-example-worker"]) {
                var stopped = try await exampleWorker()
                for _ in 0..<50 where stopped?["connected"] as? Bool != false {
                    try await Task.sleep(for: .milliseconds(100))
                    stopped = try await exampleWorker()
                }
                #expect(stopped?["connected"] as? Bool == false, "a stopped worker stays listed, not connected")
            }
            let anonymous = try await PostsHTTP.send("GET", "/cloud_code/workers")
            #expect(anonymous.status == 403)
        }

        @Test func schedulesNeedTheMasterKeyADeployedJobAndAValidBody() async throws {
            let body: [String: Any] = ["job_schedule": ["jobName": "CloudJob1", "startAfter": "2999-01-01T00:00:00.000Z"]]
            let anonymous = try await PostsHTTP.send("POST", "/cloud_code/jobs", body)
            #expect(anonymous.status == 403)
            let readOnly = try await PostsHTTP.send("POST", "/cloud_code/jobs", body,
                                                    headers: ["X-Parse-Master-Key": TestStack.readOnlyMasterKey])
            #expect(readOnly.status == 403 || readOnly.code == 119, "\(readOnly.text)")
            let unknown = try await PostsHTTP.send("POST", "/cloud_code/jobs", ["job_schedule": ["jobName": "noSuchJob"]], master: true)
            #expect(unknown.status == 400)
            #expect(AuthAPI.error(unknown) == (1, "Cannot Schedule a job that is not deployed"))
            for bad in [["jobName": "CloudJob1", "repeatMinutes": "often"], ["jobName": "CloudJob1", "timeOfDay": "25:61"],
                        ["jobName": "CloudJob1", "params": "{not json"]] as [[String: Any]] {
                let refused = try await PostsHTTP.send("POST", "/cloud_code/jobs", ["job_schedule": bad], master: true)
                #expect(refused.status == 400 && refused.code == 107, "\(refused.text)")
            }
            let missing = try await PostsHTTP.send("PUT", "/cloud_code/jobs/noSuchSchedule", body, master: true)
            #expect(missing.status == 404 && missing.code == 101)
        }
    }
}
