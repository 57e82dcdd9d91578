import Foundation
import Testing

@testable import StrataCore

/// An ``ObjectID`` is a scope number and a key. These tests pin that it still behaves exactly as
/// the value it stands for (entity name, store identifier, key): equality, hashing, order, URIs,
/// whichever way and on whichever thread it was made.
@Suite struct ObjectIDScopeTests {
    /// The fields an ID stands for, in the documented order: entity; then permanent IDs, by store
    /// and key; then temporary ones, by UUID bytes (so a new object sorts after every saved
    /// object of its entity, whichever store holds them).
    struct Reference: Comparable {
        let entityName: String, storeIdentifier: String, key: ObjectID.Key
        init(_ id: ObjectID) { (entityName, storeIdentifier, key) = (id.entityName, id.storeIdentifier, id.key) }
        static func < (l: Reference, r: Reference) -> Bool {
            if l.entityName != r.entityName { return l.entityName < r.entityName }
            switch (l.key, r.key) {
            case (.permanent(let a), .permanent(let b)):
                return l.storeIdentifier != r.storeIdentifier ? l.storeIdentifier < r.storeIdentifier : a < b
            case (.permanent, .temporary): return true
            case (.temporary, .permanent): return false
            case (.temporary(let a), .temporary(let b)):
                return withUnsafeBytes(of: a.uuid) { x in
                    withUnsafeBytes(of: b.uuid) { y in x.lexicographicallyPrecedes(y) }
                }
            }
        }
    }

    /// A mix of permanent IDs (negative and extreme keys, several entities and stores, names that
    /// are prefixes of each other), this process's temporary IDs and foreign temporary IDs.
    func sampleIDs() throws -> [ObjectID] {
        var ids: [ObjectID] = []
        for entity in ["A", "AB", "B", "Employee"] {
            for store in ["s", "S-2", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"] {
                for key: Int64 in [.min, -1, 0, 1, 2, 1 << 40, .max] {
                    ids.append(ObjectID(entityName: entity, storeIdentifier: store, primaryKey: key))
                }
            }
            ids.append(.temporary(entityName: entity))
            ids.append(.temporary(entityName: entity))
            ids.append(try ObjectID(uriRepresentation: "strata:///\(entity)/t00000000-0000-0000-0000-000000000001"))
            ids.append(try ObjectID(uriRepresentation: "strata:///\(entity)/tFFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFE"))
        }
        return ids
    }

    @Test func equalityHashingAndOrderAreThoseOfTheFieldsTheIDStandsFor() throws {
        let ids = try sampleIDs()
        for a in ids {
            for b in ids {
                let (ra, rb) = (Reference(a), Reference(b))
                let same =
                    ra.entityName == rb.entityName && ra.storeIdentifier == rb.storeIdentifier && ra.key == rb.key
                #expect((a == b) == same, "\(a) == \(b)")
                if same { #expect(a.hashValue == b.hashValue) }
                #expect((a < b) == (ra < rb), "\(a) < \(b)")
            }
        }
        #expect(Set(ids).count == ids.count)
    }

    @Test func anIDMadeAnyWayIsTheSameID() throws {
        let store = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        let scope = ObjectID.Scope(entityName: "Employee", storeIdentifier: store)
        let byScope = scope.id(primaryKey: 42)
        let byInit = ObjectID(entityName: "Employee", storeIdentifier: store, primaryKey: 42)
        let byURI = try ObjectID(uriRepresentation: "strata://\(store)/Employee/p42")
        #expect(byScope == byInit && byInit == byURI)
        #expect(byScope.scope == scope && scope.entityName == "Employee" && scope.storeIdentifier == store)
        #expect(byScope.primaryKey == 42 && byScope.permanentKey == 42 && !byScope.isTemporary)
        #expect(byScope.key == .permanent(42))
        // Another store, another entity: another scope, so another ID with the same key.
        #expect(ObjectID(entityName: "Employee", storeIdentifier: "other", primaryKey: 42) != byInit)
        #expect(ObjectID(entityName: "Department", storeIdentifier: store, primaryKey: 42) != byInit)
    }

    @Test func temporaryIDsKeepTheirUUIDAndSiblingsShareTheScope() throws {
        let first = ObjectID.temporary(entityName: "Employee")
        let sibling = ObjectID.temporary(like: first)
        #expect(sibling.isTemporary && sibling.primaryKey == nil && sibling.scope == first.scope)
        #expect(sibling != first && first < sibling, "made later, sorts later")
        #expect(try ObjectID(uriRepresentation: sibling.uriRepresentation) == sibling)
        // A temporary ID from another process keeps every byte of its UUID.
        let uuid = UUID(uuidString: "0123ABCD-4567-89EF-0011-223344556677")!
        let foreign = try ObjectID(uriRepresentation: "strata:///Employee/t\(uuid.uuidString)")
        #expect(foreign.key == .temporary(uuid))
        #expect(foreign.uriRepresentation == "strata:///Employee/t\(uuid.uuidString)")
        #expect(foreign != first && foreign.scope != first.scope)
    }

    @Test func idsMadeOnManyThreadsAtOnceAreConsistent() async throws {
        // Eight tasks make IDs in 300 new scopes each (so the table grows past a chunk of
        // 1,024 while others read it) and check every ID they made reads back its own names.
        let run = UUID().uuidString
        let failures = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var failures = 0
                    var made: [(ObjectID, String, String)] = []
                    for i in 0..<300 {
                        let entity = "E\(task)_\(i % 7)"
                        let store = "\(run)-\(task)-\(i)"
                        let id = ObjectID(entityName: entity, storeIdentifier: store, primaryKey: Int64(i))
                        made.append((id, entity, store))
                    }
                    for (id, entity, store) in made
                    where id.entityName != entity || id.storeIdentifier != store || id.primaryKey == nil {
                        failures += 1
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
    }
}
