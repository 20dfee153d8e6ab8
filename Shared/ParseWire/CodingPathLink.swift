/// Where a value sits, for `codingPath`: a value being coded names its parent and key; a nested container
/// handed out for later keeps its path as a list, so that no parent and child hold each other. The path is only
/// built when an error asks for it.
enum CodingPathLink {
    case root
    case child(parent: any CodingPathHolder, key: (any CodingKey)?)
    case fixed([any CodingKey])

    var path: [any CodingKey] {
        switch self {
        case .root: return []
        case .fixed(let path): return path
        case .child(let parent, let key):
            let above = parent.codingPath
            guard let key else { return above }
            return above + [key]
        }
    }
}

protocol CodingPathHolder: AnyObject {
    var codingPath: [any CodingKey] { get }
}
