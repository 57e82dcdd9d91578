import StrataCore

/// What the loader has read of one entity's objects, as parallel columns in file order: what
/// ``EntityTable`` holds once the load is finished.
struct XMLEntityRows {
    /// The keys read, in file order.
    var keys: [Int64] = []
    /// The versions read, parallel to ``keys``.
    var versions = XMLBuffer<Int64>()
    /// The attribute values read, one column per attribute, parallel to ``keys`` (a column is
    /// one row longer while an object is being read).
    var columns: [XMLColumn]
    /// The relationship targets read, one column per relationship, parallel to ``keys``.
    var relationships: [XMLRelationshipColumn]

    /// No rows, with the columns of `entity`.
    init(entity: Entity) {
        let empty = EntityColumns(entity: entity)
        columns = empty.columns
        relationships = empty.relationships
    }

    /// The number of objects read.
    var count: Int { keys.count }

    /// The number of objects room was reserved for (0 until ``reserve(rows:fileSize:)``).
    private(set) var plannedRows = 0

    /// Reserves room for `rows` objects in every column, so that reading them copies no column
    /// to a larger buffer. Room never used is address space only: untouched pages are never
    /// resident.
    ///
    /// The versions and the integers, doubles and string end offsets of all the columns share
    /// one ``XMLMemoryRegion`` (for 100,000 objects of the benchmark's entity, 8 MiB in huge
    /// pages instead of ten arrays faulted in page by page).
    /// `fileSize` bounds the string bytes reserved later (``reserveStringBytes()``).
    mutating func reserve(rows: Int, fileSize: Int) {
        plannedRows = rows
        plannedFileSize = fileSize
        keys.reserveCapacity(rows)
        let total = columns.reduce(0) { $0 + $1.bytesPerRow * rows } + rows * MemoryLayout<Int64>.stride
        let region = XMLMemoryRegion(byteCount: total)
        versions.move(to: region, base: region.base.bindMemory(to: Int64.self, capacity: rows), capacity: rows)
        var offset = rows * MemoryLayout<Int64>.stride
        for a in columns.indices where columns[a].bytesPerRow > 0 {
            columns[a].moveRows(to: region, at: offset, rows: rows)
            offset += columns[a].bytesPerRow * rows
        }
        for a in columns.indices where columns[a].storage == .values { columns[a].reserveCapacity(rows: rows) }
        for r in relationships.indices { relationships[r].reserveCapacity(rows: rows) }
    }

    /// The size of the file being read (the string bytes of a column cannot exceed it).
    private var plannedFileSize = 0

    /// Once the first objects are read, reserves room in each string column for the strings of
    /// the planned objects at the average length read so far, plus a quarter (and no more than
    /// the file's size), all in one ``XMLMemoryRegion``.
    mutating func reserveStringBytes() {
        guard plannedRows > count, count > 0 else { return }
        var sizes: [(column: Int, bytes: Int)] = []
        for a in columns.indices where columns[a].storage == .strings {
            let average = (columns[a].byteCount + count - 1) / count
            let estimate =
                average.multipliedReportingOverflow(by: plannedRows).overflow ? Int.max : average * plannedRows
            let bytes = estimate >= plannedFileSize ? plannedFileSize : min(estimate / 4 * 5, plannedFileSize)
            sizes.append((a, (bytes + 63) / 64 * 64))
        }
        let total = sizes.reduce(0) { $0 + $1.bytes }
        guard total > 0 else { return }
        let region = XMLMemoryRegion(byteCount: total)
        var offset = 0
        for (a, bytes) in sizes where bytes >= columns[a].byteCount {
            columns[a].moveBytes(to: region, at: offset, byteCount: bytes)
            offset += bytes
        }
    }
}

/// The objects of one entity as the loader reads them, and what it learned about their names.
///
/// libxml2 interns every element and attribute name in its parser's dictionary, so the same name
/// arrives as the same pointer in every start tag. The reader remembers, per property, the pointer
/// its name came with last time and compares pointers first: in a file listing the properties in
/// the canonical order, a start tag costs no string comparison at all. A pointer that does not
/// match falls back to comparing the bytes, so a hand-edited file in any order reads the same.
/// Only pointers the parser's dictionary owns (`xmlDictOwns`) are remembered, so a libxml2 that
/// handed out names from a scratch buffer would only make the loader compare bytes. The
/// remembered pointers belong to one parse and are never dereferenced after it.
///
/// Everything the per-object path reads or changes is held through pointers the reader owns, so
/// that path does no reference counting and no dynamic exclusivity checks (a class's stored
/// `var`s cost one of each per access).
final class XMLEntityReader {
    /// The entity's layout.
    let layout: XMLEntityLayout
    /// The entity, for messages.
    var entity: Entity { layout.entity }
    /// The value reader of each slot, indexed like ``XMLEntityLayout/slots``.
    let readers: UnsafeMutableBufferPointer<XMLSlotReader>
    /// The interned name pointer last seen for each slot (`nil` until seen), then those of `_pk`
    /// (at ``keySlot``) and `_version` (at ``versionSlot``).
    let internedNames: UnsafeMutablePointer<UnsafePointer<UInt8>?>
    /// For each attribute, whether it is required.
    let isRequired: UnsafeMutableBufferPointer<Bool>
    /// For each relationship, whether it is an unordered to-many (its keys are sorted).
    let isUnorderedToMany: UnsafeMutableBufferPointer<Bool>
    /// The objects read so far.
    let rows: UnsafeMutablePointer<XMLEntityRows>

