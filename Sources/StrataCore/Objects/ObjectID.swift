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

    /// The entity's name.
    public let entityName: String
    /// The identifier of the store that holds the object; empty for temporary IDs.
    public let storeIdentifier: String
    /// The primary key or temporary identity.
    public let key: Key

    /// A permanent ID, as a store hands it out.
    public init(entityName: String, storeIdentifier: String, primaryKey: Int64) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.key = .permanent(primaryKey)
    }

    /// A fresh temporary ID for a newly inserted object.
    public static func temporary(entityName: String) -> ObjectID {
        ObjectID(entityName: entityName, storeIdentifier: "", key: .temporary(TemporaryIdentity.next()))
    }

    private init(entityName: String, storeIdentifier: String, key: Key) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.key = key
    }

    /// Whether this ID is temporary (the object was never saved).
    public var isTemporary: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The primary key of a permanent ID; `nil` for a temporary one.
    public var primaryKey: Int64? {
        if case .permanent(let pk) = key { return pk }
        return nil
    }
}

extension ObjectID {
    /// Hashes the key and the entity name's length only. IDs are the keys of the engine's
    /// busiest dictionaries (registries, changed objects, row caches), and hashing the names'
    /// characters (and the long store identifier) on every lookup cost more than the rest of the
    /// lookup. Keys are unique within an entity and UUIDs everywhere, so IDs that collide are
    /// rare (the same key in two entities whose names have the same length); equality still
    /// compares every part.
    public func hash(into hasher: inout Hasher) {
        switch key {
        case .permanent(let pk): hasher.combine(pk)
        case .temporary(let uuid): hasher.combine(uuid)
        }
        hasher.combine(entityName.utf8.count)
    }

    /// The hash sets and dictionaries use: the key alone, through the standard library's
    /// one-word hashing (the path `Int64` keys take), which is two to three times faster than a
    /// `Hasher` fed field by field. The engine keys its registries, change sets and row caches
    /// by `ObjectID`, so this is on the path of every object it touches. Consistent with ``==``:
    /// equal IDs have equal keys.
    public func _rawHashValue(seed: Int) -> Int {
        switch key {
        case .permanent(let pk): return pk._rawHashValue(seed: seed)
        case .temporary(let uuid):
            let folded = withUnsafeBytes(of: uuid.uuid) { $0.loadUnaligned(as: UInt64.self) ^ $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) }
            return folded._rawHashValue(seed: seed)
        }
    }

    /// Equal when entity, store and key are: the key first, the cheapest test that tells most
    /// IDs apart.
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.key == rhs.key && lhs.entityName == rhs.entityName && lhs.storeIdentifier == rhs.storeIdentifier
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
        let store = String(parts[0]), entity = String(parts[1]), keyText = parts[2]
        guard ModelNaming.isValidName(entity) else { throw fail("'\(entity)' is not a valid entity name") }
        guard let marker = keyText.first else { throw fail("the key is empty") }
        switch marker {
        case "p":
            guard !store.isEmpty else { throw fail("a permanent ID needs a store identifier") }
            guard StoreIdentifier.isValid(store) else { throw fail("'\(store)' is not a valid store identifier") }
            guard let pk = Int64(keyText.dropFirst()) else { throw fail("'\(keyText.dropFirst())' is not a 64-bit key") }
            self.init(entityName: entity, storeIdentifier: store, primaryKey: pk)
        case "t":
            guard store.isEmpty else { throw fail("a temporary ID has no store identifier") }
            guard let uuid = UUID(uuidString: String(keyText.dropFirst())) else { throw fail("'\(keyText.dropFirst())' is not a UUID") }
            self.init(entityName: entity, storeIdentifier: "", key: .temporary(uuid))
        default:
            throw fail("the key must start with p (permanent) or t (temporary)")
        }
    }
}

extension ObjectID: Comparable {
    /// Orders by entity name, then store, then permanent key (temporary IDs last, by UUID bytes).
    /// This is the tie-break order of every fetch.
    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
        if lhs.entityName != rhs.entityName { return lhs.entityName < rhs.entityName }
        if lhs.storeIdentifier != rhs.storeIdentifier { return lhs.storeIdentifier < rhs.storeIdentifier }
        switch (lhs.key, rhs.key) {
        case (.permanent(let a), .permanent(let b)): return a < b
        case (.permanent, .temporary): return true
        case (.temporary, .permanent): return false
        case (.temporary(let a), .temporary(let b)):
            return withUnsafeBytes(of: a.uuid) { x in withUnsafeBytes(of: b.uuid) { y in x.lexicographicallyPrecedes(y) } }
        }
    }
}

/// Rules for store identifiers, which appear in object ID URIs.
public enum StoreIdentifier {
    /// A new random store identifier (an uppercase UUID string).
    public static func make() -> String { UUID().uuidString }

    /// Whether `text` is a usable store identifier: 1 to 128 characters of `A-Z a-z 0-9 - _ .`.
    public static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128 && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x5F || byte == 0x2E
        }
    }
}
