import Logging

/// Strata's loggers, through swift-log: plug in a `LogHandler` with `LoggingSystem.bootstrap`
/// and Strata's messages go to it with the rest of the program's.
///
/// One label per concern, each starting with `strata.` (docs/Logging.md):
/// - `strata.store` (`info`): each store a backend opens: URL, backend, model version.
/// - `strata.migration` (`info`): each migration step: versions, objects per entity, time.
/// - `strata.context`: each conflict a save meets (`notice`); each merge of a save (`debug`).
/// - `strata.sqlite`, `strata.lmdb`, `strata.xml` (`debug`): each SQL statement, LMDB read and
///   write, XML load and save, with its time; `trace` adds the SQL's bound values.
///
/// Only `trace` ever carries attribute values, and no level carries credentials (URLs are logged
/// as ``StoreURL/loggedDescription`` writes them). A store decides whether to log its operations
/// when it opens, from its logger's level then: bootstrap the logging system before opening stores.
public enum StrataLog {
    /// The logger of a Strata component: `strata.COMPONENT` (`sqlite`, `engine`).
    public static func logger(_ component: String) -> Logger { Logger(label: "strata." + component) }
}
