import Foundation
import Strata
import StrataTestSupport
import Testing

@testable import StrataPostgres

/// The PostgreSQL store against a server that fails, on a cluster of the tests' own
/// (``PostgresFaultCluster``): the server stopped in the middle of a save, by killing the process
/// serving it or by stopping the whole server at once; a server that cannot be reached or refuses
/// the credentials; two stores whose transactions collide.
@Suite(.serialized, .enabled(if: PostgresFaultCluster.shouldRun, Comment(rawValue: PostgresFaultCluster.skipReason)))
struct PostgresFaultTests {
    /// Servers stopped mid-save (the issue asks for at least 50); every fifth stops the whole
    /// server (`pg_ctl stop -m immediate`), the others kill the save's own server process.
    static let stops = 50
    /// Employees each save inserts.
    static let employeesPerSave = 10
    /// The tables a save is held at, in turn: its first statements (the employees), a middle one
    /// (the department's update) and its last (the history), so the kill lands at each stage.
    static let heldTables = ["Employee", "Department", "_strata_history"]

    /// The Company model's department and employees, built as snapshots.
    struct Graph {
        let model: Model

        func department(_ id: ObjectID, budget: Int, version: Int64 = 0) -> Snapshot {
            let entity = model.entity(named: "Department")!
            var snapshot = Snapshot(objectID: id, entity: entity, version: version)
            snapshot.attributes[entity.attributeIndex(named: "name")!] = .string("Department '; DROP TABLE x")
            snapshot.attributes[entity.attributeIndex(named: "budget")!] = .decimal(Decimal(budget))
            return snapshot
        }

