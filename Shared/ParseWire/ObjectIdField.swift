/// A client's own `objectId` on a create, as parse-server's `allowCustomObjectId` takes it.
public enum ObjectIdField {
    public static func custom(_ value: JSONValue) throws(ParseError) -> String {
        guard let id = value.stringValue, !id.isEmpty else {
            throw ParseError(.missingObjectId, "objectId must not be empty, null or undefined")
        }
        guard ObjectId.isValid(id) else {
            throw ParseError(.missingObjectId, "objectId must be 1 to 120 printable characters without '/'.")
        }
        return id
    }
}
