import Dispatch
import StrataCore

extension ConformanceKit {
    static let concurrencyChecks: [ConformanceCheck] = [
        ConformanceCheck("readersNeverSeePartOfASave") { run in
            let store = try run.open()
            let count = 50
            let ids = try run.ids(store, "AllTypes", count)
            try store.save(SaveRequest(inserts: try ids.map { try run.snapshot($0, ["i64": 0]) }))
            let generations = 30
            let failures = Locked<[String]>([])
            let done = Locked(false)
            let group = DispatchGroup()
            for _ in 0..<3 {
                DispatchQueue.global().async(group: group) {
                    var reads = 0
                    while !done.withLock({ $0 }) || reads == 0 {
                        reads += 1
                        do {
                            let snapshots = try store.fetch(FetchRequest(entityName: "AllTypes")).snapshots()
                            let values = Set(snapshots.map { $0.attributes[2] })
                            let versions = Set(snapshots.map(\.version))
                            if snapshots.count != count || values.count != 1 || versions.count != 1 {
                                failures.withLock {
                                    $0.append(
                                        "a reader saw \(snapshots.count) objects with values \(values.sorted { $0.description < $1.description }) and versions \(versions.sorted())"
                                    )
                                }
                                return
                            }
                        } catch {
                            failures.withLock { $0.append("a reader failed: \(error)") }
                            return
                        }
                    }
                }
            }
            var current = try run.all(store, "AllTypes")
            for generation in 1...generations {
                let next = current.map { snapshot -> Snapshot in
                    var s = snapshot
                    s.attributes[2] = .integer(Int64(generation))
                    return s
                }
                try store.save(SaveRequest(updates: zip(next, current).map { .init($0, expectedVersion: $1.version) }))
                current = next.map {
                    var s = $0
                    s.version += 1
                    return s
                }
            }
            done.withLock { $0 = true }
            group.wait()
            if let first = failures.withLock({ $0.first }) { throw run.fail(first) }
            try run.expectEqual(
                try run.all(store, "AllTypes").map(\.version), Array(repeating: Int64(generations + 1), count: count),
                "versions after all saves")
        },
        ConformanceCheck("concurrentIDRequestsNeverCollide") { run in
            let store = try run.open()
            let collected = Locked<[ObjectID]>([])
            let errors = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<20 {
                    do {
                        let ids = try store.obtainPermanentIDs(for: "Company", count: 3)
                        collected.withLock { $0 += ids }
                    } catch {
                        errors.withLock { $0.append("\(error)") }
                    }
                }
            }
            if let first = errors.withLock({ $0.first }) {
                throw run.fail("obtainPermanentIDs failed under concurrency: \(first)")
            }
            let all = collected.withLock { $0 }
            try run.expectEqual(Set(all).count, all.count, "distinct IDs handed out concurrently")
        },
    ]
}
