import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataXML

@Suite struct XMLFormatStabilityTests {
    /// A store with a few objects of every entity.
    /// A store with a few objects; `history: false` leaves out the `<_history>` element, for
    /// tests that pin the objects' lines (XMLHistoryTests pins the history's).
    func populatedStore(in dir: TemporaryDirectory, history: Bool = true) throws -> XMLStore {
        let store = try openStore(
            dir.url(), options: StoreOptions(options: [HistoryOptions.enabledOption: history ? "on" : "off"]))
        let model = TestModels.allTypes
        let items = try store.obtainPermanentIDs(for: "Item", count: 3)
        let d = try store.obtainPermanentIDs(for: "Department", count: 1)[0]
        let e = try store.obtainPermanentIDs(for: "Employee", count: 2)
        var department = Snapshot(objectID: d, entity: model.entity(named: "Department")!)
        department.attributes[0] = "Research & Development"
        department.relationships = [.toMany(e), .toMany([e[1], e[0]])]
        let employees = e.enumerated().map { i, id -> Snapshot in
            var s = Snapshot(objectID: id, entity: model.entity(named: "Employee")!)
            s.attributes = [.string("employee \(i)"), .integer(Int64(100 + i))]
            s.relationships = [.toOne(d), .toOne(d)]
            return s
        }
        try store.save(
            SaveRequest(
                inserts: items.enumerated().map { i, id in
                    itemSnapshot(id, name: "item \(i)", ["dbl": .double(Double(i) / 3), "str": .string("line\nbreak")])
                }
                    + [department] + employees,
                metadataChanges: ["b": "2", "a": "1"]))
        return store
    }

    @Test func savingTheSameGraphTwiceGivesIdenticalBytes() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try populatedStore(in: dir)
        let first = contents(dir.file("store.xml"))
        try store.save(SaveRequest(metadataChanges: ["temporary": "x"]))
        #expect(contents(dir.file("store.xml")) != first)
        try store.save(SaveRequest(metadataChanges: ["temporary": nil]))
        #expect(contents(dir.file("store.xml")) == first)
    }

    @Test func loadingAndRewritingAFileReproducesItByteForByte() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        try populatedStore(in: dir).close()
        let path = dir.file("store.xml")
        let layout = XMLModelLayout(model: TestModels.allTypes)
        let (image, _) = try XMLStoreReader.load(path: path, url: dir.url(), layout: layout, model: TestModels.allTypes)
        let copy = dir.file("copy.xml")
        _ = try XMLAtomicFile.replace(copy) { fd, temporary in
            try XMLStoreWriter(layout: layout).write(image, to: fd, path: temporary)
        }
        #expect(contents(copy) == contents(path))
    }

    @Test func aSmallChangeGivesAOneLineDiff() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try populatedStore(in: dir, history: false)
        let before = String(decoding: contents(dir.file("store.xml")), as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false)
        var item = try store.fetch(FetchRequest(entityName: "Item")).snapshots()[1]
        item.attributes[TestModels.item.attributeIndex(named: "i32")!] = 42
        try store.save(SaveRequest(updates: [SaveRequest.Update(item, expectedVersion: 1)]))
        let after = String(decoding: contents(dir.file("store.xml")), as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false)
        #expect(before.count == after.count)
        let changed = zip(before, after).filter { $0 != $1 }
        #expect(changed.count == 1)
        #expect(changed.first?.1.contains("_pk=\"2\" _version=\"2\"") == true)
        #expect(changed.first?.1.contains("i32=\"42\"") == true)
    }

    @Test func objectsAreOneElementPerLineSortedByEntityThenKey() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        try populatedStore(in: dir, history: false).close()
        let lines = String(decoding: contents(dir.file("store.xml")), as: UTF8.self).split(separator: "\n").map(
            String.init)
        #expect(lines.first == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        #expect(
            lines[1].hasPrefix(
                "<strata-store format=\"1\" modelHash=\"\(TestModels.allTypes.versionHash)\" modelVersion=\"v1\" storeIdentifier=\""
            ))
        #expect(Array(lines[2...3]) == ["<_meta key=\"a\" value=\"1\"/>", "<_meta key=\"b\" value=\"2\"/>"])
        #expect(
            Array(lines[4...6]) == [
                "<_sequence entity=\"Department\" next=\"2\"/>", "<_sequence entity=\"Employee\" next=\"3\"/>",
                "<_sequence entity=\"Item\" next=\"4\"/>",
            ])
        let objects = lines[7..<(lines.count - 1)].map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
        #expect(
            objects == [
                "<Department _pk=\"1\"", "<Employee _pk=\"1\"", "<Employee _pk=\"2\"", "<Item _pk=\"1\"",
                "<Item _pk=\"2\"", "<Item _pk=\"3\"",
            ])
        #expect(
            lines[7]
                == "<Department _pk=\"1\" _version=\"1\" name=\"Research &amp; Development\" employees=\"1 2\" ranking=\"2 1\"/>"
        )
        #expect(lines.last == "</strata-store>")
    }

    @Test func xmllintAcceptsTheFile() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        try populatedStore(in: dir).close()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
        process.arguments = ["--noout", dir.file("store.xml")]
        let errors = Pipe.closedOnExec()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(message)")
        #expect(message.isEmpty)
    }
}
