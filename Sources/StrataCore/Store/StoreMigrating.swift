/// Brings a store written with an older version of a model up to the current version.
///
/// The container calls a migrator while it loads a store whose metadata names an older model
/// version (``StoreMetadata/modelVersionHash``) and whose description allows migration.
/// `StrataMigrations.StoreMigrator` is the built-in implementation; another one can be plugged in.
///
/// A migrator must leave the store at a whole model version whatever happens: when it throws, when
/// `isCancelled` returns `true` (it then throws ``StrataError/Code/cancelled``), or when the process
/// dies. It never deletes or recreates the store.
public protocol StoreMigrating: Sendable {
    /// The model version stores are migrated to.
    var currentModel: Model { get }

    /// Whether the store at `url` was written with a model version other than ``currentModel``
    /// that this migrator can migrate from.
    ///
    /// - Throws: ``StrataError/Code/modelMismatch`` when the store's version is unknown to the
    ///   migrator or newer than ``currentModel``; ``StrataError/Code/storeNotFound`` when there is
    ///   no store.
    func needsMigration(storeAt url: StoreURL) throws -> Bool

    /// Migrates the store at `url` to ``currentModel``.
    ///
    /// - Parameters:
    ///   - options: the options the store is opened with (map size, synchronous mode, ...).
    ///   - progress: called from the migrating thread as work completes.
    ///   - isCancelled: polled between steps; when it returns `true` the migrator stops, leaves
    ///     the store at a whole version and throws ``StrataError/Code/cancelled``.
    func migrateStore(
        at url: StoreURL,
        options: StoreOptions,
        progress: @escaping @Sendable (StoreProgress) -> Void,
        isCancelled: @escaping @Sendable () -> Bool
    ) throws
}

/// How far a long operation on a whole store (migrating it, copying it) has come: what the
/// migrator and the copier report while they work.
public struct StoreProgress: Sendable, Hashable, CustomStringConvertible {
    /// What is being done, in a few words (`"migrating v1 to v2"`, `"copying Employee"`).
    public var phase: String
    /// Units done in this phase.
    public var completed: Int
    /// Units in this phase in all; `0` when unknown.
    public var total: Int

    /// Creates a progress report.
    public init(phase: String, completed: Int, total: Int) {
        self.phase = phase
        self.completed = completed
        self.total = total
    }

    /// `phase: completed/total`.
    public var description: String { total > 0 ? "\(phase): \(completed)/\(total)" : "\(phase): \(completed)" }
}

