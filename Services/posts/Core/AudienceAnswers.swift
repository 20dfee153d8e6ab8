import Contracts
import Foundation
import ParseWire
import Query
import Storage

/// `_Audience` (`/push_audiences`) as parse-server serves it: `query` is stored as JSON text and answered as an
/// object, and a push sent with `audience_id` counts one more use of the audience.
enum AudienceAnswers {
    static func parsingQueries(_ response: RESTResponse) -> RESTResponse {
        guard response.status == 200, var body = JSONValue.parse(response.body)?.objectValue else { return response }
        if let results = body["results"]?.arrayValue {
            body["results"] = .array(results.map(parsingQuery))
        } else {
            body = parsingQuery(.object(body)).objectValue ?? body
        }
        return PostsHandler.json(200, .object(body), headers: response.headers)
    }

    private static func parsingQuery(_ object: JSONValue) -> JSONValue {
        guard var fields = object.objectValue, let text = fields["query"]?.stringValue,
              let query = JSONValue.parse(text) else { return object }
        fields["query"] = query
        return .object(fields)
    }

    static func markUsed(_ audienceId: String, on connection: PostgresConnection) async throws {
        guard try await SchemaStore.load(PlatformClasses.audience, on: connection) != nil else { return }
        _ = try await connection.query("""
            UPDATE \(Names.table(PlatformClasses.audience)) SET "timesUsed" = COALESCE("timesUsed", 0) + 1,
                "lastUsed" = $2::timestamptz, "updatedAt" = $2::timestamptz WHERE "objectId" = $1
            """, [audienceId, ObjectWriter.now()])
    }
}
