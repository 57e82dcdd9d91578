import CStrataSQLite
import StrataCore

/// Binds the values of one save's rows to its statements, lending SQLite the bytes of long
/// strings instead of having it copy them.
///
/// SQLite copies text bound with `SQLITE_TRANSIENT`: an allocation, a copy and a free for each
/// string of each row written. With `SQLITE_STATIC` it reads the caller's bytes when the
/// statement runs, which is safe only while those bytes stay where they are. A binder lends the
/// UTF-8 storage of strings longer than 15 bytes (a `String` that long keeps its bytes in a
/// heap object, which does not move while any copy of the string lives), and only inside
/// ``withBinder(keeping:_:)``, which keeps the save request whose snapshots hold those strings
/// alive until it returns. Shorter strings (kept inside the `String` value itself) and every
/// other value are bound as ``SQLiteValueCoding/bind(_:at:in:)`` binds them.
///
/// When the body returns (or throws), the binder clears every binding of each statement it lent
/// text to (`sqlite3_clear_bindings`), so no statement of the connection's cache keeps a
/// pointer to the request's strings after the save. Debug builds check each lent string: longer
/// than 15 bytes, and reporting the same storage address twice.
struct SQLiteRowBinder {
    /// The statements this binder lent text to, to clear when it is done.
    private var lentTo: [SQLiteStatement] = []
    /// How many strings this binder lent (for tests).
    private(set) var lentCount = 0

    private init() {}

    /// Runs `body` with a binder for the rows of `request`, then clears the bindings that
    /// borrowed the request's strings.
    static func withBinder<T>(keeping request: SaveRequest, _ body: (inout SQLiteRowBinder) throws -> T) rethrows -> T {
        var binder = SQLiteRowBinder()
        defer {
            binder.clearLentBindings()
            withExtendedLifetime(request) {}
        }
        return try body(&binder)
    }

    /// Binds `value` at parameter `index` of `statement`; a string longer than 15 bytes is lent,
    /// not copied.
    @inline(__always)
    mutating func bind(_ value: Value, at index: Int32, in statement: SQLiteStatement) {
        guard case .string(let text) = value, text.utf8.count > Self.longestInlineString,
            lend(text, at: index, in: statement)
        else {
            SQLiteValueCoding.bind(value, at: index, in: statement)
            return
        }
        lentCount += 1
        if lentTo.last !== statement { note(statement) }
    }

    /// The most UTF-8 bytes a `String` keeps inside its own value (on 64-bit platforms; 10 on
    /// 32-bit ones): anything longer lives in heap storage.
    private static let longestInlineString = 15

    /// Binds `text`'s UTF-8 storage as `SQLITE_STATIC`; `false` when the string has no
    /// contiguous UTF-8 storage to lend.
    @inline(__always)
    private func lend(_ text: String, at index: Int32, in statement: SQLiteStatement) -> Bool {
        let lent =
            text.utf8.withContiguousStorageIfAvailable { buffer -> Bool in
                guard let base = buffer.baseAddress else { return false }
                let bytes = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
                sqlite3_bind_text(statement.handle, index, bytes, Int32(buffer.count), cstrata_sqlite_static())
                return true
            } ?? false
        assert(!lent || Self.isStable(text), "lent the bytes of a string whose storage may move: \(text)")
        return lent
    }

    /// Whether `text` keeps its UTF-8 bytes at one heap address (debug check).
    private static func isStable(_ text: String) -> Bool {
        let first = text.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        let second = text.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
        return text.utf8.count > longestInlineString && first != nil && first == second
    }

    private mutating func note(_ statement: SQLiteStatement) {
        if !lentTo.contains(where: { $0 === statement }) { lentTo.append(statement) }
    }

    /// Unbinds every parameter of the statements that borrowed text.
    private mutating func clearLentBindings() {
        for statement in lentTo { sqlite3_clear_bindings(statement.handle) }
        lentTo = []
    }
}
