import Foundation
import StrataCore

/// One attribute's values for every object of an entity, in the table's row order: one
/// contiguous array per column instead of one array of ``Value``s per object.
///
/// Integers (16, 32 and 64 bits) and doubles are kept unboxed in one ``XMLBuffer`` each; strings
/// as their UTF-8 bytes, one after the other in one byte arena, with the end offset of each row's
/// string (a ``String`` is made only when a fetch asks for the value); every other type as
/// ``Value``s.
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
    fileprivate(set) var integers = XMLBuffer<Int64>()
    /// The doubles (`.doubles`), 0 where null.
    fileprivate(set) var doubles = XMLBuffer<Double>()
    /// The UTF-8 bytes of every string, row after row (`.strings`); always valid UTF-8.
    fileprivate(set) var bytes = XMLBuffer<UInt8>()
    /// The end offset in `bytes` of each row's string (`.strings`); a row starts where the
    /// previous one ends.
    fileprivate(set) var ends = XMLBuffer<Int>()
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

    /// The bytes of room one row takes in a region laid out by ``moveRows(to:at:rows:)`` (0 for
    /// `.values`, which keeps an array of its own).
    var bytesPerRow: Int {
        switch storage {
        case .integers: return MemoryLayout<Int64>.stride
        case .doubles: return MemoryLayout<Double>.stride
        case .strings: return MemoryLayout<Int>.stride
        case .values: return 0
        }
    }

    /// Moves the rows (the integers, doubles or string end offsets) into room for `rows` rows at
    /// byte `offset` of `region` (8-byte aligned, ``bytesPerRow`` × `rows` bytes that no other
    /// buffer uses): the loader lays out all the columns of an entity in one region. Does nothing
    /// for `.values`.
    mutating func moveRows(to region: XMLMemoryRegion, at offset: Int, rows: Int) {
        let start = region.base + offset
        switch storage {
        case .integers:
            integers.move(to: region, base: start.bindMemory(to: Int64.self, capacity: rows), capacity: rows)
        case .doubles: doubles.move(to: region, base: start.bindMemory(to: Double.self, capacity: rows), capacity: rows)
        case .strings: ends.move(to: region, base: start.bindMemory(to: Int.self, capacity: rows), capacity: rows)
        case .values: break
        }
    }

    /// Moves the string bytes (a `.strings` column) into room for `byteCount` bytes at byte
    /// `offset` of `region`, which no other buffer uses there.
    mutating func moveBytes(to region: XMLMemoryRegion, at offset: Int, byteCount: Int) {
        bytes.move(
            to: region, base: (region.base + offset).bindMemory(to: UInt8.self, capacity: byteCount),
            capacity: byteCount)
    }

    /// The number of string bytes (a `.strings` column).
    var byteCount: Int { bytes.count }

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
        case .strings:
            return nulls.contains(row) ? .null : .string(withUTF8(at: row) { String(decoding: $0, as: UTF8.self) })
        case .values: return values[row]
        }
    }

    /// Calls `body` with the UTF-8 bytes of `row`'s string (a `.strings` column; empty where null).
    @inline(__always)
    func withUTF8<R>(at row: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let start = row == 0 ? 0 : ends[row - 1]
        let end = ends[row]
        return try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
    }

    // MARK: Appending

    /// Appends a row holding no value. `assumingUnique`: without checking that the column's
    /// buffers are its alone (for the loader, which owns the columns it fills; see
    /// ``XMLBuffer/appendAssumingUnique(_:)``).
    mutating func appendNull(assumingUnique: Bool = false) {
        switch storage {
        case .integers:
            nulls.insert(integers.count)
            if assumingUnique { integers.appendAssumingUnique(0) } else { integers.append(0) }
        case .doubles:
            nulls.insert(doubles.count)
            if assumingUnique { doubles.appendAssumingUnique(0) } else { doubles.append(0) }
        case .strings:
            nulls.insert(ends.count)
            if assumingUnique { ends.appendAssumingUnique(bytes.count) } else { ends.append(bytes.count) }
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

    /// The integers' buffer, for the loader's appends (``XMLBuffer/appendAssumingUnique(_:)``).
    @inline(__always)
    var integerBuffer: XMLBuffer<Int64> {
        _read { yield integers }
        _modify { yield &integers }
    }

    /// The doubles' buffer, for the loader's appends (``XMLBuffer/appendAssumingUnique(_:)``).
    @inline(__always)
    var doubleBuffer: XMLBuffer<Double> {
        _read { yield doubles }
        _modify { yield &doubles }
    }

    /// Appends a string given as UTF-8 bytes (a `.strings` column). The bytes must be valid UTF-8
    /// (``XMLText/isValidUTF8(_:)``), so that reading the value back gives exactly these bytes.
    @inline(__always)
    mutating func append(utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: utf8)
        ends.append(bytes.count)
    }

    /// Appends `text` (a `.strings` column) if it is plain ASCII (``XMLText/isPlainASCII(_:)``),
    /// checking and copying it in one pass, and returns whether it did. Without checking that the
    /// column's buffers are its alone (see ``XMLBuffer/appendAssumingUnique(_:)``).
    @inline(__always)
    mutating func appendAssumingUnique(ifPlainASCII text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.appendAssumingUnique(count: text.count, { XMLText.copyIfPlainASCII(text, to: $0) }) else {
            return false
        }
        ends.appendAssumingUnique(bytes.count)
        return true
    }

    /// The number of rows of a `.strings` column (``count`` without the switch).
    @inline(__always)
    var stringCount: Int { ends.count }

    /// Appends a string given as UTF-8 bytes (a `.strings` column) without checking that the
    /// column's buffers are its alone: for the loader, which owns the columns it fills (see
    /// ``XMLBuffer/appendAssumingUnique(_:)``).
    @inline(__always)
    mutating func appendAssumingUnique(utf8: UnsafeBufferPointer<UInt8>) {
        if let start = utf8.baseAddress { bytes.appendAssumingUnique(contentsOf: start, count: utf8.count) }
        ends.appendAssumingUnique(bytes.count)
    }

    /// Appends a value of the column's attribute type (or ``Value/null``), as a save's checked
    /// snapshot holds it.
    /// `assumingUnique`: see ``appendNull(assumingUnique:)``.
    mutating func append(_ value: Value, assumingUnique: Bool = false) {
        switch (storage, value) {
        case (_, .null): appendNull(assumingUnique: assumingUnique)
        case (.integers, .integer(let v)):
            if assumingUnique { integers.appendAssumingUnique(v) } else { integers.append(v) }
        case (.doubles, .double(let v)):
            if assumingUnique { doubles.appendAssumingUnique(v) } else { doubles.append(v) }
        case (.strings, .string(var s)):
            s.withUTF8 { if assumingUnique { appendAssumingUnique(utf8: $0) } else { append(utf8: $0) } }
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
        case .integers: integers.append(contentsOf: other.integers, range)
        case .doubles: doubles.append(contentsOf: other.doubles, range)
        case .values: values.append(contentsOf: other.values[range])
        case .strings:
            let start = range.lowerBound == 0 ? 0 : other.ends[range.lowerBound - 1]
            let shift = bytes.count - start
            bytes.append(contentsOf: other.bytes, start..<other.ends[range.upperBound - 1])
            ends.reserveCapacity(ends.count + range.count)
            for row in range { ends.append(other.ends[row] + shift) }
        }
        if !other.nulls.isEmpty {
            for row in range where other.nulls.contains(row) { nulls.insert(first + row - range.lowerBound) }
        }
    }

    /// Removes every row from `count` on, without checking that the column's buffers are its
    /// alone (for the loader; see ``XMLBuffer/appendAssumingUnique(_:)``).
    mutating func truncateAssumingUnique(to count: Int) {
        guard count < self.count else { return }
        switch storage {
        case .integers: integers.truncateAssumingUnique(to: count)
        case .doubles: doubles.truncateAssumingUnique(to: count)
        case .values: values.removeLast(values.count - count)
        case .strings:
            ends.truncateAssumingUnique(to: count)
            bytes.truncateAssumingUnique(to: ends.last ?? 0)
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
