import Foundation

/// The identity of an object: safe to pass between threads, contexts and processes.
///
/// A *permanent* ID names an entity, a 64-bit primary key and the store that handed it out.
/// A *temporary* ID names a newly inserted object that no store has seen yet; the engine replaces
/// it with a permanent one when the object is saved (or on `obtainPermanentIDs`). Stores only ever
/// see permanent IDs.
///
/// IDs have a URI form that prints and parses:
/// `strata://STORE-ID/Employee/p42` (permanent) and `strata:///Employee/tUUID` (temporary).
public struct ObjectID: Sendable, Hashable {
    /// How the object is identified.
    public enum Key: Sendable, Hashable {
        /// A key handed out by a store.
        case permanent(Int64)
        /// A context-local identity, before the first save.
        case temporary(UUID)
    }

    // The key's bits come first: an ID is then 12 bytes (its stride stays 16), and a type that
    // stores one may put a 4-byte field in the rest (``ManagedObject`` does).

    /// The primary key's bit pattern (permanent), or the second half of the UUID (temporary).
    let bits: UInt64
    /// The entity and store (or temporary prefix) the ID belongs to; see ``Scope``.
    public let scope: Scope

    @inline(__always)
    init(scope: Scope, bits: UInt64) {
        self.scope = scope
        self.bits = bits
    }

    /// A permanent ID, as a store hands it out. Looks the entity and store up in the
    /// process-wide scope table; to make many IDs of one entity, look its ``Scope`` up once and
    /// use ``Scope/id(primaryKey:)``.
    public init(entityName: String, storeIdentifier: String, primaryKey: Int64) {
        self.init(
            scope: Scope(entityName: entityName, storeIdentifier: storeIdentifier), bits: UInt64(bitPattern: primaryKey)
        )
    }

    /// A fresh temporary ID for a newly inserted object.
    public static func temporary(entityName: String) -> ObjectID {
        let (prefix, counter) = TemporaryIdentity.next()
        return ObjectID(scope: Scope(entityName: entityName, temporaryPrefix: prefix), bits: counter)
    }

    /// A fresh temporary ID in the scope of `sibling`, a temporary ID made by this process
    /// (every temporary ID of one entity made in a process shares a scope): no scope lookup.
    public static func temporary(like sibling: ObjectID) -> ObjectID {
        precondition(
            sibling.scope.temporaryPrefix == TemporaryIdentity.prefix,
            "\(sibling) is not a temporary ID of this process")
        return ObjectID(scope: sibling.scope, bits: TemporaryIdentity.next().counter)
    }

    /// The entity's name.
    public var entityName: String { scope.entityName }
    /// The identifier of the store that holds the object; empty for temporary IDs.
    public var storeIdentifier: String { scope.storeIdentifier }

    /// The primary key or temporary identity.
    public var key: Key {
        guard let prefix = scope.temporaryPrefix else { return .permanent(Int64(bitPattern: bits)) }
        return .temporary(TemporaryIdentity.uuid(prefix: prefix, counter: bits))
    }

    /// Whether this ID is temporary (the object was never saved).
    public var isTemporary: Bool { scope.temporaryPrefix != nil }

    /// The primary key of a permanent ID; `nil` for a temporary one.
    public var primaryKey: Int64? {
        scope.temporaryPrefix == nil ? Int64(bitPattern: bits) : nil
    }

    /// The counter of a temporary ID, which orders the temporary IDs of one scope (one entity,
    /// made in one process) as they were made; no check beyond a debug build's.
    @inline(__always)
    package var temporaryCounter: UInt64 {
        assert(isTemporary, "\(self) is permanent")
        return bits
    }

    /// The primary key of an ID known to be permanent (a store's ID): no check beyond a debug
    /// build's.
    @inline(__always)
    public var permanentKey: Int64 {
        assert(!isTemporary, "\(self) is temporary")
        return Int64(bitPattern: bits)
    }
}

extension ObjectID {
    /// Hashes the scope and the key: two plain numbers.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bits)
        hasher.combine(scope.index)
    }

    /// The hash sets and dictionaries use. The engine keys its registries, change sets and
    /// notifications by `ObjectID`, about a dozen hash-table operations for every object it
    /// saves, so this is a multiply-xorshift mix (the finalizer of SplitMix64, a bijection on
    /// 64 bits) of the key, the scope and the table's per-instance seed, about ten instructions,
    /// instead of SipHash's seventy. The seed still differs per table and per process, so keys
    /// cannot be chosen to collide without knowing it; sequential keys spread evenly. It reads
    /// exactly the two fields ``==(_:_:)`` compares, so equal IDs hash equally. Worth 3% to 28%
    /// of the instructions of every object-graph path on SQLite (Benchmarks/README.md, "Engine
    /// complexity that pays").
    @inline(__always)
    public func _rawHashValue(seed: Int) -> Int {
        var x = bits ^ (UInt64(scope.index) << 40 | UInt64(scope.index) >> 24) ^ UInt64(bitPattern: Int64(seed))
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(bitPattern: UInt(x ^ (x >> 31)))
    }

    /// Equal when entity, store and key are (the scope stands for entity and store).
    @inline(__always)
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.bits == rhs.bits && lhs.scope.index == rhs.scope.index
    }
}