        func employee(_ id: ObjectID, in department: ObjectID) -> Snapshot {
            let entity = model.entity(named: "Employee")!
            var snapshot = Snapshot(objectID: id, entity: entity)
            snapshot.attributes[entity.attributeIndex(named: "name")!] = .string("employee \(id.key)")
            snapshot.relationships[entity.relationshipIndex(named: "department")!] = .toOne(department)
            return snapshot
        }
    }

    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// Runs `body` on a thread of its own and waits up to `seconds` for it: `nil` when it hangs.
    static func within<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () throws -> T) -> Result<
        T, any Error
    >? {
        let outcome = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return outcome.withLock { $0 }
    }

    @Test func aServerStoppedMidSaveLeavesNothingPartialAndTheSameStoreWorksAgain() throws {
        let cluster = try PostgresFaultCluster()
        let url = cluster.freshStoreURL()
        let schema = url.query["schema"]!
        let graph = Graph(model: try Repository.companyVersions().current)
        let store = try BuiltInBackends.registry.open(url, model: graph.model)
        defer { try? store.close() }
        let history = try #require(store.capability((any HistoryRecording).self))

        let departmentID = try store.obtainPermanentIDs(for: "Department", count: 1)[0]
        var saved = try store.save(SaveRequest(inserts: [graph.department(departmentID, budget: 0)]))
        var departmentVersion = try #require(saved.versions[departmentID])
        var employees = 0
        var lastSequence = try #require(saved.historyToken).sequence

        /// A save of new employees and the department's next budget, as one transaction.
        func nextSave() throws -> SaveRequest {
            let ids = try store.obtainPermanentIDs(for: "Employee", count: Self.employeesPerSave)
            return SaveRequest(
                inserts: ids.map { graph.employee($0, in: departmentID) },
                updates: [
                    .init(
                        graph.department(departmentID, budget: employees + Self.employeesPerSave),
                        expectedVersion: departmentVersion)
                ])
        }

        /// What the store and the server hold are the committed saves, no more.
        func checkNothingPartial(_ round: Int) throws {
            let count = try store.fetch(FetchRequest(entityName: "Employee", resultType: .count)).count()
            #expect(count == employees, "round \(round): the store shows \(count) employees, \(employees) committed")
            let department = try store.snapshots(of: "Department", among: [departmentID])
            #expect(department.first?.version == departmentVersion, "round \(round): \(department)")
            #expect(try history.lastHistoryToken()?.sequence == lastSequence, "round \(round)")
            let admin = try cluster.waitUntilAccepting()
            defer { admin.close() }
            let rows = try admin.queryOnce(
                "SELECT (SELECT count(*) FROM \(Self.quoted(schema)).\"Employee\"), (SELECT max(sequence) FROM \(Self.quoted(schema))._strata_history)"
            )
            #expect(
                rows.int64(0, 0) == Int64(employees), "round \(round): the server holds \(rows.int64(0, 0)) employees")
            #expect(rows.int64(0, 1) == lastSequence, "round \(round): the history ends at \(rows.int64(0, 1))")
        }

        var backendKills = 0
        var serverStops = 0
        for round in 0..<Self.stops {
            let held = Self.heldTables[round % Self.heldTables.count]
            let admin = try cluster.waitUntilAccepting()
            try admin.execute("BEGIN; LOCK TABLE \(Self.quoted(schema)).\(Self.quoted(held)) IN EXCLUSIVE MODE")
            let request = try nextSave()
            let saving = DispatchSemaphore(value: 0)
            let outcome = Locked<Result<SaveResult, any Error>?>(nil)
            Thread.detachNewThread { [store] in
                let result = Result { try store.save(request) }
                outcome.withLock { $0 = result }
                saving.signal()
            }
            guard let pid = try cluster.waitingSession(besides: admin) else {
                Issue.record("round \(round): the save never reached the table \(held)")
                admin.close()
                return
            }
            let stopsServer = round % 5 == 4
            if stopsServer {
                try cluster.crash()
                serverStops += 1
            } else {
                cluster.killBackend(pid)
                backendKills += 1
            }
            guard saving.wait(timeout: .now() + 60) == .success else {
                Issue.record("round \(round): the save did not return within 60 s of the server stopping")
                return
            }
            admin.close()
            switch outcome.withLock({ $0 }) {
            case .failure(let error as StrataError):
                #expect(error.code == .serverUnavailable, "round \(round): \(error)")
            case let other:
                Issue.record("round \(round): the save held at \(held) ended with \(String(describing: other))")
            }
            if stopsServer { try cluster.restart() } else { try cluster.waitUntilAccepting().close() }
            try checkNothingPartial(round)

            // The same store object, never reopened, saves again.
            saved = try store.save(try nextSave())
            employees += Self.employeesPerSave
            departmentVersion = try #require(saved.versions[departmentID])
            lastSequence = try #require(saved.historyToken).sequence
            try checkNothingPartial(round)
        }
        reportCount(
            "postgres server stopped mid-save \(backendKills + serverStops) times (\(backendKills) save processes killed, \(serverStops) immediate shutdowns): nothing partial, the same store saved again each time"
        )
    }

    /// The change listener (what a container on another host hears saves by) across a restart of
    /// the whole server: it keeps trying while the server is down, gives a sign once it listens
    /// again (the container then reads the history it missed), and hears the next save.
    @Test func aChangeListenerListensAgainAfterTheWholeServerRestarts() throws {
        let cluster = try PostgresFaultCluster()
        let settings = try PostgresConnectionSettings(cluster.url)
        let store = UUID().uuidString
        let listener = try PostgresChangeListener(settings: settings, storeIdentifier: store)
        defer { listener.close() }
        let before = try #require(listener.backendPID)
        try cluster.crash()
        #expect(!listener.wait(timeout: .milliseconds(500)), "a sign while the server was down")
        try cluster.restart()
        #expect(listener.wait(timeout: .seconds(60)), "no sign after the server came back")
        #expect(listener.reconnections >= 1)
        #expect(try #require(listener.backendPID) != before)
        let writer = try cluster.waitUntilAccepting()
        defer { writer.close() }
        try writer.execute("SELECT pg_notify('strata_history', '\(store) 1')")
        #expect(listener.wait(timeout: .seconds(30)), "the save after the restart was not heard")
        print(
            "reliability: postgres listener across a server restart: \(listener.reconnections) reconnection(s), heard the next save"
        )
    }

    @Test func aWrongPasswordNoServerAndNoDatabaseAreTypedErrorsWithinTheTimeout() throws {
        let cluster = try PostgresFaultCluster()
        let model = try Repository.companyVersions().current
        func failure(_ change: (inout StoreURL) -> Void) -> (error: StrataError?, seconds: Double) {
            var url = cluster.freshStoreURL(["connect_timeout": "2"])
            change(&url)
            let started = Date()
            let error = #expect(throws: StrataError.self) { try BuiltInBackends.registry.open(url, model: model) }
            return (error, Date().timeIntervalSince(started))
        }
        let wrongPassword = failure { $0.password = "not-the-password-q7" }
        #expect(wrongPassword.error?.code == .authenticationFailed)
        #expect(wrongPassword.error.map { !"\($0)".contains("not-the-password-q7") } ?? false)
        #expect(wrongPassword.error?.location["server"]?.contains("127.0.0.1:\(PostgresFaultCluster.port)") == true)

        let missingDatabase = failure { $0.location = "/strata_no_such_database" }
        #expect(missingDatabase.error?.code == .storeNotFound)
        #expect(missingDatabase.error.map { "\($0)".contains("strata_no_such_database") } ?? false)

        // A port nobody listens on, and an address no packet reaches (TEST-NET-1): the first is
        // refused at once, the second gives up after connect_timeout (2 s).
        let refused = failure { $0.port = 1 }
        #expect(refused.error?.code == .serverUnavailable)
        #expect(refused.error?.location["server"]?.contains("127.0.0.1:1/") == true)
        let unreachable = failure { $0.host = "192.0.2.1" }
        #expect(unreachable.error?.code == .serverUnavailable)
        #expect(unreachable.error?.location["server"]?.contains("192.0.2.1") == true)
        for (name, run) in [("refused", refused), ("unreachable", unreachable)] {
            #expect(run.seconds < 2 + 10, "\(name): \(run.seconds) s for a connect_timeout of 2 s")
        }
        reportCount(
            "postgres connection faults: 4 kinds typed (authenticationFailed, storeNotFound, serverUnavailable twice), the unreachable host in \(String(format: "%.1f", unreachable.seconds)) s for a 2 s timeout"
        )
    }

    @Test func storesUpdatingInOppositeOrdersSucceedOrFailTypedAndNeverHang() throws {
        let cluster = try PostgresFaultCluster()
        let url = cluster.freshStoreURL()
        let graph = Graph(model: try Repository.companyVersions().current)
        let first = try BuiltInBackends.registry.open(url, model: graph.model)
        let second = try BuiltInBackends.registry.open(url, model: graph.model)
        defer {
            try? first.close()
            try? second.close()
        }
        let ids = try first.obtainPermanentIDs(for: "Department", count: 2)
        try first.save(SaveRequest(inserts: ids.map { graph.department($0, budget: 0) }))

        let rounds = 150
        let outcomes = Locked([String: Int]())
        /// Updates both departments, in `order`, at the versions the store reads first.
        @Sendable func collide(_ store: any PersistentStore, _ order: [ObjectID]) {
            for round in 0..<rounds {
                let result = Result {
                    let current = try store.snapshots(of: "Department", among: order)
                    let versions = Dictionary(uniqueKeysWithValues: current.map { ($0.objectID, $0.version) })
                    try store.save(
                        SaveRequest(
                            updates: order.map {
                                .init(graph.department($0, budget: round), expectedVersion: versions[$0] ?? 0)
                            }))
                }
                let name: String
                switch result {
                case .success: name = "saved"
                case .failure(let error as StrataError)
                where [StrataError.Code.conflict, .storeBusy].contains(error.code):
                    name = error.code.rawValue
                case .failure(let error):
                    Issue.record("round \(round): \(error)")
                    name = "other"
                }
                outcomes.withLock { $0[name, default: 0] += 1 }
            }
        }
        let both = Self.within(seconds: 300) {
            DispatchQueue.concurrentPerform(iterations: 2) { which in
                which == 0 ? collide(first, ids) : collide(second, ids.reversed())
            }
        }
        #expect(both != nil, "the colliding stores did not finish within 300 s: a hang")
        let counts = outcomes.withLock { $0 }
        #expect(counts.values.reduce(0, +) == 2 * rounds && counts["other"] == nil, "\(counts)")
        // Each successful save moved both departments' versions by one: all or nothing.
        let final = try first.snapshots(of: "Department", among: ids)
        let saved = Int64(counts["saved"] ?? 0)
        #expect(final.map(\.version) == [1 + saved, 1 + saved], "\(final.map(\.version)) after \(counts)")
        reportCount(
            "postgres colliding saves: \(2 * rounds) in opposite orders, \(counts["saved"] ?? 0) saved, \(counts["conflict"] ?? 0) conflict, \(counts["storeBusy"] ?? 0) storeBusy, none hung"
        )
    }
}
