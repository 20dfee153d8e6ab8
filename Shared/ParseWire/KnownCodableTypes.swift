import Foundation

/// The generic types the coders read and write directly, looked up once: asking for `[String: String].self` in
/// a generic function instantiates its metadata through the runtime's cache on every call.
enum KnownCodableTypes {
    static let stringDictionary: Any.Type = [String: String].self
    static let stringArray: Any.Type = [String].self
    static let valueDictionary: Any.Type = [String: JSONValue].self
    static let valueArray: Any.Type = [JSONValue].self
}
