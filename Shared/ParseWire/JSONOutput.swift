/// The bytes of one JSON text being encoded, shared by the encoders of all its nested values, which append to it
/// in turn: a value is written where it goes, with no tree of values built first. Nested values finish before
/// the value around them goes on, so the members of the objects being written form one stack here, and one
/// scratch buffer serves every object put in key order.
final class JSONOutput {
    /// A member's key and value (`"key":value`) sit at `start..<end` of `bytes`; a deferred member's value is in
    /// `deferred`'s output, and its key is written only when the object is put in order.
    struct Member {
        var key: String
        var start: Int
        var end: Int
        var deferred: ValueEncoding?
    }

    // Only ever used by the one encoding in progress, on one thread, so the runtime's check of overlapping
    // accesses, paid on every byte appended, can go.
    @exclusivity(unchecked) var bytes: [UInt8] = []
    @exclusivity(unchecked) var members: [Member] = []
    @exclusivity(unchecked) var scratch: [UInt8] = []

    init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
        members.reserveCapacity(32)
    }
}
