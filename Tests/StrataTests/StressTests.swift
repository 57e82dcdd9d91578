import Foundation
import Strata
import Testing

/// The shared object the racers fight over: `shared` is incremented by everybody, `slot<i>` only
/// by racer `i` (per-context property ownership).
@Managed
final class Board: ManagedObject {
    @Attribute(default: 0) var shared: Int64
    @Attribute(default: 0) var slot0: Int64
    @Attribute(default: 0) var slot1: Int64
    @Attribute(default: 0) var slot2: Int64
    @Attribute(default: 0) var slot3: Int64
    @Attribute(default: 0) var slot4: Int64
    @Attribute(default: 0) var slot5: Int64
    @Attribute(default: 0) var slot6: Int64
    @Attribute(default: 0) var slot7: Int64

    /// Racer `index`'s own counter.
    func slot(_ index: Int) -> Int64 { self["slot\(index)"].integerValue }
    /// Adds one to racer `index`'s own counter.
    func bumpSlot(_ index: Int) throws { try set(slot(index) + 1, for: "slot\(index)") }
    /// Every counter, `shared` first.
    var counters: [Int64] { [shared] + (0..<8).map(slot) }
}

/// Shared to-many relationships the racers all add to and remove from: every save adds its new
/// entry to one bin (round modulo the number of bins) and deletes the racer's previous entry
/// from another, so the bins are in conflict as often as the board (and the store stays small).
@Managed
final class Bin: ManagedObject {
    @Relationship(inverse: "bin", deleteRule: .cascade) var entries: Set<Entry>
}

/// The latest successful save of one racer.
@Managed
final class Entry: ManagedObject {
    @Attribute(default: 0) var racer: Int64
    @Attribute(default: 0) var round: Int64
    @Relationship(inverse: "entries") var bin: Bin?
}

extension Value {
    /// The integer inside, 0 for anything else.
    fileprivate var integerValue: Int64 {
        if case .integer(let value) = self { return value }
        return 0
    }
}

/// Eight private contexts racing on the same objects under each merge policy: no update is lost
/// silently (under the error policy every rejected save is reported; under the others the final
/// state is what the policy says, given the conflicts each save reports in its did-save), and
/// every inverse matches at the end.
@Suite struct StressTests {
    static let racers = 8
    /// Saves per racer: 1,000, or `STRATA_STRESS_ROUNDS` (CI's ThreadSanitizer run takes fewer:
    /// the races it looks for show in the first rounds, and each round costs ten times as much).
    static let rounds = ProcessInfo.processInfo.environment["STRATA_STRESS_ROUNDS"].flatMap(Int.init) ?? 1_000
    static let bins = 16

    /// What one racer saw.
    struct Tally: Sendable {
        var index = 0
        var saved = 0
        var rejected = 0
        var conflictsNamingShared = 0
        /// Saves whose resolved conflicts include the board.
        var boardConflicts = 0
        /// Saves where the store's `shared` won over this racer's increment.
        var sharedDiscarded = 0
        /// The board's version and counters after this racer's last save.
        var lastVersion: Int64 = 0
        var lastCounters: [Int64] = []
        /// This racer's own slot, in memory, at the end.
        var ownSlot: Int64 = 0
        /// The round of this racer's last successful save.
        var lastSavedRound: Int64 = -1
    }

