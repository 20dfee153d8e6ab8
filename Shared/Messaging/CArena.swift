import CRabbitMQ
import Glibc

/// Owns C copies of the strings and tables handed to librabbitmq for one call. `amqp_cstring_bytes` on a Swift
/// string would point at a temporary that dies before the call reads it; these copies live until the arena does.
final class CArena {
    private var allocations: [UnsafeMutableRawPointer] = []

    deinit { allocations.forEach { free($0) } }

    func bytes(_ text: String) -> amqp_bytes_t {
        var utf8 = Array(text.utf8)
        return utf8.withUnsafeMutableBytes { raw in copy(raw.baseAddress, count: raw.count) }
    }

    func table(_ values: [String: String]) -> amqp_table_t {
        guard !values.isEmpty else { return amqp_empty_table }
        let stride = MemoryLayout<amqp_table_entry_t>.stride
        let raw = allocate(stride * values.count)
        let entries = raw.bindMemory(to: amqp_table_entry_t.self, capacity: values.count)
        for (index, (key, value)) in values.sorted(by: { $0.key < $1.key }).enumerated() {
            var entry = amqp_table_entry_t()
            entry.key = bytes(key)
            entry.value.kind = UInt8(AMQP_FIELD_KIND_UTF8.rawValue)
            entry.value.value.bytes = bytes(value)
            (entries + index).initialize(to: entry)
        }
        return amqp_table_t(num_entries: Int32(values.count), entries: entries)
    }

    private func copy(_ source: UnsafeRawPointer?, count: Int) -> amqp_bytes_t {
        let target = allocate(count)
        if let source, count > 0 { memcpy(target, source, count) }
        return amqp_bytes_t(len: count, bytes: target)
    }

    private func allocate(_ count: Int) -> UnsafeMutableRawPointer {
        guard let pointer = malloc(max(count, 1)) else { fatalError("out of memory") }
        allocations.append(pointer)
        return pointer
    }
}

extension amqp_bytes_t {
    /// A Swift copy of bytes that live in librabbitmq's buffers (valid only until they are released).
    var string: String {
        String(decoding: UnsafeRawBufferPointer(start: bytes, count: len), as: UTF8.self)
    }

    var array: [UInt8] {
        Array(UnsafeRawBufferPointer(start: bytes, count: len))
    }
}

extension amqp_table_t {
    /// String and integer entries as strings; other kinds are not used by this system and are skipped.
    var stringValues: [String: String] {
        var result: [String: String] = [:]
        for index in 0..<Int(num_entries) {
            let entry = entries[index]
            let kind = UInt32(entry.value.kind)
            switch kind {
            case AMQP_FIELD_KIND_UTF8.rawValue, AMQP_FIELD_KIND_BYTES.rawValue:
                result[entry.key.string] = entry.value.value.bytes.string
            case AMQP_FIELD_KIND_I32.rawValue:
                result[entry.key.string] = String(entry.value.value.i32)
            case AMQP_FIELD_KIND_I64.rawValue:
                result[entry.key.string] = String(entry.value.value.i64)
            default:
                continue
            }
        }
        return result
    }
}
