import Foundation
import StrataCore
import StrataLMDB
import StrataMigrations
import StrataTestSupport
import Testing

/// A native LMDB migration keeps a unique constraint's database when either model declares the
/// constraint's attributes in another order than the store made it with.
@Suite struct LMDBUniqueOrderMigrationTests {
    static func model(_ constraint: [String], version: String, extra: Bool = false) throws -> Model {
        var attributes = [Attribute("code", .string), Attribute("maker", .string)]
        if extra { attributes.append(Attribute("note", .string, isOptional: true)) }
        return try Model(
            versionIdentifier: version,
            entities: [Entity("Part", attributes: attributes, uniqueConstraints: [constraint])])
    }

    static func insert(_ store: any PersistentStore, _ model: Model, code: String, maker: String) throws {
        let entity = model.entities[0]
        var snapshot = Snapshot(objectID: try store.obtainPermanentIDs(for: "Part", count: 1)[0], entity: entity)
        snapshot.attributes[entity.attributeIndex(named: "code")!] = .string(code)
        snapshot.attributes[entity.attributeIndex(named: "maker")!] = .string(maker)
        try store.save(SaveRequest(inserts: [snapshot]))
    }

    @Test func aMigrationKeepsTheConstraintWhateverOrderTheModelsDeclare() throws {
        let made = try Self.model(["maker", "code"], version: "v1")
        let source = try Self.model(["code", "maker"], version: "v1")
        let destination = try Self.model(["code", "maker"], version: "v2", extra: true)
        #expect(made.versionHash == source.versionHash)
        let step = try MigrationStep.infer(from: source, to: destination)
        try withTemporaryDirectory { directory in
            let url = storeURL("lmdb", in: directory)
            let backend = LMDBBackend()
            do {
                let store = try backend.open(url, model: made, options: StoreOptions())
                defer { try? store.close() }
                try Self.insert(store, made, code: "A1", maker: "acme")
            }
            try backend.migrateNatively(
                step, at: url, options: StoreOptions(), metadataChanges: [:], progress: { _ in }, isCancelled: { false }
            )
            let store = try backend.open(url, model: destination, options: StoreOptions())
            defer { try? store.close() }
            let error = #expect(throws: StrataError.self) {
                try Self.insert(store, destination, code: "A1", maker: "acme")
            }
            #expect(error?.code == .uniqueConstraint)
            try Self.insert(store, destination, code: "A1", maker: "zenith")
        }
    }
}