    /// The interned names of `_pk`, `_version` and every slot in order, once an object listed
    /// exactly those (``learnCanonicalOrder(_:)``).
    let canonicalNames: UnsafeMutablePointer<UnsafePointer<UInt8>?>
    /// The number of ``canonicalNames`` (`2 +` the slot count) once learned, 0 before.
    var canonicalCount: Int { canonicalCountStorage.pointee }
    /// Where ``canonicalCount`` is kept (through a pointer: no exclusivity check per object).
    private let canonicalCountStorage: UnsafeMutablePointer<Int>

    /// The index of `_pk`'s interned pointer in ``internedNames``.
    var keySlot: Int { readers.count }
    /// The index of `_version`'s interned pointer in ``internedNames``.
    var versionSlot: Int { readers.count + 1 }

    /// A reader for the entity laid out as `layout`, with nothing read yet.
    init(layout: XMLEntityLayout) {
        self.layout = layout
        readers = .allocate(capacity: layout.slots.count)
        _ = readers.initialize(from: layout.slots.map { XMLSlotReader($0, layout: layout) })
        internedNames = .allocate(capacity: layout.slots.count + 2)
        internedNames.initialize(repeating: nil, count: layout.slots.count + 2)
        canonicalNames = .allocate(capacity: layout.slots.count + 2)
        canonicalNames.initialize(repeating: nil, count: layout.slots.count + 2)
        canonicalCountStorage = .allocate(capacity: 1)
        canonicalCountStorage.initialize(to: 0)
        isRequired = .allocate(capacity: layout.isRequired.count)
        _ = isRequired.initialize(from: layout.isRequired)
        isUnorderedToMany = .allocate(capacity: layout.isUnorderedToMany.count)
        _ = isUnorderedToMany.initialize(from: layout.isUnorderedToMany)
        rows = .allocate(capacity: 1)
        rows.initialize(to: XMLEntityRows(entity: layout.entity))
    }

    deinit {
        readers.deallocate()
        internedNames.deallocate()
        canonicalNames.deallocate()
        canonicalCountStorage.deallocate()
        isRequired.deallocate()
        isUnorderedToMany.deallocate()
        rows.deinitialize(count: 1)
        rows.deallocate()
    }

    /// Learns the canonical order from the start tag `attributes` of an object just read, when
    /// it lists `_pk`, `_version` and every slot in order under interned names: later objects
    /// listed the same way take ``XMLLoadState/startCanonicalObject(reader:attributes:)``.
    func learnCanonicalOrder(_ attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>) {
        let count = readers.count + 2
        for i in 0..<count {
            let expected = i == 0 ? internedNames[keySlot] : i == 1 ? internedNames[versionSlot] : internedNames[i - 2]
            guard let expected, attributes[i * 5] == expected, attributes[i * 5 + 1] == nil else { return }
        }
        for i in 0..<count { canonicalNames[i] = attributes[i * 5] }
        canonicalCountStorage.pointee = count
    }

    /// Ends the object being read as row `row` (the number of objects read before it): every
    /// column it gave no value gets a null, and its key and version are recorded.
    /// `attributesGiven` and `relationshipsGiven` count the columns it filled. Returns the index
    /// of a required attribute it gave no value, recording nothing, or `nil`.
    @inline(__always)
    func finishRow(_ row: Int, attributesGiven: Int, relationshipsGiven: Int, key: Int64, version: Int64) -> Int? {
        if attributesGiven != rows.pointee.columns.count {
            let required = isRequired
            let missing: Int? = rows.pointee.columns.withUnsafeMutableBufferPointer { columns in
                for a in columns.indices where columns[a].count == row {
                    if required[a] { return a }
                    columns[a].appendNull(assumingUnique: true)
                }
                return nil
            }
            if let missing {
                discardRow(row)
                return missing
            }
        }
        if relationshipsGiven != rows.pointee.relationships.count {
            rows.pointee.relationships.withUnsafeMutableBufferPointer { relationships in
                for r in relationships.indices where relationships[r].count == row { relationships[r].appendNone() }
            }
        }
        rows.pointee.keys.append(key)
        rows.pointee.versions.appendAssumingUnique(version)
        if row == 255 { rows.pointee.reserveStringBytes() }
        return nil
    }

    /// Removes what was read of the object that would be row `row`.
    func discardRow(_ row: Int) {
        for a in rows.pointee.columns.indices { rows.pointee.columns[a].truncateAssumingUnique(to: row) }
        for r in rows.pointee.relationships.indices { rows.pointee.relationships[r].truncate(to: row) }
    }

    /// The objects read, as a table in file order; the reader is left
    /// empty.
    func takeTable() -> EntityTable {
        let read = rows.move()
        rows.initialize(to: XMLEntityRows(entity: layout.entity))
        return EntityTable(
            keys: read.keys,
            columns: EntityColumns(versions: read.versions, columns: read.columns, relationships: read.relationships))
    }
}
