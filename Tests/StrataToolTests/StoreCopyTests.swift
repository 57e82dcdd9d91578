import Foundation
import Strata
import StrataTestSupport
import StrataTransfer
import Testing

@Suite struct StoreCopyTests {
    static let pairs: [(String, String)] = Fixture.schemes.flatMap { from in Fixture.schemes.map { (from, $0) } }

    @Test(arguments: pairs)
    func copyKeepsEveryObjectKeyAndRelationship(_ from: String, _ to: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Fixture.open(storeURL(from, in: directory, name: "source"))
        defer { try? source.close() }
        try seedCompany(source, employees: 300)
        let destination = storeURL(to, in: directory, name: "copy")
        var phases: [StoreProgress] = []
        let report = try StoreCopier(batchSize: 128).copy(
            from: source, to: destination, backend: BuiltInBackends.registry.backend(for: to)
        ) { phases.append($0) }
        #expect(report.total == 2 + 6 + 300 + 12)
        #expect(phases.contains(StoreProgress(phase: "copying Project", completed: 12, total: 12)))
        #expect(phases.contains(StoreProgress(phase: "linking Employee", completed: 300, total: 300)))
        #expect(phases.contains(StoreProgress(phase: "copying Employee", completed: 128, total: 300)))

        let copy = try Fixture.open(destination)
        defer { try? copy.close() }
        #expect(copy.identifier != source.identifier)
        let (copied, original) = (try Fixture.export(copy), try Fixture.export(source))
        #expect(copied.split(separator: "\n").filter { !original.contains($0) }.prefix(2) == [], "\(from) -> \(to)")
        #expect(copied == original, "\(from) -> \(to)")
        for entity in Fixture.model.entities {
            let keys = { (store: any PersistentStore) in
                try store.fetch(FetchRequest(entityName: entity.name, resultType: .objectIDs)).objectIDs().map(
                    \.primaryKey)
            }
            #expect(try keys(copy) == (try keys(source)), "\(from) -> \(to): keys of \(entity.name)")
        }
        let fresh = try copy.obtainPermanentIDs(for: "Employee", count: 1)[0].primaryKey!
        let largest = try source.fetch(FetchRequest(entityName: "Employee", resultType: .objectIDs)).objectIDs()
            .compactMap(\.primaryKey).max()!
        #expect(fresh > largest)
    }

    @Test(arguments: ["sqlite", "lmdb", "xml"])
    func nonEmptyDestinationIsRefusedUnlessReplacing(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Fixture.open(storeURL("memory", in: directory))
        try seedCompany(source, employees: 10)
        let destination = storeURL(scheme, in: directory, name: "copy")
        let existing = try Fixture.open(destination)
        try JSONLinesImporter().importLines(
            Data(#"{"entity":"Company","ref":"c","attributes":{"name":"Kept"}}"#.utf8), into: existing)
        try existing.close()
        let backend = try BuiltInBackends.registry.backend(for: scheme)
        let error = try #require(throws: StrataError.self) {
            try StoreCopier().copy(from: source, to: destination, backend: backend)
        }
        #expect(error.code == .invalidRequest)
        #expect(error.message.contains("already holds 1 object;"))
        let untouched = try Fixture.open(destination)
        #expect(try Fixture.count(untouched) == 1)
        try untouched.close()

        try StoreCopier().copy(from: source, to: destination, backend: backend, replacingExisting: true)
        let replaced = try Fixture.open(destination)
        defer { try? replaced.close() }
        #expect(try Fixture.export(replaced) == (try Fixture.export(source)))
    }

    @Test func emptyExistingDestinationIsFilled() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Fixture.open(storeURL("memory", in: directory))
        try seedCompany(source, employees: 5)
        let destination = storeURL("sqlite", in: directory)
        try Fixture.open(destination).close()
        try StoreCopier().copy(from: source, to: destination, backend: BuiltInBackends.registry.backend(for: "sqlite"))
        let copy = try Fixture.open(destination)
        defer { try? copy.close() }
        #expect(try Fixture.count(copy) == 2 + 6 + 5 + 12)
    }

    @Test func destinationAtAnotherModelVersionIsRefusedUntouchedUnlessReplacing() throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try Fixture.open(storeURL("memory", in: directory))
        try seedCompany(source, employees: 5)
        let destination = storeURL("xml", in: directory)
        let v1 = Fixture.versioned.version(named: "v1")!
        let old = try Fixture.open(destination, model: v1)
        try JSONLinesImporter().importLines(
            Data(#"{"entity":"Company","ref":"c","attributes":{"name":"Old"}}"#.utf8), into: old)
        try old.close()
        let backend = try BuiltInBackends.registry.backend(for: "xml")
        let error = try #require(throws: StrataError.self) {
            try StoreCopier().copy(from: source, to: destination, backend: backend)
        }
        #expect(error.code == .modelMismatch)
        #expect(try backend.metadata(at: destination)?.modelVersionHash == v1.versionHash)
        try StoreCopier().copy(from: source, to: destination, backend: backend, replacingExisting: true)
        let copy = try Fixture.open(destination)
        defer { try? copy.close() }
        #expect(try Fixture.export(copy) == (try Fixture.export(source)))
    }
}
