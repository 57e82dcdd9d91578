import Foundation
import StrataCore

/// One step of a container's load, as ``PersistentContainer/loadProgressUpdates()`` and the
/// load's Foundation `Progress` report it.
public struct LoadProgress: Sendable, Hashable, CustomStringConvertible {
    /// What the loader is doing.
    public enum Phase: String, Sendable, Hashable {
        /// Reading the store's metadata to learn its model version (and that it is a store).
        case checking
        /// Running the migrator; ``LoadProgress/detail`` carries the migrator's own phase.
        case migrating
        /// Opening the store with the backend.
        case opening
        /// Counting every entity of the store's configuration, which reads every table once.
        case verifying
        /// The store is open and attached to the coordinator.
        case opened
    }

    /// The store being loaded.
    public var store: StoreURL
    /// Its position among the container's stores, from 0.
    public var storeIndex: Int
    /// How many stores the container loads.
    public var storeCount: Int
    /// The phase.
    public var phase: Phase
    /// More words about the phase (the migrator's `"migrating v1 to v2"`), or empty.
    public var detail: String
    /// Units done in this phase.
    public var completed: Int
    /// Units in this phase in all; `0` when unknown.
    public var total: Int

    /// The key under which a load's Foundation `Progress` keeps the ``description`` of its
    /// latest step in its `userInfo`.
    public static let progressUserInfoKey = ProgressUserInfoKey("StrataLoadProgress")

    /// Creates a progress report.
    public init(
        store: StoreURL, storeIndex: Int, storeCount: Int, phase: Phase, detail: String = "", completed: Int, total: Int
    ) {
        self.store = store
        self.storeIndex = storeIndex
        self.storeCount = storeCount
        self.phase = phase
        self.detail = detail
        self.completed = completed
        self.total = total
    }

    /// `store 1/2 sqlite:app.sqlite: migrating (migrating v1 to v2) 10/20`.
    public var description: String {
        let units = total > 0 ? " \(completed)/\(total)" : (completed > 0 ? " \(completed)" : "")
        return
            "store \(storeIndex + 1)/\(storeCount) \(store): \(phase.rawValue)\(detail.isEmpty ? "" : " (\(detail))")\(units)"
    }
}
