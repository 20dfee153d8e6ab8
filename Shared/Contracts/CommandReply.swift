import ParseWire

/// A service's answer: either the reply payload or the Parse error the client should see.
public enum CommandReply<Payload: Codable & Sendable>: Codable, Sendable {
    case success(Payload)
    case failure(ParseError)

    private enum CodingKeys: String, CodingKey { case ok, error }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let error = try container.decodeIfPresent(ParseError.self, forKey: .error) {
            self = .failure(error)
        } else {
            self = .success(try container.decode(Payload.self, forKey: .ok))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .success(let payload): try container.encode(payload, forKey: .ok)
        case .failure(let error): try container.encode(error, forKey: .error)
        }
    }

    public func get() throws(ParseError) -> Payload {
        switch self {
        case .success(let payload): return payload
        case .failure(let error): throw error
        }
    }
}

/// A reply whose payload nobody needs to read yet, for decoding only the error half.
public struct Empty: Codable, Sendable, Equatable {
    public init() {}
}
