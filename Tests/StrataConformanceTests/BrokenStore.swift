import Foundation
import StrataCore
import StrataInMemory
import StrataTestSupport

/// A deliberate defect to plant in an otherwise correct store.
enum Flaw: String, CaseIterable, Sendable {
    /// Silently drops the last insert of every save.
    case dropsLastInsert
    /// Claims to evaluate fetches natively but ignores the offset.
    case ignoresOffset
    /// Accepts updates at any version (no optimistic locking).
    case ignoresVersions
    /// Stores doubles with single precision.
    case roundsDoubles
    /// Writes the inserts of a save before discovering a bad value, leaving half a save.
    case savesHalfway
}

/// A backend whose stores are in-memory stores with one planted defect.
struct BrokenBackend: StoreBackend {
    let flaw: Flaw
    var scheme: String { "broken" }
    var capabilities: BackendCapabilities { InMemoryBackend().capabilities }

    func open(_ url: StoreURL, model: Model, options: StoreOptions) throws -> any PersistentStore {
        BrokenStore(flaw: flaw, inner: try InMemoryBackend().open(memoryURL(url), model: model, options: options))
    }

    func metadata(at url: StoreURL) throws -> StoreMetadata? { try InMemoryBackend().metadata(at: memoryURL(url)) }
    func destroyStore(at url: StoreURL) throws { try InMemoryBackend().destroyStore(at: memoryURL(url)) }
    private func memoryURL(_ url: StoreURL) -> StoreURL { StoreURL(scheme: "memory", location: url.location) }
}

final class BrokenStore: WrappingStore {
    let flaw: Flaw
    let inner: any PersistentStore
    init(flaw: Flaw, inner: any PersistentStore) {
        self.flaw = flaw
        self.inner = inner
    }

    func fetch(_ request: FetchRequest) throws -> FetchResult {
        var request = request
        if flaw == .ignoresOffset { request.offset = 0 }
        return try inner.fetch(request)
    }

    func save(_ request: SaveRequest) throws -> SaveResult {
        var request = request
        switch flaw {
        case .dropsLastInsert:
            if !request.inserts.isEmpty { request.inserts.removeLast() }
        case .ignoresVersions:
            for i in request.updates.indices {
                let id = request.updates[i].snapshot.objectID
                if let stored = try inner.fetch(FetchRequest(entityName: id.entityName, objectIDs: [id])).snapshots()
                    .first
                {
                    request.updates[i].expectedVersion = stored.version
                }
            }
        case .roundsDoubles:
            request.inserts = request.inserts.map { snapshot in
                var s = snapshot
                s.attributes = s.attributes.map {
                    if case .double(let d) = $0 { return .double(Double(Float(d))) } else { return $0 }
                }
                return s
            }
        case .savesHalfway:
            let good = request.inserts.filter {
                (try? $0.checkShape(against: model, storeIdentifier: identifier)) != nil
            }
            if good.count < request.inserts.count && !good.isEmpty { try inner.save(SaveRequest(inserts: good)) }
        case .ignoresOffset:
            break
        }
        return try inner.save(request)
    }
}
