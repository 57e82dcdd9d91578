import BenchmarkSupport
import Foundation
import Strata
import StrataCore

/// W1-W5 of performance.md through Strata's PostgreSQL store (its public protocol:
/// obtainPermanentIDs + save, fetch(FetchRequest)) and through raw libpq (``RawPostgres``),
/// alternating in one process, each run on fresh PostgreSQL schemas. Every workload's result is
/// checked (row counts and a checksum of every value read), so a side that loses or garbles
/// rows fails instead of looking fast.
struct StoreProtocolRuns {
    let server: BenchmarkServer
    let runs: Int
    let count: Int
    let workload: Workload
    /// The checksums each side must find: all records, the lookups, the store after W4 and after W5.
    let expected: Expected
    /// The sides to run (`strata`, `raw`): both but for debugging one.
    let sides: Set<String>
    /// The store's options (`history=off`).
    let storeOptions: StoreOptions
    /// Whether each W4 update carries the state it is based on (as the engine gives it), so a
    /// store recording history needs not read the rows.
    let givesPrevious: Bool

    static let model: Model = try! Model(
        versionIdentifier: "bench",
        entities: [
            Entity(
                "Record",
                attributes: [
                    Attribute("i1", .integer64), Attribute("i2", .integer64), Attribute("i3", .integer64),
                    Attribute("d1", .double), Attribute("d2", .double), Attribute("d3", .double),
                    Attribute("s1", .string), Attribute("s2", .string), Attribute("s3", .string),
                ])
        ])

    struct Expected {
        var all = 0
        var lookups = 0
        var afterUpdate = 0
        var afterDelete = 0
        var remaining = 0
    }

    init(
        server: BenchmarkServer, runs: Int, count: Int, sides: Set<String>, storeOptions: StoreOptions,
        givesPrevious: Bool
    ) {
        self.server = server
        self.sides = sides
        self.storeOptions = storeOptions
        self.givesPrevious = givesPrevious
        self.runs = runs
        self.count = count
        let workload = Workload(count: count)
        self.workload = workload
        var expected = Expected()
        expected.all = workload.records.reduce(0) { $0 &+ recordChecksum($1) }
        expected.lookups = workload.lookupKeys.reduce(0) { $0 &+ recordChecksum(workload.records[Int($1 - 1)]) }
        expected.afterUpdate = expected.all
        for key in workload.updateKeys {
            let record = workload.records[Int(key - 1)]
            expected.afterUpdate =
                expected.afterUpdate &- recordChecksum(record) &+ recordChecksum(Self.changed(record))
        }
        expected.afterDelete = expected.afterUpdate
        let updated = Set(workload.updateKeys)
        for key in workload.deleteKeys {
            let record = workload.records[Int(key - 1)]
            expected.afterDelete =
                expected.afterDelete &- recordChecksum(updated.contains(key) ? Self.changed(record) : record)
        }
        expected.remaining = count - workload.deleteKeys.count
        self.expected = expected
    }

    /// The W4 change: new values for the three first fields (as SQLiteBenchmarks changes them).
    static func changed(_ r: WorkloadRecord) -> WorkloadRecord {
        var r = r
        r.i1 += 1
        r.d1 += 0.5
        r.s1 = String(r.s1.reversed())
        return r
    }

    func attributes(_ r: WorkloadRecord) -> [Value] {
        [
            .integer(r.i1), .integer(r.i2), .integer(r.i3), .double(r.d1), .double(r.d2), .double(r.d3),
            .string(r.s1), .string(r.s2), .string(r.s3),
        ]
    }

    /// The checksum of a snapshot read back, its workload ID being `id`.
    func checksum(_ snapshot: Snapshot, id: Int64) -> Int {
        let a = snapshot.attributes
        guard case .integer(let i1) = a[0], case .integer(let i2) = a[1], case .integer(let i3) = a[2],
            case .double(let d1) = a[3], case .double(let d2) = a[4], case .double(let d3) = a[5],
            case .string(let s1) = a[6], case .string(let s2) = a[7], case .string(let s3) = a[8]
        else { fatalError("Strata: a snapshot with values of the wrong types: \(a)") }
        return checksumOf(id: id, i1: i1, i2: i2, i3: i3, d1: d1, d2: d2, d3: d3, s1: s1, s2: s2, s3: s3)
    }

    /// The checksum and count of every snapshot of the store (`firstKey` being workload ID 1's key).
    func checksumOfStore(_ store: any PersistentStore, firstKey: Int64) throws -> (Int, Int) {
        let snapshots = try store.fetch(FetchRequest(entityName: "Record")).snapshots()
        let sum = snapshots.reduce(0) { $0 &+ checksum($1, id: $1.objectID.primaryKey! - firstKey + 1) }
        return (sum, snapshots.count)
    }

