import CStrataPostgres
import Foundation
import StrataCore

/// The rows of one statement, in binary format, freed with the result. Read it on the thread that
/// ran the statement; the accessors decode the column's type (``PostgresType``) as it comes.
final class PostgresResult {
    private let handle: OpaquePointer
    /// How many rows came back.
    let rowCount: Int
    /// How many columns each row has.
    let columnCount: Int

    init(_ handle: OpaquePointer) {
        self.handle = handle
        rowCount = Int(PQntuples(handle))
        columnCount = Int(PQnfields(handle))
    }

    deinit { PQclear(handle) }

    /// How many rows an INSERT, UPDATE or DELETE touched (0 when the command says none).
    var affectedRows: Int { Int(String(cString: PQcmdTuples(handle))) ?? 0 }

    /// The name of column `column`.
    func columnName(_ column: Int) -> String { String(cString: PQfname(handle, Int32(column))) }

    /// The type OID of column `column`.
    func columnType(_ column: Int) -> UInt32 { UInt32(PQftype(handle, Int32(column))) }

    func isNull(_ row: Int, _ column: Int) -> Bool {
        assert(row < rowCount && column < columnCount, "cell (\(row), \(column)) out of range")
        return PQgetisnull(handle, Int32(row), Int32(column)) == 1
    }

    /// The raw bytes of a cell (empty for NULL).
    func withBytes<T>(_ row: Int, _ column: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        assert(row < rowCount && column < columnCount, "cell (\(row), \(column)) out of range")
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        guard let start = PQgetvalue(handle, Int32(row), Int32(column)), length > 0 else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return try body(UnsafeRawBufferPointer(start: start, count: length))
    }

    /// An integer cell (int2, int4, int8, oid, or bool as 0 and 1).
    func int64(_ row: Int, _ column: Int) -> Int64 {
        withBytes(row, column) { bytes in
            switch bytes.count {
            case 8: return Int64(bigEndian: bytes.loadUnaligned(as: Int64.self))
            case 4:
                return columnType(column) == PostgresType.oid
                    ? Int64(UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self)))
                    : Int64(Int32(bigEndian: bytes.loadUnaligned(as: Int32.self)))
            case 2: return Int64(Int16(bigEndian: bytes.loadUnaligned(as: Int16.self)))
            case 1: return Int64(bytes[0])
            default: return 0
            }
        }
    }

    /// A float4 or float8 cell (an integer cell converts).
    func double(_ row: Int, _ column: Int) -> Double {
        switch columnType(column) {
        case PostgresType.float8:
            return withBytes(row, column) {
                $0.count == 8 ? Double(bitPattern: UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self))) : 0
            }
        case PostgresType.float4: return Double(float(row, column))
        case PostgresType.numeric: return Double(numericText(row, column)) ?? .nan
        default: return Double(int64(row, column))
        }
    }

    /// A float4 cell.
    func float(_ row: Int, _ column: Int) -> Float {
        guard columnType(column) == PostgresType.float4 else { return Float(double(row, column)) }
        return withBytes(row, column) {
            $0.count == 4 ? Float(bitPattern: UInt32(bigEndian: $0.loadUnaligned(as: UInt32.self))) : 0
        }
    }

    func bool(_ row: Int, _ column: Int) -> Bool {
        withBytes(row, column) { $0.first.map { $0 != 0 } ?? false }
    }

    /// A text cell (text, varchar, name, bpchar, json), or a numeric cell's decimal text.
    func string(_ row: Int, _ column: Int) -> String {
        if columnType(column) == PostgresType.numeric { return numericText(row, column) }
        return withBytes(row, column) { String(decoding: $0, as: UTF8.self) }
    }

    /// A bytea cell.
    func data(_ row: Int, _ column: Int) -> Data {
        withBytes(row, column) { Data($0) }
    }

    /// A bytea cell as bytes.
    func bytes(_ row: Int, _ column: Int) -> [UInt8] {
        withBytes(row, column) { Array($0) }
    }

    func uuid(_ row: Int, _ column: Int) -> UUID? {
        withBytes(row, column) { b in
            guard b.count == 16 else { return nil }
            return UUID(
                uuid: (
                    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
                ))
        }
    }

    /// A timestamptz or timestamp cell (microseconds since 2000-01-01 UTC).
    func date(_ row: Int, _ column: Int) -> Date {
        let micros = withBytes(row, column) { $0.count == 8 ? Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) : 0 }
        return Date(timeIntervalSince1970: PostgresType.postgresEpoch + Double(micros) / 1_000_000)
    }

    /// A numeric cell, as decimal text (`NaN` for NaN): PostgreSQL's binary numeric is base-10000
    /// digits with a weight, a sign and a display scale.
    func numericText(_ row: Int, _ column: Int) -> String {
        withBytes(row, column) { b -> String in
            guard b.count >= 8 else { return "0" }
            func word(_ i: Int) -> Int { Int(Int16(bigEndian: b.loadUnaligned(fromByteOffset: i * 2, as: Int16.self))) }
            let count = word(0)
            let weight = word(1)
            let sign = UInt16(bitPattern: Int16(word(2)))
            let scale = word(3)
            if sign == 0xC000 { return "NaN" }
            if sign == 0xD000 { return "Infinity" }
            if sign == 0xF000 { return "-Infinity" }
            guard b.count >= 8 + count * 2 else { return "0" }
            let digits = (0..<count).map { word(4 + $0) }
            var integer = ""
            if weight < 0 {
                integer = "0"
            } else {
                for i in 0...weight {
                    let digit = i < digits.count ? digits[i] : 0
                    integer +=
                        i == 0 ? String(digit) : String(repeating: "0", count: 4 - String(digit).count) + String(digit)
                }
            }
            var fraction = ""
            if scale > 0 {
                var i = weight + 1
                while fraction.count < scale {
                    let digit = i >= 0 && i < digits.count ? digits[i] : 0
                    fraction += String(repeating: "0", count: 4 - String(digit).count) + String(digit)
                    i += 1
                }
                fraction = String(fraction.prefix(scale))
            }
            let text = integer + (fraction.isEmpty ? "" : "." + fraction)
            return sign == 0x4000 ? "-" + text : text
        }
    }

    /// A numeric cell as a Decimal.
    func decimal(_ row: Int, _ column: Int) -> Decimal {
        Decimal(string: numericText(row, column), locale: Locale(identifier: "en_US_POSIX")) ?? .nan
    }
}
