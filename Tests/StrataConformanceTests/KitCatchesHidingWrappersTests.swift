import Foundation
import StrataConformance
import StrataCore
import StrataInMemory
import Testing

/// A wrapper that forwards every call but `capability(_:)`, so it hides the inner store's
/// capabilities: the mistake the kit's wrapper check exists to catch.
private final class HidingStore: PersistentStore {
    let inner: any PersistentStore
    init(_ inner: any PersistentStore) { self.inner = inner }
    var url: StoreURL { inner.url }
    var model: Model { inner.model }
    var identifier: String { inner.identifier }
    func metadata() throws -> StoreMetadata { try inner.metadata() }
    func snapshots(of entityName: String, among ids: [ObjectID]?) throws -> [Snapshot] {
        try inner.snapshots(of: entityName, among: ids)
    }
    func fetch(_ request: FetchRequest) throws -> FetchResult { try inner.fetch(request) }
    @discardableResult func save(_ request: SaveRequest) throws -> SaveResult { try inner.save(request) }
    func obtainPermanentIDs(for entityName: String, count: Int) throws -> [ObjectID] {
        try inner.obtainPermanentIDs(for: entityName, count: count)
    }
    func close() throws { try inner.close() }
}

private func memorySubject(
    wrappedIn wrap: @escaping @Sendable (any PersistentStore) -> any PersistentStore
) -> ConformanceSubject {
    var subject = ConformanceSubject(name: "memory-wrapped", backend: InMemoryBackend()) {
        StoreURL(scheme: "memory", location: "kit-\(UUID().uuidString)")
    }
    subject.wrap = wrap
    return subject
}

private let wrapperCheck = ConformanceKit.checks.first { $0.name == "capabilitiesSurviveAForwardingWrapper" }

@Test func kitCatchesAWrapperThatHidesCapabilities() throws {
    let check = try #require(wrapperCheck)
    let failure = try #require(throws: ConformanceFailure.self) { try check.run(on: memorySubject { HidingStore($0) }) }
    #expect(failure.check == "capabilitiesSurviveAForwardingWrapper")
    #expect(failure.message.contains("hides the store's"), "\(failure.message)")
}

@Test func kitPassesAForwardingWrapperAndUsesTheCapabilitiesThroughIt() throws {
    let check = try #require(wrapperCheck)
    #expect(try check.run(on: memorySubject { ForwardingStore($0) }), "the check applies to every store")
    let store = try InMemoryBackend().open(
        StoreURL(scheme: "memory", location: ""), model: ConformanceFixtures.model,
        options: StoreOptions())
    let wrapped = ForwardingStore(store)
    #expect(wrapped.capability((any BatchOperating).self) != nil)
    #expect(wrapped.capability((any SnapshotServing).self) != nil)
    #expect(HidingStore(store).capability((any BatchOperating).self) == nil)
}
