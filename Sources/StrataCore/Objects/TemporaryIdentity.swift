import Foundation
import Synchronization

/// Makes the UUIDs of temporary object IDs: eight random bytes drawn once per process (the
/// prefix), then a process-wide counter. Unique within the process (the counter) and, with
/// overwhelming probability, across processes (the random half), without a trip to the system's
/// random source per inserted object (`UUID()` reads `/dev/urandom` on Linux, which cost more than
/// the rest of an insert).
///
/// Both halves are big-endian in the UUID, so that identities made later also sort later byte by
/// byte (``ObjectID``'s order for temporary IDs).
enum TemporaryIdentity {
    /// This process's prefix.
    static let prefix: UInt64 = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(0)

    /// The next temporary identity, as its two halves.
    static func next() -> (prefix: UInt64, counter: UInt64) {
        (prefix, counter.add(1, ordering: .relaxed).newValue)
    }

    /// The UUID of the identity with these halves.
    static func uuid(prefix: UInt64, counter: UInt64) -> UUID {
        withUnsafeBytes(of: (prefix.bigEndian, counter.bigEndian)) { bytes in
            UUID(uuid: bytes.load(as: uuid_t.self))
        }
    }

    /// The halves of `uuid` (the inverse of ``uuid(prefix:counter:)``).
    static func halves(of uuid: UUID) -> (prefix: UInt64, counter: UInt64) {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            (
                UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)),
                UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            )
        }
    }
}