    func runStrata(_ run: Int, into rows: inout [ComparisonRow]) throws {
        let schema = server.schemaName("proto_strata_\(run)")
        let store = try BuiltInBackends.registry.open(
            server.storeURL(schema: schema), model: Self.model, options: storeOptions)
        defer { server.dropSchema(schema) }
        var ids: [ObjectID] = []
        rows[0].strata.append(
            try milliseconds {
                ids = try store.obtainPermanentIDs(for: "Record", count: workload.records.count)
                var inserts: [Snapshot] = []
                inserts.reserveCapacity(ids.count)
                for (id, record) in zip(ids, workload.records) {
                    inserts.append(
                        Snapshot(objectID: id, version: 0, attributes: attributes(record), relationships: []))
                }
                try store.save(SaveRequest(inserts: inserts))
            })
        let firstKey = ids[0].primaryKey!
        precondition(ids.last!.primaryKey! - firstKey + 1 == Int64(count), "Strata: permanent IDs not contiguous")
        var sum = 0
        var found = 0
        rows[1].strata.append(
            try milliseconds {
                let snapshots = try store.fetch(FetchRequest(entityName: "Record")).snapshots()
                found = snapshots.count
                for snapshot in snapshots {
                    sum &+= checksum(snapshot, id: snapshot.objectID.primaryKey! - firstKey + 1)
                }
            })
        check("Strata W2", found == count && sum == expected.all, "\(found) records, checksum \(sum)")
        sum = 0
        rows[2].strata.append(
            try milliseconds {
                for key in workload.lookupKeys {
                    let request = FetchRequest(entityName: "Record", objectIDs: [ids[Int(key - 1)]])
                    for snapshot in try store.fetch(request).snapshots() { sum &+= checksum(snapshot, id: key) }
                }
            })
        check("Strata W3", sum == expected.lookups, "checksum \(sum)")
        rows[3].strata.append(
            try milliseconds {
                var updates: [SaveRequest.Update] = []
                updates.reserveCapacity(workload.updateKeys.count)
                for key in workload.updateKeys {
                    let id = ids[Int(key - 1)]
                    let record = workload.records[Int(key - 1)]
                    updates.append(
                        .init(
                            Snapshot(
                                objectID: id, version: 1, attributes: attributes(Self.changed(record)),
                                relationships: []),
                            expectedVersion: 1,
                            previous: givesPrevious
                                ? Snapshot(objectID: id, version: 1, attributes: attributes(record), relationships: [])
                                : nil))
                }
                try store.save(SaveRequest(updates: updates))
            })
        let (afterUpdate, _) = try checksumOfStore(store, firstKey: firstKey)
        check("Strata W4", afterUpdate == expected.afterUpdate, "checksum \(afterUpdate)")
        rows[4].strata.append(
            try milliseconds {
                let deletes = workload.deleteKeys.map { SaveRequest.Delete(ids[Int($0 - 1)], expectedVersion: 1) }
                try store.save(SaveRequest(deletes: deletes))
            })
        let (afterDelete, remaining) = try checksumOfStore(store, firstKey: firstKey)
        check(
            "Strata W5", afterDelete == expected.afterDelete && remaining == expected.remaining,
            "\(remaining) records, checksum \(afterDelete)")
        try store.close()
    }

    func runRaw(_ run: Int, into rows: inout [ComparisonRow]) {
        let raw = RawPostgres(url: server.libpqURL, schema: server.schemaName("proto_raw_\(run)"))
        defer { raw.dropSchema() }
        rows[0].raw.append(milliseconds { raw.insert(workload.records) })
        var sum = 0
        var found = 0
        rows[1].raw.append(
            milliseconds {
                let records = raw.fetchAll()
                found = records.count
                for record in records { sum &+= record.checksum }
            })
        check("raw W2", found == count && sum == expected.all, "\(found) records, checksum \(sum)")
        sum = 0
        rows[2].raw.append(
            milliseconds {
                for key in workload.lookupKeys { sum &+= raw.lookup(key)?.checksum ?? 0 }
            })
        check("raw W3", sum == expected.lookups, "checksum \(sum)")
        rows[3].raw.append(
            milliseconds {
                raw.update(workload.updateKeys.map { Self.changed(workload.records[Int($0 - 1)]) })
            })
        let afterUpdate = raw.fetchAll().reduce(0) { $0 &+ $1.checksum }
        check("raw W4", afterUpdate == expected.afterUpdate, "checksum \(afterUpdate)")
        rows[4].raw.append(milliseconds { raw.delete(workload.deleteKeys) })
        let remaining = raw.fetchAll()
        let afterDelete = remaining.reduce(0) { $0 &+ $1.checksum }
        check(
            "raw W5", afterDelete == expected.afterDelete && remaining.count == expected.remaining,
            "\(remaining.count) records, checksum \(afterDelete)")
    }

    /// Runs both sides `runs` times, alternating which goes first, and prints the table.
    func run() throws {
        var rows = ["W1", "W2", "W3", "W4", "W5"].map { ComparisonRow(workload: $0, target: 1.5) }
        print(
            "PostgreSQL store protocol: \(count) records, \(runs) runs, alternating Strata and raw libpq; "
                + "history \(storeOptions.options["history"] ?? "on")"
                + (givesPrevious ? ", updates with their previous state" : "") + "; load average \(loadAverage())")
        for run in 0..<runs {
            if run % 2 == 0 {
                if sides.contains("strata") { try runStrata(run, into: &rows) }
                if sides.contains("raw") { runRaw(run, into: &rows) }
            } else {
                if sides.contains("raw") { runRaw(run, into: &rows) }
                if sides.contains("strata") { try runStrata(run, into: &rows) }
            }
            print(
                "run \(run + 1): "
                    + rows.map { "\($0.workload) \(format($0.strata.last ?? .nan))/\(format($0.raw.last ?? .nan))" }
                    .joined(
                        separator: "  "))
        }
        printTable(
            title: "PostgreSQL: Strata's store protocol vs raw libpq (\(count) records)", rawName: "raw libpq",
            rows: rows, runs: runs)
        print("\nload average \(loadAverage()); peak RSS: \(format(peakResidentMiB())) MiB")
    }
}

/// Stops the program when a workload's result is wrong: a broken side must not look fast.
func check(_ what: String, _ condition: Bool, _ detail: @autoclosure () -> String) {
    guard condition else { fatalError("\(what): wrong result (\(detail()))") }
}
