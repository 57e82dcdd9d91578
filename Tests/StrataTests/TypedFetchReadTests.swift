import Foundation
import Strata
import Testing

/// A typed class whose model lists its attributes in another order than the class declares
/// them, so a slot read that skipped the slot map would read the wrong attribute.
@Managed
final class Reading: ManagedObject {
    var station: String
    var celsius: Double
    var sequence: Int64
    var note: String?
}

/// A fetch all of typed objects, then a read of every property: what ObjectGraphBenchmarks'
/// typed fetch all does. The typed reads are inlined into the accessors; these pin what they
/// must still do: read through the class's slot map, fill each fault once from the snapshot
/// the fetch kept (no store read, no parent trip, no lock), and fill a fault the context made
/// without a fetch from the store.
@Suite struct TypedFetchReadTests {
    private static func model() throws -> Model {
        try Model(
            versionIdentifier: "typed-fetch-read",
            entities: [
                Entity(
                    "Reading",
                    attributes: [
                        Attribute("note", .string, isOptional: true), Attribute("sequence", .integer64),
                        Attribute("celsius", .double), Attribute("station", .string),
                    ])
            ])
    }

    /// A writer context on a SQLite store holding `count` saved readings.
    private func writer(readings count: Int) throws -> (ObjectContext, String) {
        let path = NSTemporaryDirectory() + "strata-typed-fetch-\(UUID().uuidString).sqlite"
        let model = try Self.model()
        let coordinator = StoreCoordinator(model: model)
        try coordinator.registerClasses([Reading.self])
        try coordinator.addStore(BuiltInBackends.registry.open("sqlite:\(path)", model: model))
        let writer = ObjectContext(coordinator: coordinator, name: "writer")
        for i in 0..<count {
            let reading = writer.insert(Reading.self)
            reading.station = "station \(i)"
            reading.celsius = Double(i) / 2
            reading.sequence = Int64(i)
            reading.note = i.isMultiple(of: 2) ? nil : "odd"
        }
        try writer.save()
        return (writer, path)
    }

    private func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test func aChildsTypedFetchReadsEveryPropertyWithNoStoreReadOrLockAfterTheFetch() throws {
        let rows = 120
        let (writer, path) = try writer(readings: rows)
        defer { remove(path) }
        let coordinator = writer.coordinator
        let child = ObjectContext(parent: writer, name: "background")
        try child.performAndWait {
            let readsBefore = coordinator.storeReadCount
            let readings = try child.fetch(Reading.self)
            #expect(coordinator.storeReadCount == readsBefore + 1, "the fetch is one store read")
            #expect(readings.count == rows)
            #expect(readings.allSatisfy { $0.isFault })
            let locksBefore = coordinator.rowCache.lockedFillCount
            for reading in readings {
                let i = Int(reading.sequence)
                #expect(reading.station == "station \(i)")
                #expect(reading.celsius == Double(i) / 2)
                #expect(reading.note == (i.isMultiple(of: 2) ? nil : "odd"))
            }
            #expect(readings.allSatisfy { !$0.isFault })
            #expect(coordinator.storeReadCount == readsBefore + 1, "the reads fill from the kept snapshots")
            #expect(coordinator.rowCache.lockedFillCount == locksBefore)
        }
    }

    @Test func aTypedReadOfAFaultMadeWithoutAFetchFillsItFromTheStore() throws {
        let (writer, path) = try writer(readings: 3)
        defer { remove(path) }
        let id = try ObjectContext(coordinator: writer.coordinator).fetch(Reading.self, where: .key("sequence") == 1)[0]
            .objectID
        let context = ObjectContext(coordinator: writer.coordinator)
        let reading = try #require(context.object(with: id) as? Reading)
        #expect(reading.isFault)
        #expect(reading.station == "station 1")
        #expect(!reading.isFault)
        #expect(reading.celsius == 0.5)
        #expect(reading.note == "odd")
    }

    /// A fetch moves each snapshot into its object, the last first: the results keep the
    /// store's order, in a new context and in one that already holds some of the objects (which
    /// come back as the same objects, refreshed).
    @Test func aTypedFetchKeepsTheOrderAndTheRegisteredObjects() throws {
        let rows = 40
        let (writer, path) = try writer(readings: rows)
        defer { remove(path) }
        let sorted = [Sort("sequence", ascending: false)]
        let fresh = ObjectContext(coordinator: writer.coordinator)
        #expect(try fresh.fetch(Reading.self, sortedBy: sorted).map(\.sequence) == (0..<Int64(rows)).reversed())

        let context = ObjectContext(coordinator: writer.coordinator)
        let held = try context.fetch(Reading.self, where: .key("sequence") < 10)
        let all = try context.fetch(Reading.self, sortedBy: sorted)
        #expect(all.map(\.sequence) == (0..<Int64(rows)).reversed())
        let heldIDs = Set(held.map(ObjectIdentifier.init))
        #expect(all.filter { heldIDs.contains(ObjectIdentifier($0)) }.count == held.count)
        #expect(all.map(\.station) == (0..<rows).reversed().map { "station \($0)" })
    }
}
