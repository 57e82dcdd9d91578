import Logging
import StrataCore

/// What contexts log (`strata.context`): each merge of another context's save at `debug`, and
/// each conflict a save meets at `notice`. Entities, counts and the merge policy; never a value.
extension ObjectContext {
    /// Logs the merge of `changes` (another context's save) into this context, and how many of
    /// its objects the merge refreshed and removed (`merged`).
    func logMerge(of changes: ContextChanges, merged: ContextChanges) {
        let logger = StrataLog.logger("context")
        guard logger.logLevel <= .debug else { return }
        let incoming = changes.inserted.count + changes.updated.count + changes.deleted.count
        var metadata = contextMetadata(entities: changes.inserted.union(changes.updated).union(changes.deleted))
        metadata["objects"] = .stringConvertible(incoming)
        metadata["refreshed"] = .stringConvertible(merged.updated.count)
        metadata["removed"] = .stringConvertible(merged.deleted.count)
        logger.debug("merged a save of \(incoming) objects into \(contextName)", metadata: metadata)
    }

    /// Logs the conflicts a save met: resolved by the merge policy (`resolving`, in round
    /// `round`), or ending the save.
    func logConflicts(_ conflicts: [SaveConflict], resolving: Bool, round: Int) {
        let logger = StrataLog.logger("context")
        guard logger.logLevel <= .debug, !conflicts.isEmpty else { return }
        var metadata = contextMetadata(entities: Set(conflicts.map(\.objectID)))
        metadata["objects"] = .stringConvertible(conflicts.count)
        metadata["round"] = .stringConvertible(round)
        let outcome =
            resolving ? "resolving them by \(mergePolicy)" : "the save fails (merge policy \(mergePolicy))"
        logger.debug(
            "the save of \(contextName) met \(conflicts.count) conflict\(conflicts.count == 1 ? "" : "s"); \(outcome)",
            metadata: metadata)
    }

    private var contextName: String { name.map { "context '\($0)'" } ?? "a context" }

    /// The context's name, its merge policy, and the entities of `ids` (sorted, comma-separated).
    private func contextMetadata(entities ids: Set<ObjectID>) -> Logger.Metadata {
        [
            "context": .string(name ?? ""), "mergePolicy": .string(mergePolicy.description),
            "entities": .string(Set(ids.map(\.entityName)).sorted().joined(separator: ",")),
        ]
    }
}
