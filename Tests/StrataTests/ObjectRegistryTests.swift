import StrataTestSupport
import Testing

@testable import StrataEngine

/// A context's registry: found by ID through renames, removals and sweeps as a dictionary
/// would, and its objects released in the order they joined.
@Suite struct ObjectRegistryTests {
    static let entity = Entity("Item")
    static let scope = ObjectID.Scope(entityName: "Item", storeIdentifier: "S")

    /// An object that notes its key in `released` when it goes.
    final class Tracked: ManagedObject {
        nonisolated(unsafe) static var released: [Int64] = []
        deinit { Tracked.released.append(objectID.primaryKey ?? -1) }
    }

    static func object(_ key: Int64) -> ManagedObject {
        ManagedObject(entity: entity, objectID: scope.id(primaryKey: key), context: nil)
    }

    @Test func findsReplacesAndRemovesByID() {
        var registry = ObjectRegistry()
        let first = Self.object(1)
        registry.register(first)
        registry.register(Self.object(2))
        #expect(registry.count == 2 && registry[Self.scope.id(primaryKey: 1)] === first)
        let replacement = Self.object(1)
        registry.register(replacement)
        #expect(registry.count == 2 && registry[Self.scope.id(primaryKey: 1)] === replacement)
        registry.remove(first, registeredAs: first.objectID)
        #expect(registry.count == 2, "another object under the same ID is not removed")
        registry.remove(replacement, registeredAs: replacement.objectID)
        #expect(registry.count == 1 && registry[Self.scope.id(primaryKey: 1)] == nil)
        #expect(registry[Self.scope.id(primaryKey: 3)] == nil)
    }

    @Test func aRenamedObjectLeavesItsOldIDAndIsFoundUnderItsNewOne() {
        var registry = ObjectRegistry()
        let object = ManagedObject(entity: Self.entity, objectID: .temporary(entityName: "Item"), context: nil)
        registry.register(object)
        let old = object.objectID
        object.objectID = Self.scope.id(primaryKey: 7)
        registry.remove(object, registeredAs: old)
        registry.register(object)
        #expect(registry.count == 1)
        #expect(registry[old] == nil)
        #expect(registry[Self.scope.id(primaryKey: 7)] === object)
    }

    /// Random registrations, removals and sweeps, checked against a dictionary after each step.
    @Test func agreesWithADictionaryThroughRandomChanges() {
        var generator = SeededGenerator(seed: 42)
        var registry = ObjectRegistry()
        // The model names objects without holding them, so that a sweep sees the references the
        // test holds (`held`) and the registry's own.
        var model: [ObjectID: ObjectIdentifier] = [:]
        var held: [ManagedObject] = []
        for step in 0..<20_000 {
            let key = Int64(generator.next() % 3_000)
            let id = Self.scope.id(primaryKey: key)
            switch generator.next() % 10 {
            case 0..<5:
                let object = Self.object(key)
                registry.register(object)
                model[id] = ObjectIdentifier(object)
                if generator.next() % 2 == 0 { held.append(object) }
            case 5..<9:
                if let object = registry[id] {
                    registry.remove(object, registeredAs: id)
                    model[id] = nil
                }
            default:
                if step % 50 == 0 {
                    if held.count > 200 { held.removeFirst(held.count / 2) }
                    let heldIDs = Set(held.map(ObjectIdentifier.init))
                    registry.removeAll { isKnownUniquelyReferenced(&$0) }
                    model = model.filter { heldIDs.contains($0.value) }
                }
            }
            #expect(registry.count == model.count)
            if step % 97 == 0 {
                for (id, object) in model { #expect(registry[id].map(ObjectIdentifier.init) == object) }
                #expect(Set(registry.values.map(ObjectIdentifier.init)) == Set(model.values))
            }
        }
        for key in 0..<3_000 {
            let id = Self.scope.id(primaryKey: Int64(key))
            #expect(registry[id].map(ObjectIdentifier.init) == model[id])
        }
    }

    @Test func aSweepKeepsTheObjectsHeldElsewhere() {
        var registry = ObjectRegistry()
        var kept: [ManagedObject] = []
        for key in 0..<1_000 {
            let object = Self.object(Int64(key))
            registry.register(object)
            if key % 10 == 0 { kept.append(object) }
        }
        #expect(registry.removeAll { isKnownUniquelyReferenced(&$0) } == 900)
        #expect(registry.count == 100)
        for object in kept { #expect(registry[object.objectID] === object) }
        #expect(registry.values.map(\.objectID) == kept.map(\.objectID), "survivors keep their order")
    }

    /// What makes a large context's end cheap: its objects go in the order they joined (the
    /// order a fetch allocated them in), not in the order of their IDs' hashes.
    @Test func objectsAreReleasedInTheOrderTheyJoined() {
        Tracked.released = []
        var generator = SeededGenerator(seed: 7)
        var registry = ObjectRegistry()
        for _ in 0..<2_000 {
            let key = Int64(generator.next() % 1_000_000_000)
            registry.register(Tracked(entity: Self.entity, objectID: Self.scope.id(primaryKey: key), context: nil))
        }
        let joined = registry.values.map { $0.objectID.primaryKey! }
        registry.removeAll()
        #expect(Tracked.released == joined)
    }
}
