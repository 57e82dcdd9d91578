import StrataCore

extension StoreCoordinator {
    /// `request` with the previous state of each update (``SaveRequest/Update/previous``) and of
    /// each delete whose entity keeps values after deletion (``SaveRequest/Delete/previous``),
    /// wherever the row cache holds the object at the version the change was based on: a store
    /// that records history then takes the old values from the request instead of reading them.
    ///
    /// Never reads a store: an object the cache does not hold at that version goes without one,
    /// and the store reads it as it writes. One hold of the row cache's lock for the whole request.
    func withPreviousStates(_ request: SaveRequest) -> SaveRequest {
        var request = request
        var keepsDeleted: [String: Bool] = [:]
        let recorder = HistoryChangeRecorder(model: model)
        var filled = 0
        rowCache.withCachedSnapshots { cached in
            for index in request.updates.indices where request.updates[index].previous == nil {
                let update = request.updates[index]
                guard let before = cached(update.snapshot.objectID), before.version == update.expectedVersion else {
                    continue
                }
                request.updates[index].previous = before
                filled += 1
            }
            for index in request.deletes.indices where request.deletes[index].previous == nil {
                let delete = request.deletes[index]
                let entityName = delete.objectID.entityName
                let needed =
                    keepsDeleted[entityName]
                    ?? {
                        let needed = recorder.needsStateOfDeleted(entityName)
                        keepsDeleted[entityName] = needed
                        return needed
                    }()
                guard needed, let before = cached(delete.objectID), before.version == delete.expectedVersion else {
                    continue
                }
                request.deletes[index].previous = before
                filled += 1
            }
        }
        #if DEBUG
            if filled > 0 { previousStatesGiven.add(filled, ordering: .relaxed) }
        #else
            _ = filled
        #endif
        return request
    }
}
