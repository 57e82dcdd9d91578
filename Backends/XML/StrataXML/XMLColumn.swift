import Foundation
import StrataCore

/// One attribute's values for every object of an entity, in the table's row order: one
/// contiguous array per column instead of one array of ``Value``s per object.
///
/// Integers (16, 32 and 64 bits) and doubles are kept unboxed in one array each; strings as their
/// UTF-8 bytes, one after the other in one byte arena, with the end offset of each row's string
/// (a ``String`` is made only when a fetch asks for the value); every other type as ``Value``s.
/// Nulls of the unboxed kinds are recorded in an ``XMLNullMask`` (their slot holds 0 or an empty
/// string). So loading 100,000 objects with three strings each allocates a handful of arrays
/// instead of 100,000 value arrays and 300,000 strings.
///
/// A value type with copy-on-write arrays; every append is O(1) amortized (a string's is O(its
/// length)), reads are O(1).
struct XMLColumn: Sendable {
    /// How the values are kept.
    enum Storage: Sendable {
        /// `integers`, for integer16/32/64.
        case integers
        /// `doubles`, for double.
        case doubles
        /// `bytes` and `ends`, for string.
        case strings
        /// `values`, for every other type.
        case values
    }

    /// How this column keeps its values (fixed by the attribute type).
    let storage: Storage
    /// The integers (`.integers`), 0 where null.
    private(set) var integers: [Int64] = []
    /// The doubles (`.doubles`), 0 where null.
    private(set) var doubles: [Double] = []
    /// The UTF-8 bytes of every string, row after row (`.strings`); always valid UTF-8.
    private(set) var bytes: [UInt8] = []
    /// The end offset in `bytes` of each row's string (`.strings`); a row starts where the
    /// previous one ends.
    private(set) var ends: [Int] = []
    /// The values (`.values`), ``Value/null`` where null.
    private(set) var values: [Value] = []
    /// The null rows of `.integers`, `.doubles` and `.strings`.
    private(set) var nulls = XMLNullMask()

