import BenchmarkSupport
import Foundation
import Strata

/// The benchmark's store: N records of the performance note's shape in an SQLite file, written
/// once with the SQLite store API directly (batches of 50,000 per save) and kept between runs.
enum BigStore {
    static let names = ["i1", "i2", "i3", "d1", "d2", "d3", "s1", "s2", "s3"]

    /// The model the store is written with.
    static let v1: Model = try! Model(versionIdentifier: "v1", entities: [Entity("Record", attributes: names.map {
        Attribute($0, $0.hasPrefix("i") ? .integer64 : $0.hasPrefix("d") ? .double : .string)
    })])

    /// The next version: one more optional attribute, so a v1 store needs migrating.
    static let v2: Model = try! Model(versionIdentifier: "v2", entities: [Entity("Record", attributes: names.map {
        Attribute($0, $0.hasPrefix("i") ? .integer64 : $0.hasPrefix("d") ? .double : .string)
    } + [Attribute("note", .string, isOptional: true)])])

    /// Creates the store at `url` with `count` records unless it already holds them.
    static func ensure(at url: StoreURL, count: Int) throws {
        let backend = try BuiltInBackends.registry.backend(for: url.scheme)
        if let metadata = try backend.metadata(at: url), metadata.modelVersionHash == v1.versionHash {
            let store = try backend.open(url, model: v1, options: StoreOptions(createsIfMissing: false))
            let existing = try store.fetch(FetchRequest(entityName: "Record", resultType: .count)).count()
            try store.close()
            if existing == count { return }
            throw StrataError(.invalidRequest, "\(url) holds \(existing) records, not \(count); delete it to rebuild")
        }
        let start = monotonicNanoseconds()
        let store = try backend.open(url, model: v1, options: StoreOptions(options: ["synchronous": "off"]))
        let entity = v1.entity(named: "Record")!
        var rng = SplitMix64(seed: 0x4255_494C_4442_0001)
        func string() -> String {
            let length = 5 + Int(rng.next() % 46)
            return String(decoding: (0..<length).map { _ in UInt8(97 + rng.next() % 26) }, as: UTF8.self)
        }
        func double() -> Double { Double(rng.next() >> 11) / Double(1 << 53) * 1000 }
        var written = 0
        while written < count {
            let batch = min(50_000, count - written)
            let ids = try store.obtainPermanentIDs(for: "Record", count: batch)
            try store.save(SaveRequest(inserts: ids.map { id in
                var snapshot = Snapshot(objectID: id, entity: entity)
                snapshot.attributes = [.integer(Int64(bitPattern: rng.next() % 1_000_000)), .integer(Int64(bitPattern: rng.next() % 1_000_000)),
                                       .integer(Int64(bitPattern: rng.next() % 1_000_000)), .double(double()), .double(double()), .double(double()),
                                       .string(string()), .string(string()), .string(string())]
                return snapshot
            }))
            written += batch
        }
        try store.close()
        print("built \(url) with \(count) records in \(format(Double(monotonicNanoseconds() - start) / 1e6)) ms")
    }
}
