import Foundation
import Strata
import StrataCore
import StrataRandomGraph
import StrataTestSupport
import Testing

/// Live queries stay equal to a fresh fetch while another process changes their store: a
/// container's view context observes random live queries (those of ``LiveQueryRandomTests``)
/// and merges remote changes by itself; `strata-change-probe`, a second process, makes random
/// inserts, updates, deletes and relationship changes, one save a step. After each step has
/// reached the view context, each query's diff applied to its previous result gives the new
/// result, which equals a fresh fetch.
@Suite struct LiveQueryProcessTests {
    static let model = RandomGraphModel.make("live-process")

    /// What the test keeps between hops to the view context's queue (it is only touched there).
    final class Watching: @unchecked Sendable {
        var queries: [LiveQueryRandomTests.Watched] = []
        var mismatches: [String] = []
    }

    /// Seeds a new store at `url` with 4 departments and 24 employees (keys 0 to 23).
    static func seed(_ url: StoreURL, random: inout SeededGenerator) throws {
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(BuiltInBackends.registry.open(url, model: model))
        let context = ObjectContext(coordinator: coordinator)
        for index in 0..<4 {
            let department = try context.insert("Department")
            department["name"] = .string("d\(index)")
            department["budget"] = .integer(Int64(index * 50))
        }
        try context.save()
        for key in 0..<24 { try RandomGraphChanges.insertEmployee(context, key: Int64(key), random: &random) }
        try context.save()
        try coordinator.store(for: "Employee").close()
    }

    /// Runs `steps` saves of the probe against `queries` live queries on the store at `url`.
    static func run(_ url: StoreURL, seed: UInt64, steps: Int, queries: Int) async throws {
        var random = SeededGenerator(seed: seed)
        try Self.seed(url, random: &random)
        let container = PersistentContainer(
            name: "live-process", model: model, storeDescriptions: [StoreDescription(url: url)], environment: [:])
        container.remoteChangePollInterval = .milliseconds(1)
        container.viewContext.automaticallyMergesRemoteChanges = true
        try await container.loadPersistentStores()
        defer { try? container.closeStores() }
        let heard = Locked<HistoryToken?>(nil)
        let observer = NotificationCenter.default.addObserver(
            forName: PersistentContainer.remoteChangeNotification, object: container, queue: nil
        ) { note in
            guard let change = note.userInfo?[PersistentContainer.remoteChangeKey] as? RemoteChange else { return }
            heard.withLock { $0 = max($0 ?? change.token, change.token) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let view = container.viewContext
        let watching = Watching()
        let requests = try (0..<queries).map { _ in try LiveQueryRandomTests.randomRequest(random: &random) }
        try await view.perform {
            for (request, sectionKey) in requests {
                let live = try view.liveResults(for: request, sectionKeyPath: sectionKey)
                watching.queries.append(
                    LiveQueryRandomTests.Watched(
                        request: request, sectionKey: sectionKey, iterator: live.makeAsyncIterator()))
            }
            watching.mismatches = try LiveQueryRandomTests.mismatches(
                &watching.queries, in: view, "\(url.scheme): first results")
        }
        #expect(watching.mismatches == [])

        let probe = try LineReadingProgram(
            builtExecutable("strata-change-probe"), [url.unredactedDescription, String(seed)], takingInput: true)
        defer {
            probe.send("quit")
            probe.finish()
        }
        try #require(probe.waitForLine(startingWith: "ready") != nil, "the probe did not start: \(probe.lines)")
        for step in 1...steps {
            probe.send("step")
            let saved = try #require(
                probe.waitForLine(startingWith: "saved \(step) "), "step \(step): no save: \(probe.lines.suffix(3))")
            let token = try HistoryToken(parsing: String(saved.split(separator: " ")[2]))
            // Heard by the container; its merges are queued on the stack before it tells anyone.
            #expect(
                await eventually { heard.withLock { $0.map { $0 >= token } ?? false } },
                "\(url.scheme) step \(step): \(token) never arrived")
            try await container.stack.root.perform {}
            try await view.perform {
                watching.mismatches = try LiveQueryRandomTests.mismatches(
                    &watching.queries, in: view, "\(url.scheme) step \(step)")
            }
            #expect(watching.mismatches == [])
        }
        let statistics = try await view.perform { view.liveQueryStatistics }
        #expect(statistics.subscriptions == queries)
        #expect(statistics.localDecisions > 0, "\(url.scheme): no change was decided locally")
    }

    @Test(arguments: ["sqlite", "lmdb", "xml"])
    func liveResultsFollowAnotherProcesssSaves(_ scheme: String) async throws {
        let directory = TemporaryDirectory()
        let url = StoreURL(scheme: scheme, location: directory.file("live.\(scheme)"))
        try await Self.run(url, seed: 11, steps: 40, queries: 12)
    }

    @Test(.enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
    func liveResultsFollowAnotherProcesssSavesOnPostgreSQL() async throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? BuiltInBackends.registry.backend(for: url.scheme).destroyStore(at: url) }
        try await Self.run(url, seed: 12, steps: 40, queries: 12)
    }
}
