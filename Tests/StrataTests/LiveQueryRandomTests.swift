import Foundation
import Strata
import StrataCore
import StrataRandomGraph
import StrataTestSupport
import Testing

/// Live queries stay equal to a fresh fetch under every source of change: many live queries
/// with random predicates (through a relationship too), sorts, sections, limits and offsets; a
/// random stream of inserts, updates and deletes in the observing context, its saves, saves of a
/// second context merged into it, batch updates and deletes merged by their IDs, rollbacks and
/// resets. After each step, each query's delivered diff applied to its previous result gives the
/// new result, which equals a fresh fetch; its sections are the runs of the section values.
@Suite struct LiveQueryRandomTests {
    static let model = RandomGraphModel.make("live-random")

    static let schemes = ["memory", "sqlite", "lmdb", "xml"]

    /// A coordinator on a new store of `scheme`.
    static func coordinator(_ scheme: String, in directory: URL) throws -> StoreCoordinator {
        let url: StoreURL
        if scheme == "postgres" {
            url = try PostgresTestServer.freshStoreURL()
        } else {
            let location = scheme == "memory" ? "" : directory.appendingPathComponent("live.\(scheme)").path
            url = StoreURL(scheme: scheme, location: location)
        }
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(BuiltInBackends.registry.open(url, model: model))
        return coordinator
    }

    /// One live query under test: its request, its sequence's iterator and what it saw last.
    struct Watched {
        let request: FetchRequest
        let sectionKey: String?
        var iterator: LiveResults.AsyncIterator
        var seen: [ObjectID] = []
    }

    /// A random request for employees, with a section key path or none.
    static func randomRequest(random: inout SeededGenerator) throws -> (FetchRequest, String?) {
        let key = Int64.random(in: 0..<40, using: &random)
        let rank = Int64.random(in: 0..<6, using: &random)
        let predicates = try RandomGraphModel.predicates(key: key, rank: rank)
        let sortChoices = RandomGraphModel.sortChoices
        var request = FetchRequest(
            entityName: "Employee", predicate: predicates.randomElement(using: &random)!,
            sorts: sortChoices.randomElement(using: &random)!)
        if Int.random(in: 0..<3, using: &random) == 0 { request.limit = Int.random(in: 1...6, using: &random) }
        if Int.random(in: 0..<5, using: &random) == 0 { request.offset = Int.random(in: 1...3, using: &random) }
        let sectionKey = request.sorts.first.flatMap { sort -> String? in
            Bool.random(using: &random) ? sort.keyPath.description : nil
        }
        return (request, sectionKey)
    }

    /// Checks every watched query against a fresh fetch in `context`.
    static func check(_ watched: inout [Watched], in context: ObjectContext, _ note: String) throws {
        for mismatch in try mismatches(&watched, in: context, note) { Issue.record(Comment(rawValue: mismatch)) }
    }

    /// Takes each watched query's next result, if any, and describes every way in which the
    /// queries disagree with a fresh fetch in `context`: a diff that does not turn the previous
    /// result into the new one, results that differ from the fetch, sections that are not the
    /// runs of their values. (For callers on a queue where `#expect` cannot tell which test runs.)
    static func mismatches(_ watched: inout [Watched], in context: ObjectContext, _ note: String) throws -> [String] {
        var found: [String] = []
        for index in watched.indices {
            let request = watched[index].request
            let expected = try context.fetchObjectIDs(request)
            if let result = try watched[index].iterator.nextIfReady() {
                let applied = result.diff.applied(to: watched[index].seen)
                if applied != result.objectIDs {
                    found.append("\(note): diff of \(request) gives \(applied), not \(result.objectIDs)")
                }
                watched[index].seen = result.objectIDs
                if let key = watched[index].sectionKey {
                    let sections = try expectedSections(result, key: key, in: context)
                    if result.sections != sections {
                        found.append("\(note): sections of \(request) are \(result.sections ?? []), not \(sections)")
                    }
                }
            }
            if watched[index].seen != expected {
                found.append("\(note): \(request) holds \(watched[index].seen), a fetch \(expected)")
            }
        }
        return found
    }

