import Foundation

extension ObjectID {
    /// What the IDs of one entity in one store share: the entity's name and the store's
    /// identifier (for temporary IDs, the entity's name and the 64-bit prefix of their UUIDs).
    ///
    /// An ``ObjectID`` holds its scope as a 32-bit number and its key as 64 bits, so an ID is a
    /// plain value of 12 bytes (a stride of 16): copying one costs no reference counting, comparing two is two
    /// integer comparisons, and hashing one is one word. The names behind a scope are kept once,
    /// in a process-wide table that only grows (a few dozen bytes per entity and store ever
    /// seen in the process).
    ///
    /// A store that makes many IDs at once (a fetch) looks the scope of each entity up once and
    /// makes its IDs with ``id(primaryKey:)``, which costs nothing beyond the two numbers; the
    /// ``ObjectID/init(entityName:storeIdentifier:primaryKey:)`` initializer looks the scope up
    /// under a lock each time.
    public struct Scope: Sendable, Hashable {
        /// The scope's number in the process-wide table.
        let index: UInt32

        /// The scope of the permanent IDs of `entityName` in the store `storeIdentifier`.
        public init(entityName: String, storeIdentifier: String) {
            index = ScopeTable.shared.index(
                of: .init(entityName: entityName, storeIdentifier: storeIdentifier, temporaryPrefix: nil))
        }

        /// The scope of temporary IDs of `entityName` whose UUIDs start with `prefix`.
        init(entityName: String, temporaryPrefix prefix: UInt64) {
            index = ScopeTable.shared.index(
                of: .init(entityName: entityName, storeIdentifier: "", temporaryPrefix: prefix))
        }

        init(index: UInt32) { self.index = index }

        /// Equal when they are the same scope.
        @inline(__always)
        public static func == (lhs: Scope, rhs: Scope) -> Bool { lhs.index == rhs.index }

        /// Hashes the scope's number.
        public func hash(into hasher: inout Hasher) { hasher.combine(index) }

        /// The permanent ID with primary key `primaryKey` in this scope.
        @inline(__always)
        public func id(primaryKey: Int64) -> ObjectID {
            ObjectID(scope: self, bits: UInt64(bitPattern: primaryKey))
        }

        /// The entity's name.
        public var entityName: String { ScopeTable.shared.entry(index).pointee.entityName }
        /// The store's identifier; empty for the scope of temporary IDs.
        public var storeIdentifier: String { ScopeTable.shared.entry(index).pointee.storeIdentifier }
        /// The first half of the temporary IDs' UUIDs; `nil` for the scope of permanent IDs.
        var temporaryPrefix: UInt64? { ScopeTable.shared.entry(index).pointee.temporaryPrefix }
    }
}

/// The names behind one ``ObjectID/Scope``.
struct ScopeName: Hashable {
    let entityName: String
    let storeIdentifier: String
    let temporaryPrefix: UInt64?
}

/// The process-wide table of ``ObjectID/Scope`` names: appended under a lock, read without one.
///
/// Entries live in chunks of 1,024 that are never moved or freed, so a reader holding a scope
/// number reads its entry directly: the number came from ``index(of:)``, which wrote the entry
/// under the lock before handing the number out, and whatever brought the number (or an ID
/// holding it) to the reader's thread ordered that write before the read.
final class ScopeTable: @unchecked Sendable {
    static let shared = ScopeTable()

    private static let chunkBits = 10
    private static let chunkSize = 1 << chunkBits
    /// Room for 67 million scopes (65,536 chunks); the chunk pointers take 512 KiB of address
    /// space, touched only as chunks are added.
    private static let chunkCount = 1 << 16

    private let lock = NSLock()
    private var indexes: [ScopeName: UInt32] = [:]
    private var count = 0
    private let chunks: UnsafeMutablePointer<UnsafeMutablePointer<ScopeName>?>
    /// The last name looked up and its number: callers making IDs one by one mostly repeat it.
    private var last: (name: ScopeName, index: UInt32)?

    private init() {
        chunks = .allocate(capacity: Self.chunkCount)
        chunks.initialize(repeating: nil, count: Self.chunkCount)
    }

    /// The number of `name`, added to the table when it is new.
    func index(of name: ScopeName) -> UInt32 {
        lock.lock()
        defer { lock.unlock() }
        if let last, last.name == name { return last.index }
        if let found = indexes[name] {
            last = (name, found)
            return found
        }
        precondition(
            count < Self.chunkSize * Self.chunkCount,
            "more than \(Self.chunkSize * Self.chunkCount) entity and store pairs in one process")
        let chunk = count >> Self.chunkBits
        if chunks[chunk] == nil { chunks[chunk] = .allocate(capacity: Self.chunkSize) }
        (chunks[chunk]! + (count & (Self.chunkSize - 1))).initialize(to: name)
        let index = UInt32(count)
        count += 1
        indexes[name] = index
        last = (name, index)
        return index
    }

    /// The name of scope `index` (a number ``index(of:)`` handed out), in place: reading one
    /// field through it copies that field only.
    @inline(__always)
    func entry(_ index: UInt32) -> UnsafePointer<ScopeName> {
        let i = Int(index)
        return UnsafePointer(chunks[i >> Self.chunkBits].unsafelyUnwrapped + (i & (Self.chunkSize - 1)))
    }
}
