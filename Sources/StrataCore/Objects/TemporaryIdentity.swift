import Foundation
import Synchronization

/// Makes the UUIDs of temporary object IDs: eight random bytes drawn once per process, then a
/// process-wide counter. Unique within the process (the counter) and, with overwhelming
/// probability, across processes (the random half), without a trip to the system's random
/// source per inserted object (`UUID()` reads `/dev/urandom` on Linux, which cost more than the
/// rest of an insert).
enum TemporaryIdentity {
    private static let prefix: UInt64 = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(0)

    /// The next temporary identity. The counter half is big-endian, so that identities made
    /// later also sort later byte by byte (``ObjectID``'s order for temporary IDs).
    static func next() -> UUID {
        let count = counter.add(1, ordering: .relaxed).newValue
        let high = prefix.bigEndian, low = count.bigEndian
        return withUnsafeBytes(of: (high, low)) { bytes in
            UUID(uuid: bytes.load(as: uuid_t.self))
        }
    }
}
