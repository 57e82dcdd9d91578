import Foundation
import StrataCore
import StrataMigrations
import StrataTestSupport
import Testing

/// `HistoryRecording.continueHistory(after:)` on every built-in store: the history goes on after
/// the sequence given, which reads as pruned, whether or not the store records history.
@Suite struct ContinueHistoryTests {
    @Test(arguments: BackendKind.allCases, ["on", "off"])
    func theNextTransactionFollowsTheSequenceGiven(_ kind: BackendKind, _ recording: String) throws {
        try withTemporaryDirectory { directory in
            let url = kind.url(in: directory)
            let backend = kind.backend
            defer { try? backend.destroyStore(at: url) }
            do {
                let store = try backend.open(url, model: StreamingHistoryMigrationTests.source, options: StoreOptions())
                defer { try? store.close() }
                for title in ["a", "b"] { try StreamingHistoryMigrationTests.insert(store, [.string(title)]) }
            }
            let store = try backend.open(
                url, model: StreamingHistoryMigrationTests.source,
                options: StoreOptions(options: [HistoryOptions.enabledOption: recording]))
            defer { try? store.close() }
            let history = try #require(store.capability((any HistoryRecording).self))
            try history.continueHistory(after: 10)
            // Never lowered.
            try history.continueHistory(after: 5)
            #expect(try history.lastHistoryToken()?.sequence == 10)
            #expect(try history.fetchHistory(HistoryRequest()).isEmpty)
            let stale = HistoryToken(storeIdentifier: store.identifier, sequence: 2)
            let error = #expect(throws: StrataError.self) { try history.fetchHistory(HistoryRequest(after: stale)) }
            #expect(error?.code == .historyExpired)
            try StreamingHistoryMigrationTests.insert(store, [.string("c")])
            #expect(
                try history.fetchHistory(HistoryRequest()).map(\.token.sequence) == (recording == "on" ? [11] : []))
        }
    }

    @Test(arguments: [BackendKind.sqlite, .lmdb, .xml])
    func aReadOnlyStoreRefuses(_ kind: BackendKind) throws {
        try withTemporaryDirectory { directory in
            let url = kind.url(in: directory)
            let backend = kind.backend
            do {
                let store = try backend.open(url, model: StreamingHistoryMigrationTests.source, options: StoreOptions())
                defer { try? store.close() }
                try StreamingHistoryMigrationTests.insert(store, [.string("a")])
            }
            let store = try backend.open(
                url, model: StreamingHistoryMigrationTests.source, options: StoreOptions(isReadOnly: true))
            defer { try? store.close() }
            let history = try #require(store.capability((any HistoryRecording).self))
            let error = #expect(throws: StrataError.self) { try history.continueHistory(after: 10) }
            #expect(error?.code == .readOnly)
            #expect(try history.lastHistoryToken()?.sequence == 1)
        }
    }
}
