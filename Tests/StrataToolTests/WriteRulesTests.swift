import Foundation
import Strata
import StrataTestSupport
import StrataTransfer
import Testing

/// Copy and the streaming migration wrote objects the model's rules forbid, as import did:
/// every path that writes now applies the rules a context's save applies.
@Suite struct WriteRulesTests {
    /// A store at `model` holding one company whose name breaks `minLength 1` (written through
    /// the store protocol, as another tool would) and one that is fine.
    static func storeBreakingTheRules(_ url: StoreURL, model: Model = Fixture.model) throws -> any PersistentStore {
        let store = try Fixture.open(url, model: model)
        let company = model.entity(named: "Company")!
        let ids = try store.obtainPermanentIDs(for: "Company", count: 2)
        var fine = Snapshot(objectID: ids[0], entity: company)
        var bad = Snapshot(objectID: ids[1], entity: company)
        fine.attributes[0] = .string("Fine")
        bad.attributes[0] = .string("")
        try store.save(SaveRequest(inserts: [fine, bad]))
        return store
    }

    @Test(arguments: ["sqlite", "lmdb", "xml"])
    func copyRefusesAnObjectBreakingTheRulesAndRemovesTheDestinationItMade(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Self.storeBreakingTheRules(storeURL("memory", in: directory))
        let destination = storeURL(scheme, in: directory, name: "copy")
        let error = try #require(throws: StrataError.self) {
            try StoreCopier(batchSize: 1).copy(
                from: source, to: destination, backend: BuiltInBackends.registry.backend(for: scheme))
        }
        #expect(error.code == .validationFailed)
        #expect(error.message.contains("name: is 0 characters long, shorter than 1"), "\(error.message)")
        #expect(try BuiltInBackends.registry.backend(for: scheme).metadata(at: destination) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "\(scheme)")
    }

    @Test func copyKeepsAnEmptyDestinationThatExisted() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Self.storeBreakingTheRules(storeURL("memory", in: directory))
        let destination = storeURL("sqlite", in: directory, name: "copy")
        try Fixture.open(destination).close()
        let before = try #require(try BuiltInBackends.registry.backend(for: "sqlite").metadata(at: destination))
        #expect(throws: StrataError.self) {
            try StoreCopier().copy(
                from: source, to: destination, backend: BuiltInBackends.registry.backend(for: "sqlite"))
        }
        #expect(
            try BuiltInBackends.registry.backend(for: "sqlite").metadata(at: destination)?.storeIdentifier
                == before.storeIdentifier)
    }

    @Test func aStreamingMigrationRefusesObjectsTheNewRulesForbid() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let v2 = Fixture.versioned.version(named: "v2")!
        let url = storeURL("xml", in: directory)
        let store = try Fixture.open(url, model: v2)
        let employee = v2.entity(named: "Employee")!
        var snapshot = Snapshot(objectID: try store.obtainPermanentIDs(for: "Employee", count: 1)[0], entity: employee)
        snapshot.attributes[employee.attributeIndex(named: "name")!] = .string("x")
        // v3 makes height required (default 1.7) and keeps 0...3: 4.5 breaks the new rules.
        snapshot.attributes[employee.attributeIndex(named: "height")!] = .double(4.5)
        snapshot.attributes[employee.attributeIndex(named: "level")!] = .integer(1)
        try store.save(SaveRequest(inserts: [snapshot]))
        try store.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: url.location))

        let migrator = try StoreMigrator(
            versions: Fixture.versioned, target: "v3", registry: BuiltInBackends.registry, allowsNativeExecution: false)
        let error = try #require(throws: StrataError.self) { try migrator.migrate(storeAt: url) }
        #expect(error.code == .validationFailed)
        #expect(error.message.contains("4.5 is more than the maximum 3.0"), "\(error.message)")
        #expect(error.message.contains("the store is unchanged"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: url.location)) == before)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!left.contains { $0.contains("migrating") }, "\(left)")
    }
}
