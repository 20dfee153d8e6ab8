import GraphQL
import ParseWire

/// The server's messages of graphql-transport-ws (github.com/enisdenjo/graphql-ws, PROTOCOL.md).
enum GraphQLTransportMessages {
    static let connectionAck = #"{"type":"connection_ack"}"#
    static let pong = #"{"type":"pong"}"#

    /// One event's execution result: `payload` is the operation's `{"data", "errors"}`.
    static func next(id: String, _ result: GraphQLResponse) -> String {
        #"{"id":\#(JSONValue.string(id).compactText),"type":"next","payload":\#(result.jsonText)}"#
    }

    /// The operation could not run, or cannot go on: it ends here.
    static func error(id: String, _ errors: [GraphQLError]) -> String {
        #"{"id":\#(JSONValue.string(id).compactText),"type":"error","payload":\#(GraphQLData.list(errors.map(\.data)).jsonText)}"#
    }
}
