/// Finds a property's position by its name, for the key-based access that runs on every
/// `object["name"]` and `set(_:for:)`.
///
/// A `[String: Int]` hashes the key with SipHash (about 300 instructions for a short name); this
/// table hashes its UTF-8 bytes with FNV-1a into a small open-addressing table and confirms the
/// hit with one string comparison (equal short strings compare as two words). Names of a valid
/// model are ASCII (``ModelNaming``). Swift compares strings by canonical equivalence, under which
/// a non-ASCII key can equal an ASCII name (the Kelvin sign `K` equals `K`), so a key with a
/// non-ASCII byte, and every key of an entity with a non-ASCII name, is looked up in an ordinary
/// dictionary instead: the answers are exactly a dictionary's.
///
/// The match by representation (a bit-cast of the `String` value) is the one unsafe part. It
/// stays because it pays: without it, 100,000 lookups by ID that read one attribute by name
/// cost 6.1% more instructions, and inserting and saving objects by name 4.9% more
/// (Benchmarks/README.md, "Engine complexity that pays"). Debug builds check on every table
/// that each name is found by its own string and by a copy with other storage, and that every
/// match by representation names the key's own property.
struct PropertyNameTable: Sendable {
    /// The names' 16-byte `String` representations and their indexes, by a hash of the
    /// representation (a power-of-two count, at most half full; index `-1`: empty). Callers pass
    /// the same names again and again, usually the very same strings (literals, stored names):
    /// a key whose representation equals a name's *is* that name (the same small-string bytes,
    /// or the same storage), so such a key is found with two word comparisons and no pass over
    /// its characters. Any other key goes the exact way below.
    private let representations: [(low: UInt64, high: UInt64, index: Int32)]
    /// The names, by property index.
    private let names: [String]
    /// Property indexes by hash slot (`-1`: empty); a power-of-two count, at most half full.
    private let slots: [Int32]
    /// The first index of each name: the answer for keys the table does not decide.
    private let dictionary: [String: Int]
    /// Whether every name is ASCII (otherwise only `dictionary` answers).
    private let usesSlots: Bool

    /// A table of `names`; a name given twice maps to its first position.
    init(_ names: [String]) {
        var dictionary: [String: Int] = [:]
        for (i, name) in names.enumerated() where dictionary[name] == nil { dictionary[name] = i }
        var capacity = 8
        while capacity < 2 * names.count { capacity *= 2 }
        var slots = [Int32](repeating: -1, count: capacity)
        var usesSlots = true
        for (i, name) in names.enumerated() where dictionary[name] == i {
            guard let hash = Self.asciiHash(name) else {
                usesSlots = false
                break
            }
            var slot = Int(hash) & (capacity - 1)
            while slots[slot] >= 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot] = Int32(i)
        }
        var representations = [(low: UInt64, high: UInt64, index: Int32)](repeating: (0, 0, -1), count: capacity)
        for (i, name) in names.enumerated() where dictionary[name] == i {
            let (low, high) = Self.representation(of: name)
            var slot = Self.mix(low, high) & (capacity - 1)
            while representations[slot].index >= 0 { slot = (slot + 1) & (capacity - 1) }
            representations[slot] = (low, high, Int32(i))
        }
        self.representations = representations
        self.names = names
        self.slots = slots
        self.dictionary = dictionary
        self.usesSlots = usesSlots
        assert(checkInvariants())
    }

    /// Whether every name is found at its first position by its own string and by an equal
    /// string with other storage (the exact path), and both tables are at most half full.
    /// Debug builds run it on every new table.
    func checkInvariants() -> Bool {
        guard representations.count == slots.count, representations.count >= 2 * names.count else { return false }
        for (i, name) in names.enumerated() {
            let first = dictionary[name] ?? -1
            let copy = String(decoding: Array(name.utf8), as: UTF8.self)
            if first > i || index(of: name) != first || index(of: copy) != first { return false }
        }
        return true
    }

    /// The position of `name`, or `nil`. O(1): two word comparisons for a key that is one of
    /// the names' own strings, else one pass over the key's bytes and one comparison.
    func index(of name: String) -> Int? {
        let (low, high) = Self.representation(of: name)
        let mask = representations.count - 1
        var slot = Self.mix(low, high) & mask
        while true {
            let entry = representations[slot]
            if entry.index < 0 { break }
            if entry.low == low && entry.high == high {
                assert(names[Int(entry.index)] == name, "'\(name)' matched the representation of another name")
                return Int(entry.index)
            }
            slot = (slot + 1) & mask
        }
        return exactIndex(of: name)
    }

    /// The 16 bytes of a `String` value: for a short string its UTF-8 bytes and length, for a
    /// longer one a reference to its storage. Equal representations are equal strings; equal
    /// strings may have different representations (then ``exactIndex(of:)`` answers).
    @inline(__always)
    private static func representation(of name: String) -> (UInt64, UInt64) {
        unsafeBitCast(name, to: (UInt64, UInt64).self)
    }

    @inline(__always)
    private static func mix(_ low: UInt64, _ high: UInt64) -> Int {
        var x = low ^ (high &* 0x9E37_79B9_7F4A_7C15)
        x = (x ^ (x >> 29)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: x ^ (x >> 32))
    }

    /// The position of `name` by its characters: FNV-1a over its bytes, one string comparison.
    private func exactIndex(of name: String) -> Int? {
        guard usesSlots, let hash = Self.asciiHash(name) else { return dictionary[name] }
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while true {
            let index = Int(slots[slot])
            if index < 0 { return nil }
            if names[index] == name { return index }
            slot = (slot + 1) & mask
        }
    }

    /// FNV-1a over the UTF-8 bytes of `name`, or `nil` when one is not ASCII.
    @inline(__always)
    private static func asciiHash(_ name: String) -> UInt32? {
        var name = name
        return name.withUTF8 { bytes -> UInt32? in
            var hash: UInt32 = 2_166_136_261
            var seen: UInt8 = 0
            for byte in bytes {
                hash = (hash ^ UInt32(byte)) &* 16_777_619
                seen |= byte
            }
            return seen < 0x80 ? hash : nil
        }
    }
}
