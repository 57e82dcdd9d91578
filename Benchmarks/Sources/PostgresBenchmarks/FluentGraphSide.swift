import BenchmarkSupport
import FluentKit
import FluentPostgresDriver
import Foundation
import Logging
import NIOCore
import NIOPosix
import ObjectGraphWorkload

/// The record as Fluent's documentation writes a model: a final class with `@ID` and `@Field`
/// properties and an empty initializer.
final class FluentRecord: Model, @unchecked Sendable {
    static let schema = "record"

    @ID(custom: "id", generatedBy: .database) var id: Int64?
    @Field(key: "key") var key: Int64
    @Field(key: "i1") var i1: Int64
    @Field(key: "i2") var i2: Int64
    @Field(key: "i3") var i3: Int64
    @Field(key: "d1") var d1: Double
    @Field(key: "d2") var d2: Double
    @Field(key: "d3") var d3: Double
    @Field(key: "s1") var s1: String
    @Field(key: "s2") var s2: String
    @Field(key: "s3") var s3: String

    init() {}

    init(_ r: WorkloadRecord) {
        key = keyOf(r.id)
        i1 = r.i1
        i2 = r.i2
        i3 = r.i3
        d1 = r.d1
        d2 = r.d2
        d3 = r.d3
        s1 = r.s1
        s2 = r.s2
        s3 = r.s3
    }

    var checksum: Int {
        graphChecksum(key: key, i1: i1, i2: i2, i3: i3, d1: d1, d2: d2, d3: d3, s1: s1, s2: s2, s3: s3)
    }
}

/// Fluent's databases, set up as Vapor sets them up for an application (`app.databases`):
/// the shared event loop group, a thread pool, and fluent-postgres-driver's configuration
/// with `maxConnectionsPerEventLoop` connections per event loop, on a schema of their own
/// (`search_path`).
final class FluentDatabases: Sendable {
    let databases: Databases
    let group: any EventLoopGroup

    /// How many event loops the group has (Vapor's default: one per core).
    static var eventLoopCount: Int { System.coreCount }

    init(server: BenchmarkServer, schema: String, connectionsPerEventLoop: Int = 1) throws {
        group = MultiThreadedEventLoopGroup.singleton
        databases = Databases(threadPool: NIOThreadPool.singleton, on: group)
        var configuration = try SQLPostgresConfiguration(url: server.libpqURL)
        configuration.searchPath = [schema]
        databases.use(
            .postgres(configuration: configuration, maxConnectionsPerEventLoop: connectionsPerEventLoop), as: .psql)
    }

    /// A database handle on one of the group's event loops (`req.db` in Vapor).
    func database() -> any Database {
        var logger = Logger(label: "fluent")
        logger.logLevel = .warning
        return databases.database(.psql, logger: logger, on: group.any())!
    }

    /// Makes the table with Fluent's schema builder, as a migration would.
    func createTable() async throws {
        try await database().schema(FluentRecord.schema)
            .field("id", .int64, .identifier(auto: true))
            .field("key", .int64, .required)
            .field("i1", .int64, .required).field("i2", .int64, .required).field("i3", .int64, .required)
            .field("d1", .double, .required).field("d2", .double, .required).field("d3", .double, .required)
            .field("s1", .string, .required).field("s2", .string, .required).field("s3", .string, .required)
            .unique(on: "key")
            .create()
    }

    func shutdown() async { await databases.shutdownAsync() }
}

/// Fluent with fluent-postgres-driver, the way its documentation writes it: `create` (an array
/// of models at a time, in a transaction), `query(on:).all()`, `find(_:on:)`,
/// `query(on:).filter(\.$key == k).first()`, changed properties and `save(on:)` in a
/// transaction, and one `query(on:).filter(\.$id ~~ ids).delete()`.
struct FluentGraphSide: GraphSide {
    let server: BenchmarkServer
    var name: String { "Fluent" }

    /// Rows per `create` of an array: PostgreSQL takes at most 65,535 bound values per statement.
    static let createBatch = 5_000

    func run(_ input: GraphInput, schema: String) async throws -> [Double] {
        server.createSchema(schema)
        let fluent = try FluentDatabases(server: server, schema: schema)
        try await fluent.createTable()
        let db = fluent.database()
        let records = input.records
        var times: [Double] = []
        times.append(
            try await asyncMilliseconds {
                try await db.transaction { db in
                    for start in stride(from: 0, to: records.count, by: Self.createBatch) {
                        let batch = records[start..<min(start + Self.createBatch, records.count)]
                        try await batch.map(FluentRecord.init).create(on: db)
                    }
                }
            }.0)
        // The IDs by workload ID (untimed).
        var ids = [Int64](repeating: 0, count: records.count)
        let idOfKey = Dictionary(
            uniqueKeysWithValues: try await FluentRecord.query(on: db).all().map { ($0.key, $0.id!) })
        check("Fluent insert", idOfKey.count == records.count, "\(idOfKey.count) rows")
        for r in records { ids[Int(r.id - 1)] = idOfKey[keyOf(r.id)]! }

        var (ms, sum) = try await asyncMilliseconds {
            var sum = 0
            var count = 0
            for record in try await FluentRecord.query(on: db).all() {
                sum &+= record.checksum
                count += 1
            }
            return count == records.count ? sum : -1
        }
        times.append(ms)
        check("Fluent fetch all", sum == input.all, "checksum \(sum)")
        (ms, sum) = try await asyncMilliseconds {
            var sum = 0
            for id in input.lookupIDs { sum &+= try await FluentRecord.find(ids[Int(id - 1)], on: db)!.checksum }
            return sum
        }
        times.append(ms)
        check("Fluent lookups by ID", sum == input.lookups, "checksum \(sum)")
        (ms, sum) = try await asyncMilliseconds {
            var sum = 0
            for id in input.lookupIDs {
                sum &+= try await FluentRecord.query(on: db).filter(\.$key == keyOf(id)).first()!.checksum
            }
            return sum
        }
        times.append(ms)
        check("Fluent lookups by key", sum == input.lookups, "checksum \(sum)")
        let updateIDs = input.updateIDs
        times.append(
            try await asyncMilliseconds {
                try await db.transaction { db in
                    for id in updateIDs {
                        let record = try await FluentRecord.query(on: db).filter(\.$key == keyOf(id)).first()!
                        record.i1 += 1
                        record.d1 += 0.5
                        record.s1 = changedS1(record.s1)
                        try await record.save(on: db)
                    }
                }
            }.0)
        sum = try await FluentRecord.query(on: db).all().reduce(0) { $0 &+ $1.checksum }
        check("Fluent update", sum == input.afterUpdate, "checksum \(sum)")
        let deleteIDs = input.deleteIDs.map { ids[Int($0 - 1)] }
        times.append(
            try await asyncMilliseconds {
                try await db.transaction { db in
                    try await FluentRecord.query(on: db).filter(\.$id ~~ deleteIDs).delete()
                }
            }.0)
        let remaining = try await FluentRecord.query(on: db).all()
        sum = remaining.reduce(0) { $0 &+ $1.checksum }
        check(
            "Fluent delete", sum == input.afterDelete && remaining.count == records.count - deleteIDs.count,
            "\(remaining.count) rows, checksum \(sum)")
        await fluent.shutdown()
        return times
    }
}
