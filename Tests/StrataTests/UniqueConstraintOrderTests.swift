import Foundation
import Strata
import StrataTestSupport
import Testing

/// A model's version hash ignores the order of a unique constraint's attributes, so every
/// persistent backend opens a store made with `[maker, code]` with a model declaring
/// `[code, maker]`, and the constraint holds across both.
@Suite struct UniqueConstraintOrderTests {
    static func model(_ constraint: [String]) throws -> Model {
        try Model(
            entities: [
                Entity(
                    "Part", attributes: [Attribute("code", .string), Attribute("maker", .string)],
                    uniqueConstraints: [constraint])
            ])
    }

    static func insert(_ store: any PersistentStore, _ model: Model, code: String, maker: String) throws {
        let entity = model.entities[0]
        var snapshot = Snapshot(objectID: try store.obtainPermanentIDs(for: "Part", count: 1)[0], entity: entity)
        snapshot.attributes[entity.attributeIndex(named: "code")!] = .string(code)
        snapshot.attributes[entity.attributeIndex(named: "maker")!] = .string(maker)
        try store.save(SaveRequest(inserts: [snapshot]))
    }

    @Test(arguments: ["sqlite", "lmdb", "xml"])
    func aStoreOpensWithTheConstraintDeclaredInAnotherOrder(_ scheme: String) throws {
        let made = try Self.model(["maker", "code"])
        let other = try Self.model(["code", "maker"])
        let backend = try BuiltInBackends.registry.backend(for: scheme)
        try withTemporaryDirectory { directory in
            let url = storeURL(scheme, in: directory)
            do {
                let store = try backend.open(url, model: made, options: StoreOptions())
                defer { try? store.close() }
                try Self.insert(store, made, code: "A1", maker: "acme")
            }
            do {
                let store = try backend.open(url, model: other, options: StoreOptions())
                defer { try? store.close() }
                let error = #expect(throws: StrataError.self) {
                    try Self.insert(store, other, code: "A1", maker: "acme")
                }
                #expect(error?.code == .uniqueConstraint)
                try Self.insert(store, other, code: "B2", maker: "acme")
            }
            let store = try backend.open(url, model: made, options: StoreOptions())
            defer { try? store.close() }
            let error = #expect(throws: StrataError.self) { try Self.insert(store, made, code: "B2", maker: "acme") }
            #expect(error?.code == .uniqueConstraint)
        }
    }
}
