import Foundation
import Strata
import StrataTestSupport
import StrataTransfer
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `strata copy FROM TO --follow` as a separate process: saves made in FROM while it runs reach
/// TO, a restart resumes exactly once, and SIGKILL at any moment loses nothing.
@Suite struct FollowCommandTests {
    static let pairs: [(String, String)] = [("sqlite", "lmdb"), ("lmdb", "sqlite")]
    /// Follower processes killed per pair.
    static let kills = 50

    /// FROM open in this process for writing, and TO's place.
    struct Stores {
        let directory = TemporaryDirectory()
        let source: any PersistentStore
        let destination: StoreURL
        let backend: any StoreBackend

        init(_ from: String, _ to: String) throws {
            source = try Fixture.open(directory.storeURL(from, name: "source"))
            try seedCompany(source, employees: 20)
            destination = directory.storeURL(to, name: "copy")
            backend = try BuiltInBackends.registry.backend(for: to)
        }

        var key: String { StoreFollower.metadataKey(following: source.identifier) }

        /// The position TO records, read without opening it.
        func position() -> String? { (try? backend.metadata(at: destination))??.userInfo[key] }

        /// Waits until TO records FROM's last transaction.
        func waitUntilCaughtUp(timeout: TimeInterval = 120) throws -> Bool {
            let last = try #require(try source.capability((any HistoryRecording).self)?.lastHistoryToken())
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if position() == last.description { return true }
                usleep(20_000)
            }
            return false
        }

        func follower(json: Bool = true) throws -> LineReadingProgram {
            try LineReadingProgram(
                builtExecutable("strata"),
                ["copy", source.url.description, destination.description, "--follow"] + (json ? ["--json"] : []),
                discardingErrors: true)
        }

        /// TO as JSON Lines, read once no follower runs.
        func exportedCopy() throws -> String {
            let copy = try BuiltInBackends.registry.open(
                destination, model: source.model, options: StoreOptions(isReadOnly: true, createsIfMissing: false))
            defer { try? copy.close() }
            return try Fixture.export(copy)
        }

        func close() {
            try? source.close()
            directory.cleanUp()
        }
    }

    /// Sends SIGTERM once the follower printed its first line (it takes the signal from then on)
    /// and returns its exit status and last line; a follower that does not stop is killed.
    private static func stop(_ follower: LineReadingProgram) -> (status: Int32, last: String?) {
        guard follower.waitForLine(startingWith: #"{"from""#) != nil else {
            follower.kill()
            Issue.record("the follower never started: \(follower.lines)")
            return (-1, nil)
        }
        kill(follower.process.processIdentifier, SIGTERM)
        guard follower.waitForLine(startingWith: #"{"followed""#) != nil else {
            follower.kill()
            Issue.record("the follower did not stop on SIGTERM: \(follower.lines)")
            return (-1, nil)
        }
        follower.finish()
        return (follower.process.terminationStatus, follower.lines.last)
    }

    @Test(arguments: pairs)
    func savesWhileFollowingArriveAndARestartResumesExactlyOnce(_ from: String, _ to: String) throws {
        let stores = try Stores(from, to)
        defer { stores.close() }
        var writer = CompanyWriter(stores.source, random: SeededGenerator(seed: 21, step: from.count))
        let first = try stores.follower()
        let copied = try parseJSON(try #require(first.waitForLine(startingWith: #"{"from""#)))
        #expect(copied["copied"] == .integer(Int64(try Fixture.count(stores.source))))
        // A step that finds nothing to change saves nothing: count the saves.
        for _ in 0..<15 { try writer.step(author: "app") }
        let saved = writer.saves
        #expect(try stores.waitUntilCaughtUp())
        let stopped = Self.stop(first)
        #expect(stopped.status == 0)
        let summary = try parseJSON(try #require(stopped.last))
        #expect(summary["transactions"] == .integer(Int64(saved)))
        #expect(try stores.exportedCopy() == (try Fixture.export(stores.source)))

        // Saves made while no follower runs arrive once the same command runs again.
        let position = try #require(stores.position())
        for _ in 0..<6 { try writer.step() }
        let savedWhileStopped = writer.saves - saved
        let second = try stores.follower()
        let resumed = try parseJSON(try #require(second.waitForLine(startingWith: #"{"from""#)))
        #expect(resumed["resumedAfter"] == .string(position))
        #expect(resumed["copied"] == nil)
        #expect(try stores.waitUntilCaughtUp())
        let again = Self.stop(second)
        #expect(again.status == 0)
        #expect(try parseJSON(try #require(again.last))["transactions"] == .integer(Int64(savedWhileStopped)))
        #expect(try stores.exportedCopy() == (try Fixture.export(stores.source)))
    }

    @Test(arguments: pairs)
    func aFollowerKilledAtRandomMomentsEndsWithTheSameObjects(_ from: String, _ to: String) throws {
        let stores = try Stores(from, to)
        defer { stores.close() }
        var random = SeededGenerator(seed: 22, step: from.count)
        var writer = CompanyWriter(stores.source, random: SeededGenerator(seed: 23, step: from.count))
        var resumed = 0
        for kill in 0..<Self.kills {
            let follower = try stores.follower()
            // Every other time, wait until it copied or resumed, so that the kill lands while it
            // follows; otherwise it lands while it starts or copies.
            if kill % 2 == 1 { _ = follower.waitForLine(startingWith: #"{"from""#, timeout: 30) }
            // Saves while it runs; then SIGKILL a moment later.
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                try writer.step()
                usleep(UInt32.random(in: 0...20_000, using: &random))
            }
            usleep(UInt32.random(in: 0...(kill % 2 == 1 ? 50_000 : 300_000), using: &random))
            follower.kill()
            if follower.lines.contains(where: { $0.contains("resumedAfter") }) { resumed += 1 }
        }
        // Some kills landed after the first copy finished, so some runs resumed.
        #expect(resumed > 0)
        let last = try stores.follower()
        #expect(try stores.waitUntilCaughtUp())
        #expect(Self.stop(last).status == 0)
        #expect(try stores.exportedCopy() == (try Fixture.export(stores.source)), "\(from) -> \(to)")
    }
}