    /// The sections `result` should have: the runs of equal values of `key` over its objects.
    static func expectedSections(_ result: LiveResult, key: String, in context: ObjectContext) throws -> [LiveSection] {
        let evaluator = PredicateEvaluator(model: model) { id in
            let object = context.object(with: id)
            return object.isDeleted ? nil : object.currentSnapshot()
        }
        let values = try result.objectIDs.map {
            try evaluator.value(at: PropertyPath(key), of: context.object(with: $0).currentSnapshot())
        }
        var expected: [LiveSection] = []
        for (index, value) in values.enumerated() {
            if let last = expected.last, last.value == value {
                expected[expected.count - 1].range = last.range.lowerBound..<(index + 1)
            } else {
                expected.append(LiveSection(value: value, range: index..<(index + 1)))
            }
        }
        return expected
    }

    /// Runs `steps` random steps with `queries` live queries on `scheme`.
    static func run(_ scheme: String, seed: UInt64, steps: Int, queries: Int) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let coordinator = try coordinator(scheme, in: directory)
        var random = SeededGenerator(seed: seed)
        var nextKey: Int64 = 0
        let seeding = ObjectContext(coordinator: coordinator)
        for index in 0..<4 {
            let department = try seeding.insert("Department")
            department["name"] = .string("d\(index)")
            department["budget"] = .integer(Int64(index * 50))
        }
        try seeding.save()
        for _ in 0..<24 {
            try RandomGraphChanges.insertEmployee(seeding, key: nextKey, random: &random)
            nextKey += 1
        }
        try seeding.save()

        let view = ObjectContext(coordinator: coordinator, name: "view")
        view.mergePolicy = .mergeByPropertyObjectTrump
        let worker = ObjectContext(coordinator: coordinator, name: "worker")
        worker.mergePolicy = .mergeByPropertyObjectTrump
        var watched: [Watched] = []
        for _ in 0..<queries {
            let (request, sectionKey) = try randomRequest(random: &random)
            let live = try view.liveResults(for: request, sectionKeyPath: sectionKey)
            watched.append(Watched(request: request, sectionKey: sectionKey, iterator: live.makeAsyncIterator()))
        }
        try check(&watched, in: view, "\(scheme) seed \(seed), first results")
        // Stores without batch operations (LMDB, XML) get a change of the view context instead.
        let batch = try coordinator.store(for: "Employee").capability((any BatchOperating).self)
        for step in 0..<steps {
            let roll = Int.random(in: 0..<100, using: &random)
            switch roll {
            case 0..<45,
                75..<88 where batch == nil:
                try RandomGraphChanges.change(view, nextKey: &nextKey, random: &random)
                view.processPendingChanges()
            case 45..<55:
                try view.save()
            case 55..<75:
                try worker.performAndWait {
                    worker.reset()
                    for _ in 0..<Int.random(in: 1...3, using: &random) {
                        try RandomGraphChanges.change(worker, nextKey: &nextKey, random: &random)
                    }
                }
                let saved = try RandomGraphChanges.saveReturningChanges(worker)
                try view.mergeChanges(fromContextDidSave: saved)
            case 75..<83:
                let rank = Int64.random(in: 0..<6, using: &random)
                let updated = try batch!.batchUpdate(
                    entityName: "Employee", predicate: try ObjectPredicate(format: "rank == %@", rank),
                    values: ["rank": .integer(Int64.random(in: 0..<6, using: &random))])
                try view.mergeChanges(fromContextDidSave: ContextChanges(updated: Set(updated.objectIDs)))
            case 83..<88:
                let key = Int64.random(in: 0..<nextKey, using: &random)
                let deleted = try batch!.batchDelete(
                    entityName: "Employee", predicate: try ObjectPredicate(format: "key == %@", key))
                try view.mergeChanges(fromContextDidSave: ContextChanges(deleted: Set(deleted.objectIDs)))
            case 88..<94:
                view.rollback()
            default:
                view.reset()
            }
            try check(&watched, in: view, "\(scheme) seed \(seed) step \(step) (roll \(roll))")
        }
        let statistics = view.liveQueryStatistics
        #expect(statistics.subscriptions == queries)
        #expect(statistics.localDecisions > 0)
        #expect(statistics.refetches > 0)
    }

    @Test(arguments: schemes, [1, 2])
    func liveResultsEqualAFreshFetchAfterEveryRandomChange(_ scheme: String, seed: UInt64) throws {
        try Self.run(scheme, seed: seed, steps: 100, queries: 10)
    }

    @Test(.enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
    func liveResultsEqualAFreshFetchAfterEveryRandomChangeOnPostgreSQL() throws {
        try Self.run("postgres", seed: 3, steps: 100, queries: 12)
    }
}
