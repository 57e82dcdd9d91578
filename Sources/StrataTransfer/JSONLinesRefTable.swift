import Foundation
import StrataCore

/// The refs of an import, each numbered from 0 in the order first seen (defined or named by a
/// relationship), kept compactly for files of millions of lines: the refs' bytes one after
/// another, the end of each, and an open-addressing table of numbers. About 1.5 times the refs'
/// bytes plus 12 bytes per ref (16 MB for a million refs of 10 bytes), instead of a dictionary's
/// strings.
struct JSONLinesRefTable {
    /// Every ref's bytes, in number order.
    private var bytes: [UInt8] = []
    /// The end of each ref in `bytes` (its start is the end of the one before).
    private var ends: [UInt32] = []
    /// Open addressing, linear probing: a ref's number plus 1, or 0 for an empty slot.
    private var slots: [UInt32] = Array(repeating: 0, count: 1024)

    /// How many refs the table holds.
    var count: Int { ends.count }

    /// The number of `ref`, adding it when it is new.
    ///
    /// - Throws: ``StrataError/Code/unsupported`` past 4 GiB of refs or 2^31 refs.
    mutating func number(of ref: String) throws -> (number: Int, isNew: Bool) {
        var ref = ref
        return try ref.withUTF8 { text in
            if let found = find(text) { return (found, false) }
            guard bytes.count + text.count < Int(UInt32.max), ends.count < Int(Int32.max) else {
                throw StrataError(
                    .unsupported,
                    "the input has more refs than an import can hold (2^31 refs or 4 GiB of refs); split it into several files"
                )
            }
            if (ends.count + 1) * 2 > slots.count { grow() }
            let number = ends.count
            bytes.append(contentsOf: text)
            ends.append(UInt32(bytes.count))
            insert(number, hash: Self.hash(text))
            return (number, true)
        }
    }

    /// The number of `ref`, or `nil` when the table does not hold it.
    func lookup(_ ref: String) -> Int? {
        var ref = ref
        return ref.withUTF8 { find($0) }
    }

    /// The ref numbered `number`.
    func ref(_ number: Int) -> String {
        let start = number == 0 ? 0 : Int(ends[number - 1])
        return String(decoding: bytes[start..<Int(ends[number])], as: UTF8.self)
    }

    private func find(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        let mask = slots.count - 1
        var slot = Self.hash(text) & mask
        while slots[slot] != 0 {
            let number = Int(slots[slot]) - 1
            if equals(number, text) { return number }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private func equals(_ number: Int, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = number == 0 ? 0 : Int(ends[number - 1])
        let end = Int(ends[number])
        guard end - start == text.count else { return false }
        return bytes.withUnsafeBufferPointer { all in
            text.count == 0 || memcmp(all.baseAddress! + start, text.baseAddress!, text.count) == 0
        }
    }

    private mutating func insert(_ number: Int, hash: Int) {
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = UInt32(number + 1)
    }

    private mutating func grow() {
        slots = Array(repeating: 0, count: slots.count * 2)
        var start = 0
        for number in ends.indices {
            let end = Int(ends[number])
            let hash = bytes.withUnsafeBufferPointer { Self.hash(UnsafeBufferPointer(rebasing: $0[start..<end])) }
            insert(number, hash: hash)
            start = end
        }
        _checkInvariants()
    }

    /// In debug builds: the table is a power of two, at most half full, and finds every ref
    /// under its own number.
    func _checkInvariants() {
        #if DEBUG
            precondition(slots.count.nonzeroBitCount == 1 && ends.count * 2 <= slots.count)
            precondition(slots.reduce(0) { $0 + ($1 == 0 ? 0 : 1) } == ends.count)
            for number in ends.indices {
                precondition(lookup(ref(number)) == number, "ref \(number) is not found under its number")
            }
        #endif
    }

    /// A seeded hash (SipHash, through `Hasher`), so no input can make every ref collide.
    private static func hash(_ text: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(text))
        return hasher.finalize()
    }
}
