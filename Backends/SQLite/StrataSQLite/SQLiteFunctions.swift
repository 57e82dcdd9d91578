import CStrataSQLite
import Foundation
import StrataCore
import Synchronization

/// The SQL functions Strata registers on every connection, so that string predicates run in SQL
/// with exactly the in-memory evaluator's semantics: each calls the very function the evaluator
/// uses (``StringFolding`` and ``StringMatching``).
///
/// - `strata_fold(text, options)`: ``StringFolding/fold(_:_:)`` (`options` is the raw value of
///   ``ObjectPredicate/Options``); `NULL` for `NULL`.
/// - `strata_like(text, pattern, options)`: ``StringMatching/like(_:_:options:)``; `NULL` when
///   either side is `NULL`.
/// - `strata_matches(text, pattern, options)`: ``StringMatching/matches(_:_:options:)``; `NULL`
///   for a `NULL` text, an SQL error for an invalid expression (the query builder declines those
///   before they reach SQL). The compiled pattern is kept with the statement, so a fetch
///   compiles it once.
///
/// - `strata_decimal(text)`: a stored decimal as the `Double` the evaluator compares
///   (``ValueComparison/double(_:)``); `NULL` for `NULL` and NaN.
///
/// All are deterministic, so SQLite may factor them out of loops.
enum SQLiteFunctions {
    /// Registers the functions on `db`; `failure` receives the typed error of a function that
    /// fails (it must outlive the handle).
    static func register(on db: OpaquePointer, failure: SQLiteFunctionFailure) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        sqlite3_create_function_v2(db, "strata_fold", 2, flags, nil, foldFunction, nil, nil, nil)
        sqlite3_create_function_v2(db, "strata_like", 3, flags, nil, likeFunction, nil, nil, nil)
        sqlite3_create_function_v2(
            db, "strata_matches", 3, flags, Unmanaged.passUnretained(failure).toOpaque(), matchesFunction, nil, nil, nil
        )
        sqlite3_create_function_v2(db, "strata_decimal", 1, flags, nil, decimalFunction, nil, nil, nil)
    }

    /// The text of argument `index`, or `nil` for `NULL`.
    static func text(_ argv: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> String? {
        guard let value = argv?[index], sqlite3_value_type(value) != SQLITE_NULL else { return nil }
        guard let bytes = sqlite3_value_text(value) else { return "" }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    static func options(_ argv: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> ObjectPredicate.Options {
        ObjectPredicate.Options(rawValue: UInt8(truncatingIfNeeded: sqlite3_value_int(argv![index])))
    }

    static func resultText(_ context: OpaquePointer?, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            if let base = buffer.baseAddress {
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    sqlite3_result_text(context, $0, Int32(buffer.count), cstrata_sqlite_transient())
                }
            } else {
                sqlite3_result_text(context, "", 0, cstrata_sqlite_transient())
            }
        }
    }

    static let foldFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
        context, _, argv in
        guard let text = SQLiteFunctions.text(argv, 0) else {
            sqlite3_result_null(context)
            return
        }
        SQLiteFunctions.resultText(context, StringFolding.fold(text, SQLiteFunctions.options(argv, 1)))
    }

    static let likeFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
        context, _, argv in
        guard let text = SQLiteFunctions.text(argv, 0), let pattern = SQLiteFunctions.text(argv, 1) else {
            sqlite3_result_null(context)
            return
        }
        sqlite3_result_int(
            context, StringMatching.like(text, pattern, options: SQLiteFunctions.options(argv, 2)) ? 1 : 0)
    }

    static let decimalFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
        { context, _, argv in
            guard let text = SQLiteFunctions.text(argv, 0), text != SQLiteValueCoding.nanMarker,
                let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
                let number = ValueComparison.double(.decimal(decimal)), !number.isNaN
            else {
                sqlite3_result_null(context)
                return
            }
            sqlite3_result_double(context, number)
        }

    /// A compiled pattern that SQLite keeps beside a statement's pattern argument
    /// (`sqlite3_set_auxdata`), so a fetch compiles it once rather than once per row.
    final class CompiledPattern {
        let pattern: StringMatching.RegexPattern
        init(_ pattern: StringMatching.RegexPattern) { self.pattern = pattern }
    }

    static let releaseCompiledPattern: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        guard let pointer else { return }
        Unmanaged<CompiledPattern>.fromOpaque(pointer).release()
    }

    static let matchesFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
        { context, _, argv in
            guard let text = SQLiteFunctions.text(argv, 0) else {
                sqlite3_result_null(context)
                return
            }
            let compiled: StringMatching.RegexPattern
            if let kept = sqlite3_get_auxdata(context, 1) {
                compiled = Unmanaged<CompiledPattern>.fromOpaque(kept).takeUnretainedValue().pattern
            } else {
                guard let pattern = SQLiteFunctions.text(argv, 1) else {
                    sqlite3_result_null(context)
                    return
                }
                do {
                    compiled = try StringMatching.RegexPattern(pattern, options: SQLiteFunctions.options(argv, 2))
                } catch {
                    SQLiteFunctions.fail(context, error)
                    return
                }
                // SQLite releases it when the statement is reset with another pattern or finalized
                // (or at once, if it cannot keep it).
                sqlite3_set_auxdata(
                    context, 1, Unmanaged.passRetained(CompiledPattern(compiled)).toOpaque(),
                    SQLiteFunctions.releaseCompiledPattern)
            }
            do {
                sqlite3_result_int(context, try compiled.matches(text) ? 1 : 0)
            } catch {
                SQLiteFunctions.fail(context, error)
            }
        }

    /// Fails the SQL function call with `error`, which the connection then reports, typed, for
    /// the failing statement (see ``SQLiteFunctionFailure``).
    static func fail(_ context: OpaquePointer?, _ error: any Error) {
        let typed = error as? StrataError ?? StrataError(.invalidPredicate, "MATCHES failed: \(error)")
        if let box = sqlite3_user_data(context) {
            Unmanaged<SQLiteFunctionFailure>.fromOpaque(box).takeUnretainedValue().error = typed
        }
        sqlite3_result_error(context, typed.message, -1)
    }
}

/// The typed error of the last Strata SQL function that failed on one connection, kept until
/// the failing statement reports its error (``SQLiteConnection/error(_:_:sql:)`` returns it
/// instead of SQLite's generic one). Used by one connection, on one thread at a time.
final class SQLiteFunctionFailure {
    var error: StrataError?
}