    /// An empty column for an attribute of `type`.
    init(type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64: storage = .integers
        case .double: storage = .doubles
        case .string: storage = .strings
        default: storage = .values
        }
    }

    /// The number of rows.
    var count: Int {
        switch storage {
        case .integers: return integers.count
        case .doubles: return doubles.count
        case .strings: return ends.count
        case .values: return values.count
        }
    }

    /// Reserves room for `rows` rows in all.
    mutating func reserveCapacity(rows: Int) {
        switch storage {
        case .integers: integers.reserveCapacity(rows)
        case .doubles: doubles.reserveCapacity(rows)
        case .strings: ends.reserveCapacity(rows)
        case .values: values.reserveCapacity(rows)
        }
    }

    /// Reserves room for `bytes` bytes of strings in all (a `.strings` column).
    mutating func reserveCapacity(bytes byteCount: Int) {
        bytes.reserveCapacity(byteCount)
    }

    // MARK: Reading

    /// Whether `row` holds no value.
    @inline(__always)
    func isNull(_ row: Int) -> Bool {
        storage == .values ? values[row].isNull : nulls.contains(row)
    }

    /// The value of `row`, made on demand (a string is copied out of the arena). O(1), plus the
    /// string's length.
    func value(at row: Int) -> Value {
        switch storage {
        case .integers: return nulls.contains(row) ? .null : .integer(integers[row])
        case .doubles: return nulls.contains(row) ? .null : .double(doubles[row])
        case .strings: return nulls.contains(row) ? .null : .string(withUTF8(at: row) { String(decoding: $0, as: UTF8.self) })
        case .values: return values[row]
        }
    }

    /// Calls `body` with the UTF-8 bytes of `row`'s string (a `.strings` column; empty where null).
    @inline(__always)
    func withUTF8<R>(at row: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let start = row == 0 ? 0 : ends[row - 1]
        return try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[start..<ends[row]])) }
    }

    // MARK: Appending

    /// Appends a row holding no value.
    mutating func appendNull() {
        switch storage {
        case .integers:
            nulls.insert(integers.count)
            integers.append(0)
        case .doubles:
            nulls.insert(doubles.count)
            doubles.append(0)
        case .strings:
            nulls.insert(ends.count)
            ends.append(bytes.count)
        case .values:
            values.append(.null)
        }
    }

    /// Appends an integer (an `.integers` column).
    @inline(__always)
    mutating func append(integer: Int64) { integers.append(integer) }

    /// Appends a double (a `.doubles` column).
    @inline(__always)
    mutating func append(double: Double) { doubles.append(double) }

    /// Appends a string given as UTF-8 bytes (a `.strings` column). The bytes must be valid UTF-8
    /// (``XMLText/isValidUTF8(_:)``), so that reading the value back gives exactly these bytes.
    @inline(__always)
    mutating func append(utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: utf8)
        ends.append(bytes.count)
    }

    /// Appends a value of the column's attribute type (or ``Value/null``), as a save's checked
    /// snapshot holds it.
    mutating func append(_ value: Value) {
        switch (storage, value) {
        case (_, .null): appendNull()
        case (.integers, .integer(let v)): integers.append(v)
        case (.doubles, .double(let v)): doubles.append(v)
        case (.strings, .string(var s)): s.withUTF8 { append(utf8: $0) }
        case (.values, _): values.append(value)
        default: preconditionFailure("a \(value.typeName) value in a column of another type")
        }
    }

    /// Appends attribute `a` of each of `rows` (a save's checked rows: values of the column's
    /// type, or ``Value/null``), one tight loop per column. O(rows plus bytes).
    mutating func append(attribute a: Int, of rows: UnsafeBufferPointer<(key: Int64, row: StoredRow)>) {
        let first = count
        switch storage {
        case .integers:
            integers.reserveCapacity(first + rows.count)
            for i in rows.indices {
                switch rows[i].row.attributes[a] {
                case .integer(let v): integers.append(v)
                case .null:
                    nulls.insert(first + i)
                    integers.append(0)
                default: preconditionFailure("a \(rows[i].row.attributes[a].typeName) value in an integer column")
                }
            }
        case .doubles:
            doubles.reserveCapacity(first + rows.count)
            for i in rows.indices {
                switch rows[i].row.attributes[a] {
                case .double(let v): doubles.append(v)
                case .null:
                    nulls.insert(first + i)
                    doubles.append(0)
                default: preconditionFailure("a \(rows[i].row.attributes[a].typeName) value in a double column")
                }
            }
        case .strings:
            var byteCount = bytes.count
            for i in rows.indices {
                if case .string(let s) = rows[i].row.attributes[a] { byteCount += s.utf8.count }
            }
            bytes.reserveCapacity(byteCount)
            ends.reserveCapacity(first + rows.count)
            for i in rows.indices {
                switch rows[i].row.attributes[a] {
                case .string(var s):
                    s.withUTF8 { bytes.append(contentsOf: $0) }
                    ends.append(bytes.count)
                case .null:
                    nulls.insert(first + i)
                    ends.append(bytes.count)
                default: preconditionFailure("a \(rows[i].row.attributes[a].typeName) value in a string column")
                }
            }
        case .values:
            values.reserveCapacity(first + rows.count)
            for i in rows.indices { values.append(rows[i].row.attributes[a]) }
        }
    }

    /// Appends the rows `range` of `other`, a column of the same storage: bulk copies, O(rows
    /// plus bytes).
    mutating func append(rowsOf other: XMLColumn, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        let first = count
        switch storage {
        case .integers: integers.append(contentsOf: other.integers[range])
        case .doubles: doubles.append(contentsOf: other.doubles[range])
        case .values: values.append(contentsOf: other.values[range])
        case .strings:
            let start = range.lowerBound == 0 ? 0 : other.ends[range.lowerBound - 1]
            let shift = bytes.count - start
            bytes.append(contentsOf: other.bytes[start..<other.ends[range.upperBound - 1]])
            ends.reserveCapacity(ends.count + range.count)
            for row in range { ends.append(other.ends[row] + shift) }
        }
        if !other.nulls.isEmpty {
            for row in range where other.nulls.contains(row) { nulls.insert(first + row - range.lowerBound) }
        }
    }

    /// Removes every row from `count` on.
    mutating func truncate(to count: Int) {
        guard count < self.count else { return }
        switch storage {
        case .integers: integers.removeLast(integers.count - count)
        case .doubles: doubles.removeLast(doubles.count - count)
        case .values: values.removeLast(values.count - count)
        case .strings:
            ends.removeLast(ends.count - count)
            bytes.removeLast(bytes.count - (ends.last ?? 0))
        }
        nulls.truncate(to: count)
    }

    /// The column with its rows in the order `order` (a permutation of the row indexes).
    func permuted(_ order: [Int]) -> XMLColumn {
        var result = XMLColumn(storage: storage)
        result.reserveCapacity(rows: order.count)
        if storage == .strings { result.reserveCapacity(bytes: bytes.count) }
        for row in order { result.append(rowsOf: self, row..<(row + 1)) }
        return result
    }

    /// An empty column keeping its values as `storage` does.
    init(storage: Storage) { self.storage = storage }
}