extension ObjectID: CustomStringConvertible {
    /// `Employee p42` or `Employee t3F2...`: short, for messages. Use ``uriRepresentation`` to store.
    public var description: String {
        switch key {
        case .permanent(let pk): return "\(entityName) p\(pk)"
        case .temporary(let id): return "\(entityName) t\(id.uuidString)"
        }
    }
}

extension ObjectID {
    /// The URI form: `strata://STORE-ID/Entity/p42`, or `strata:///Entity/tUUID` when temporary.
    public var uriRepresentation: String {
        switch key {
        case .permanent(let pk): return "strata://\(storeIdentifier)/\(entityName)/p\(pk)"
        case .temporary(let id): return "strata:///\(entityName)/t\(id.uuidString)"
        }
    }

    /// Parses the URI form written by ``uriRepresentation``.
    ///
    /// - Throws: ``StrataError`` with code ``StrataError/Code/invalidObjectID`` naming the text and
    ///   the part that is wrong.
    public init(uriRepresentation text: String) throws {
        func fail(_ why: String) -> StrataError {
            StrataError(.invalidObjectID, "'\(text)' is not an object ID URI: \(why)", location: ["uri": text])
        }
        let prefix = "strata://"
        guard text.hasPrefix(prefix) else { throw fail("it must start with \(prefix)") }
        let parts = text.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw fail("expected strata://STORE/ENTITY/KEY") }
        let store = String(parts[0])
        let entity = String(parts[1])
        let keyText = parts[2]
        guard ModelNaming.isValidName(entity) else { throw fail("'\(entity)' is not a valid entity name") }
        guard let marker = keyText.first else { throw fail("the key is empty") }
        switch marker {
        case "p":
            guard !store.isEmpty else { throw fail("a permanent ID needs a store identifier") }
            guard StoreIdentifier.isValid(store) else { throw fail("'\(store)' is not a valid store identifier") }
            guard let pk = Int64(keyText.dropFirst()) else {
                throw fail("'\(keyText.dropFirst())' is not a 64-bit key")
            }
            self.init(entityName: entity, storeIdentifier: store, primaryKey: pk)
        case "t":
            guard store.isEmpty else { throw fail("a temporary ID has no store identifier") }
            guard let uuid = UUID(uuidString: String(keyText.dropFirst())) else {
                throw fail("'\(keyText.dropFirst())' is not a UUID")
            }
            let (prefix, counter) = TemporaryIdentity.halves(of: uuid)
            self.init(scope: Scope(entityName: entity, temporaryPrefix: prefix), bits: counter)
        default:
            throw fail("the key must start with p (permanent) or t (temporary)")
        }
    }
}

extension ObjectID: Comparable {
    /// Orders by entity name; within an entity, permanent IDs first, by store identifier, then
    /// key; then temporary IDs, by prefix, then counter (so in the order this process made
    /// them). A new object therefore sorts after every saved object of its entity: it joins an
    /// unordered to-many at the end and ties in a fetch's sort after the saved objects, and its
    /// permanent ID, the store's next key, usually keeps that place. This is the tie-break order
    /// of every fetch. IDs of one scope compare by key alone.
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        if lhs.scope == rhs.scope {
            return lhs.scope.temporaryPrefix == nil
                ? Int64(bitPattern: lhs.bits) < Int64(bitPattern: rhs.bits) : lhs.bits < rhs.bits
        }
        let left = ScopeTable.shared.entry(lhs.scope.index).pointee
        let right = ScopeTable.shared.entry(rhs.scope.index).pointee
        if left.entityName != right.entityName { return left.entityName < right.entityName }
        switch (left.temporaryPrefix, right.temporaryPrefix) {
        case (nil, nil):
            if left.storeIdentifier != right.storeIdentifier { return left.storeIdentifier < right.storeIdentifier }
            return Int64(bitPattern: lhs.bits) < Int64(bitPattern: rhs.bits)
        case (nil, _?): return true
        case (_?, nil): return false
        case (let a?, let b?): return a != b ? a < b : lhs.bits < rhs.bits
        }
    }
}

/// Rules for store identifiers, which appear in object ID URIs.
package enum StoreIdentifier {
    /// A new random store identifier (an uppercase UUID string).
    package static func make() -> String { UUID().uuidString }

    /// Whether `text` is a usable store identifier: 1 to 128 characters of `A-Z a-z 0-9 - _ .`.
    package static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F || byte == 0x2E
            }
    }
}