    @Test(arguments: MergePolicy.allCases)
    func eightContextsRacingOnSharedObjectsLoseNoUpdateSilently(policy: MergePolicy) async throws {
        let model = try Model(versionIdentifier: "1", classes: [Board.self, Bin.self, Entry.self])
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(BuiltInBackends.registry.open("memory:", model: model))
        try coordinator.registerClasses([Board.self, Bin.self, Entry.self])
        let setup = ObjectContext(coordinator: coordinator, name: "setup")
        let board = setup.insert(Board.self)
        let bins = (0..<Self.bins).map { _ in setup.insert(Bin.self) }
        try setup.save()
        let boardID = board.objectID
        let binIDs = bins.map(\.objectID)

        let tallies = try await withThrowingTaskGroup(of: Tally.self) { group in
            for index in 0..<Self.racers {
                let context = ObjectContext(coordinator: coordinator, name: "racer \(index)")
                context.mergePolicy = policy
                group.addTask {
                    try await Self.race(context, index: index, boardID: boardID, binIDs: binIDs, policy: policy)
                }
            }
            return try await group.reduce(into: [Tally]()) { $0.append($1) }
        }.sorted { $0.index < $1.index }

        let saved = tallies.map(\.saved).reduce(0, +)
        let rejected = tallies.map(\.rejected).reduce(0, +)
        #expect(saved + rejected == Self.racers * Self.rounds, "every save either succeeded or was reported")

        let reader = ObjectContext(coordinator: coordinator, name: "reader")
        let stored = try #require(try reader.existingObject(with: boardID) as? Board)
        let entries = try reader.fetch(Entry.self)
        let storedBins = try binIDs.map { try #require(try reader.existingObject(with: $0) as? Bin) }
        #expect(
            entries.count == tallies.filter { $0.saved > 0 }.count,
            "each racer's previous entry was deleted by its next save")
        for tally in tallies where tally.saved > 0 {
            let mine = entries.filter { $0.racer == tally.index }
            #expect(
                mine.map(\.round) == [tally.lastSavedRound],
                "racer \(tally.index)'s entry is the one of its last successful save")
        }
        #expect(
            Set(storedBins.flatMap { $0.entries.map(\.objectID) }) == Set(entries.map(\.objectID)),
            "every addition to and removal from the shared to-manys was kept")
        #expect(storedBins.map(\.entries.count).reduce(0, +) == entries.count, "each entry is in one bin")
        #expect(storedBins.allSatisfy { bin in bin.entries.allSatisfy { $0.bin === bin } }, "inverses match")
        #expect(
            entries.allSatisfy { entry in entry.bin.map { $0.objectID == binIDs[Int(entry.round) % Self.bins] } ?? false
            }, "each entry is in its bin")

        switch policy {
        case .error:
            #expect(saved > 0)
            #expect(tallies.map(\.conflictsNamingShared).reduce(0, +) == rejected, "each rejection names 'shared'")
            #expect(stored.shared == Int64(saved), "no successful increment was lost, none was applied twice")
            for tally in tallies { #expect(stored.slot(tally.index) == Int64(tally.saved)) }
        case .mergeByPropertyStoreTrump:
            #expect(rejected == 0)
            let kept = tallies.map { $0.saved - $0.sharedDiscarded }.reduce(0, +)
            #expect(
                stored.shared == Int64(kept), "an increment is lost exactly when the store's 'shared' won, as reported")
            for tally in tallies {
                #expect(
                    stored.slot(tally.index) == Int64(Self.rounds),
                    "nobody else changes a racer's own slot: memory keeps it")
            }
        case .mergeByPropertyObjectTrump:
            #expect(rejected == 0)
            for tally in tallies {
                #expect(stored.slot(tally.index) == Int64(Self.rounds), "memory wins on the properties it changed")
            }
            let last = try #require(tallies.max { $0.lastVersion < $1.lastVersion })
            #expect(stored.shared == last.lastCounters.first, "'shared' is what the last saver had in memory")
        case .overwrite:
            #expect(rejected == 0)
            let last = try #require(tallies.max { $0.lastVersion < $1.lastVersion })
            #expect(stored.counters == last.lastCounters, "the whole board is the last saver's in-memory board")
            #expect(stored.version == last.lastVersion)
            for tally in tallies { #expect(tally.ownSlot == Int64(Self.rounds)) }
        case .rollback:
            #expect(rejected == 0)
            let unconflicted = tallies.map { $0.saved - $0.boardConflicts }.reduce(0, +)
            #expect(
                stored.shared == Int64(unconflicted),
                "a save's board changes survive exactly when the board was not in conflict")
            for tally in tallies { #expect(stored.slot(tally.index) == Int64(tally.saved - tally.boardConflicts)) }
        }
    }

    /// One racer: `rounds` saves, each incrementing `shared` and its own slot and adding an entry.
    static func race(_ context: ObjectContext, index: Int, boardID: ObjectID, binIDs: [ObjectID], policy: MergePolicy)
        async throws -> Tally
    {
        let reports = Collector<SaveConflict?>()
        let token = NotificationCenter.default.addObserver(
            forName: ObjectContext.didSaveNotification, object: context, queue: nil
        ) { note in
            let resolved = note.userInfo?[ObjectContext.resolvedConflictsKey] as? [SaveConflict] ?? []
            reports.append(resolved.first { $0.objectID == boardID })
        }
        defer { NotificationCenter.default.removeObserver(token) }
        var tally = try await context.perform { () throws -> Tally in
            var tally = Tally(index: index)
            let board = try #require(try context.existingObject(with: boardID) as? Board)
            let bins = try binIDs.map { try #require(try context.existingObject(with: $0) as? Bin) }
            var previous: Entry?
            for round in 0..<rounds {
                board.shared += 1
                try board.bumpSlot(index)
                let entry = context.insert(Entry.self)
                entry.racer = Int64(index)
                entry.round = Int64(round)
                entry.bin = bins[round % bins.count]
                if let previous { context.delete(previous) }
                do {
                    try context.save()
                    tally.saved += 1
                    tally.lastSavedRound = Int64(round)
                    previous = entry
                } catch let error as StrataError where error.code == .conflict && policy == .error {
                    tally.rejected += 1
                    if error.conflicts.contains(where: {
                        $0.objectID == boardID && $0.properties.contains { $0.property == "shared" }
                    }) {
                        tally.conflictsNamingShared += 1
                    }
                    context.rollback()
                    try context.refresh(board, mergeChanges: false)
                    for bin in bins { try context.refresh(bin, mergeChanges: false) }
                }
            }
            tally.lastVersion = board.version
            tally.lastCounters = board.counters
            tally.ownSlot = board.slot(index)
            return tally
        }
        let boardReports = reports.values
        #expect(boardReports.count == tally.saved, "one did-save per successful save")
        for report in boardReports.compactMap({ $0 }) {
            tally.boardConflicts += 1
            if let shared = report.properties.first(where: { $0.property == "shared" }),
                shared.storeValue != shared.snapshotValue
            {
                tally.sharedDiscarded += 1
            }
        }
        return tally
    }
}
