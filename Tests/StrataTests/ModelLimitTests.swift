import Foundation
import Strata
import Testing

/// A model beyond a backend's limits is refused with a typed error before any file is created;
/// a model within them works end to end.
///
/// Before, opening a SQLite store with a 5,000-attribute entity failed with
/// `internalInconsistency` ("too many columns") and left an empty store file behind.
@Suite struct ModelLimitTests {
    /// One entity with `count` optional integer attributes.
    static func wideModel(attributes count: Int) throws -> Model {
        let attributes = (0..<count).map { Attribute("a\($0)", .integer64, isOptional: true) }
        return try Model(entities: [Entity("Wide", attributes: attributes)])
    }

    /// A fresh, empty directory.
    static func emptyDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-limits-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func backend(_ scheme: String) throws -> any StoreBackend {
        try #require(BuiltInBackends.all.first { $0.scheme == scheme })
    }

    @Test func sqliteRefusesAFiveThousandColumnEntityAndCreatesNothing() throws {
        let model = try Self.wideModel(attributes: 5_000)
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = StoreURL(scheme: "sqlite", location: directory.appendingPathComponent("wide.sqlite").path)
        let error = #expect(throws: StrataError.self) { _ = try BuiltInBackends.registry.open(url, model: model) }
        #expect(error?.code == .invalidModel)
        #expect(error?.location["entity"] == "Wide")
        #expect(error?.location["count"] == "5002")
        #expect(Int(error?.location["limit"] ?? "") ?? 0 >= 1)
        #expect(error?.message.contains("Wide") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

        let checked = #expect(throws: StrataError.self) { try Self.backend("sqlite").checkLimits(of: model) }
        #expect(checked?.code == .invalidModel)
    }

    @Test func sqliteAcceptsTheWidestEntityItsLimitAllows() throws {
        let backend = try Self.backend("sqlite")
        let limit = try #require(try Self.sqliteColumnLimit(backend))
        let model = try Self.wideModel(attributes: limit - 2)
        try backend.checkLimits(of: model)
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.saveAndFetchOne(
            model, at: StoreURL(scheme: "sqlite", location: directory.appendingPathComponent("wide.sqlite").path))
    }

    /// The column limit SQLite reports, read back from the error of a model one column too wide
    /// for any build (SQLite's hard maximum is 32,767).
    static func sqliteColumnLimit(_ backend: any StoreBackend) throws -> Int? {
        do {
            try backend.checkLimits(of: try wideModel(attributes: 32_767))
            return nil
        } catch let error as StrataError {
            return Int(error.location["limit"] ?? "")
        }
    }

    @Test(arguments: ["lmdb", "xml"])
    func otherBackendsHoldAFiveThousandAttributeEntity(scheme: String) throws {
        let model = try Self.wideModel(attributes: 5_000)
        try Self.backend(scheme).checkLimits(of: model)
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.saveAndFetchOne(
            model, at: StoreURL(scheme: scheme, location: directory.appendingPathComponent("wide.\(scheme)").path))
    }

    @Test func lmdbRefusesADatabaseNameLongerThanItsKeySizeAndCreatesNothing() throws {
        let names = (0..<40).map { "attribute\($0)WithAQuiteLongName" }
        let model = try Model(entities: [
            Entity(
                "Wide", attributes: names.map { Attribute($0, .string, isOptional: true) }, uniqueConstraints: [names])
        ])
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = StoreURL(scheme: "lmdb", location: directory.appendingPathComponent("wide.lmdb").path)
        let error = #expect(throws: StrataError.self) { _ = try BuiltInBackends.registry.open(url, model: model) }
        #expect(error?.code == .invalidModel)
        #expect(error?.location["entity"] == "Wide")
        #expect(error?.location["limit"] == "511")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    /// Saves one object with every attribute set, reopens the store and reads it back.
    static func saveAndFetchOne(_ model: Model, at url: StoreURL) throws {
        let entity = try #require(model.entity(named: "Wide"))
        let store = try BuiltInBackends.registry.open(url, model: model)
        let id = try #require(try store.obtainPermanentIDs(for: "Wide", count: 1).first)
        var snapshot = Snapshot(objectID: id, entity: entity)
        for i in snapshot.attributes.indices { snapshot.attributes[i] = .integer(Int64(i)) }
        try store.save(SaveRequest(inserts: [snapshot]))
        try store.close()
        let reopened = try BuiltInBackends.registry.open(url, model: model)
        defer { try? reopened.close() }
        let fetched = try reopened.fetch(
            FetchRequest(
                entityName: "Wide",
                predicate: try ObjectPredicate(
                    format: "a\(entity.attributes.count - 1) == %d", entity.attributes.count - 1)))
        let found = try fetched.snapshots()
        #expect(found.count == 1)
        #expect(found.first?.attributes == snapshot.attributes)
    }
}
