import Logging

/// Strata's loggers, through swift-log: plug in a `LogHandler` with `LoggingSystem.bootstrap`
/// and Strata's messages go to it with the rest of the program's.
///
/// Strata logs below `info` only, so it is silent under swift-log's default (`info`) until a
/// handler asks for `debug` or `trace`. Labels start with `strata.` (`strata.sqlite`). What each
/// level carries (docs/Logging.md):
/// - `debug`: each SQL statement a SQLite store runs, with its time, without values; store opens.
/// - `trace`: the same statements with their bound values. Only `trace` ever carries values.
///
/// A store decides whether to log when it opens, from its logger's level then: bootstrap the
/// logging system before opening stores.
public enum StrataLog {
    /// The logger of a Strata component: `strata.COMPONENT` (`sqlite`, `engine`).
    public static func logger(_ component: String) -> Logger { Logger(label: "strata." + component) }
}
