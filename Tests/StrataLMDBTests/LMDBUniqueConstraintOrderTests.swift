import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataLMDB

/// The version hash sorts a unique constraint's attributes, so a store made with `[maker, code]`
/// opens with a model that declares `[code, maker]` (a Swift class and a JSON file, say): the
/// store keeps the constraint's database and key order, and the constraint still holds.
@Suite struct LMDBUniqueConstraintOrderTests {
    static func model(_ constraint: [String], version: String = "v1", extra: Bool = false) throws -> Model {
        var attributes = [Attribute("code", .string), Attribute("maker", .string), Attribute("count", .integer64)]
        if extra { attributes.append(Attribute("note", .string, isOptional: true)) }
        return try Model(
            versionIdentifier: version,
            entities: [Entity("Part", attributes: attributes, uniqueConstraints: [constraint])])
    }

    /// Saves a part with `code` and `maker` through `store`.
    static func insert(_ store: any PersistentStore, _ model: Model, code: String, maker: String) throws -> ObjectID {
        let entity = model.entities[0]
        let id = try store.obtainPermanentIDs(for: "Part", count: 1)[0]
        var snapshot = Snapshot(objectID: id, entity: entity)
        snapshot.attributes[entity.attributeIndex(named: "code")!] = .string(code)
        snapshot.attributes[entity.attributeIndex(named: "maker")!] = .string(maker)
        snapshot.attributes[entity.attributeIndex(named: "count")!] = .integer(1)
        try store.save(SaveRequest(inserts: [snapshot]))
        return id
    }

    static func expectDuplicateRefused(_ store: any PersistentStore, _ model: Model, code: String, maker: String) {
        let error = #expect(throws: StrataError.self) { _ = try insert(store, model, code: code, maker: maker) }
        #expect(error?.code == .uniqueConstraint)
    }

    @Test func aStoreOpensWithAModelThatDeclaresAConstraintInAnotherOrder() throws {
        let made = try Self.model(["maker", "code"])
        let other = try Self.model(["code", "maker"])
        #expect(made.versionHash == other.versionHash)
        try withTemporaryDirectory { directory in
            let url = storeURL("lmdb", in: directory)
            do {
                let store = try LMDBBackend().open(url, model: made, options: StoreOptions())
                defer { try? store.close() }
                _ = try Self.insert(store, made, code: "A1", maker: "acme")
            }
            do {
                let store = try LMDBBackend().open(url, model: other, options: StoreOptions())
                defer { try? store.close() }
                Self.expectDuplicateRefused(store, other, code: "A1", maker: "acme")
                _ = try Self.insert(store, other, code: "A1", maker: "zenith")
                _ = try Self.insert(store, other, code: "B2", maker: "acme")
                let fetched = try store.fetch(
                    FetchRequest(entityName: "Part", predicate: try ObjectPredicate(format: "maker == 'acme'")))
                #expect(try fetched.objectIDs().count == 2)
            }
            // The parts saved through the other order are in the constraint's one database.
            let store = try LMDBBackend().open(url, model: made, options: StoreOptions())
            defer { try? store.close() }
            Self.expectDuplicateRefused(store, made, code: "A1", maker: "zenith")
            Self.expectDuplicateRefused(store, made, code: "B2", maker: "acme")
        }
    }

    @Test func theOrdersOfAConstraintAreEveryPermutationOnce() {
        let orders = UniqueConstraintOrder.permutations(of: ["a", "b", "c"])
        #expect(orders.count == 6)
        #expect(Set(orders).count == 6)
        #expect(orders.first == ["a", "b", "c"])
        #expect(UniqueConstraintOrder.permutations(of: ["a"]) == [["a"]])
        let long = (0..<7).map { "p\($0)" }
        #expect(UniqueConstraintOrder.permutations(of: long) == [long], "longer constraints are looked up as declared")
    }
}
