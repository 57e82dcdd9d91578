import Foundation
import StrataConformance
import StrataCore
import StrataInMemory
import StrataTestSupport
import Testing

/// A wrapper that forwards every call but `capability(_:)`, so it hides the inner store's
/// capabilities: the mistake the kit's wrapper check exists to catch.
private final class HidingStore: WrappingStore {
    let inner: any PersistentStore
    init(_ inner: any PersistentStore) { self.inner = inner }
    func fetch(_ request: FetchRequest) throws -> FetchResult { try inner.fetch(request) }
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
