import CStrataXML
import Foundation
import StrataCore

/// Writes a whole graph as an XML store file with libxml2's `xmlTextWriter`.
///
/// The output is canonical, so the same graph always gives the same bytes: the root element,
/// then `_meta` entries sorted by key, `_sequence` entries sorted by entity name, then one empty
/// element per object, one per line, sorted by entity name and then by primary key, with its
/// properties in declaration order (attributes, then relationships); nil values are left out.
/// Attribute values are escaped by Strata (`& < > "` and tab, line feed, carriage return as
/// character references; other text, UTF-8 included, is written as it is) and passed to
/// `xmlTextWriterWriteRawLen` inside `xmlTextWriterStartAttribute`/`EndAttribute`.
struct XMLStoreWriter {
    let layout: XMLModelLayout

    /// Writes `image` to the open file `fd` (not closed, not synced).
    ///
    /// - Throws: ``StrataError/Code/io`` when writing fails (disk full), naming `path` and `errno`.
    func write(_ image: XMLStoreImage, to fd: Int32, path: String) throws {
        _ = XMLLibrary.initialized
        let output = XMLFileOutput(fd: fd, path: path)
        try withExtendedLifetime(output) {
            let context = Unmanaged.passUnretained(output).toOpaque()
            guard
                let buffer = xmlOutputBufferCreateIO(
                    { ctx, bytes, length in
                        guard let ctx, let bytes else { return -1 }
                        return Unmanaged<XMLFileOutput>.fromOpaque(ctx).takeUnretainedValue().write(bytes, Int(length))
                    }, nil, context, nil)
            else {
                throw StrataError(
                    .io, "libxml2 could not create an output buffer for \(path)", location: ["path": path])
            }
            guard let writer = xmlNewTextWriter(buffer) else {
                xmlOutputBufferClose(buffer)
                throw StrataError(.io, "libxml2 could not create a text writer for \(path)", location: ["path": path])
            }
            var session = XMLWriterSession(writer: writer)
            let ok = session.document(image, layout: layout)
            xmlFreeTextWriter(writer)
            let flushed = output.flush()
            guard ok, flushed, output.errorNumber == 0 else {
                throw StrataError(
                    .io, "writing \(path) failed", location: ["path": path],
                    underlying: output.errorNumber != 0
                        ? String(cString: strerror(output.errorNumber)) : "xmlTextWriter reported an error")
            }
        }
    }
}

/// A buffered file descriptor that libxml2's output buffer writes into: 1 MiB writes instead of
/// libxml2's 4 KB ones.
final class XMLFileOutput {
    let fd: Int32
    /// The file's path (for ``XMLFileFaults``).
    let path: String
    private let capacity = 1 << 20
    private let buffer: UnsafeMutablePointer<UInt8>
    private var used = 0
    /// The `errno` of the first failed `write`, or 0.
    private(set) var errorNumber: Int32 = 0

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        buffer = .allocate(capacity: capacity)
    }

    deinit { buffer.deallocate() }

    /// Takes `length` bytes; returns `length`, or -1 after a failed write.
    func write(_ bytes: UnsafePointer<CChar>, _ length: Int) -> Int32 {
        guard errorNumber == 0 else { return -1 }
        if used + length > capacity {
            guard flush() else { return -1 }
        }
        if length >= capacity {
            return writeAll(UnsafeRawPointer(bytes), length) ? Int32(length) : -1
        }
        UnsafeMutableRawPointer(buffer + used).copyMemory(from: bytes, byteCount: length)
        used += length
        return Int32(length)
    }

    /// Writes out what is buffered; false after a failed write.
    func flush() -> Bool {
        guard errorNumber == 0 else { return false }
        defer { used = 0 }
        return used == 0 || writeAll(UnsafeRawPointer(buffer), used)
    }

    private func writeAll(_ bytes: UnsafeRawPointer, _ length: Int) -> Bool {
        var offset = 0
        if let fault = XMLFileFaults.due(.write, path: path) {
            if fault.short { _ = Foundation.write(fd, bytes, length / 2) }
            errorNumber = fault.errorNumber
            return false
        }
        while offset < length {
            let n = Foundation.write(fd, bytes + offset, length - offset)
            if n < 0 {
                if errno == EINTR { continue }
                errorNumber = errno
                return false
            }
            offset += n
        }
        return true
    }
}

/// The format's fixed names as NUL-terminated UTF-8 for libxml2 (they match ``XMLFormat``).
private enum Names {
    static let root: StaticString = "strata-store"
    static let meta: StaticString = "_meta"
    static let sequence: StaticString = "_sequence"
    static let primaryKey: StaticString = "_pk"
    static let version: StaticString = "_version"
    static let newline: StaticString = "\n"
}

/// One document being written; every call reports failure by returning false.
private struct XMLWriterSession {
    let writer: xmlTextWriterPtr
    /// Scratch space for escaped text.
    var scratch: [UInt8] = []

    init(writer: xmlTextWriterPtr) {
        self.writer = writer
        scratch.reserveCapacity(256)
    }

    mutating func document(_ image: XMLStoreImage, layout: XMLModelLayout) -> Bool {
        guard xmlTextWriterStartDocument(writer, "1.0", "UTF-8", nil) >= 0,
            xmlTextWriterStartElement(writer, Names.root.utf8Start) >= 0,
            attribute(XMLFormat.formatAttribute, String(XMLFormat.version)),
            attribute(XMLFormat.modelHashAttribute, image.metadata.modelVersionHash),
            attribute(XMLFormat.modelVersionAttribute, image.metadata.modelVersionIdentifier),
            attribute(XMLFormat.storeIdentifierAttribute, image.metadata.storeIdentifier),
            attribute(XMLFormat.modelAttribute, image.modelJSON),
            newline()
        else { return false }

        for key in image.metadata.userInfo.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            guard xmlTextWriterStartElement(writer, Names.meta.utf8Start) >= 0,
                attribute("key", key), attribute("value", image.metadata.userInfo[key]!),
                xmlTextWriterEndElement(writer) >= 0, newline()
            else { return false }
        }
        for e in layout.entityWriteOrder {
            guard xmlTextWriterStartElement(writer, Names.sequence.utf8Start) >= 0,
                attribute("entity", layout.entities[e].entity.name), attribute("next", String(image.nextKeys[e])),
                xmlTextWriterEndElement(writer) >= 0, newline()
            else { return false }
        }
        for e in layout.entityWriteOrder {
            let entityLayout = layout.entities[e]
            let table = image.tables[e]
            switch table.storage {
            case .rows(let rows):
                for i in 0..<table.count {
                    guard object(key: table.keys[i], row: rows[i], layout: entityLayout) else { return false }
                }
            case .columns(let columns):
                let written = columns.columns.withUnsafeBufferPointer { attributeColumns in
                    columns.relationships.withUnsafeBufferPointer { relationships in
                        for i in 0..<table.count {
                            guard
                                object(
                                    key: table.keys[i], version: columns.versions[i], i, columns: attributeColumns,
                                    relationships: relationships, layout: entityLayout)
                            else { return false }
                        }
                        return true
                    }
                }
                guard written else { return false }
            }
        }
        if !image.history.isEmpty {
            guard history(image.history) else { return false }
        }
        // xmlTextWriterEndDocument ends the file with the last line feed.
        return xmlTextWriterEndElement(writer) >= 0 && xmlTextWriterEndDocument(writer) >= 0
    }

    /// Writes `<_history>`, each element on a line of its own.
    mutating func history(_ history: XMLHistory) -> Bool {
        guard element(XMLFormat.historyElement, [("prunedThrough", String(history.prunedThrough))], children: nil),
            newline()
        else { return false }
        for entry in history.entries {
            guard element(entry.element) else { return false }
        }
        return xmlTextWriterEndElement(writer) >= 0 && newline()
    }

    /// Writes a history element and its children, then a line feed.
    mutating func element(_ element: XMLHistoryElement) -> Bool {
        guard self.element(element.name, element.attributes, children: element.children) else { return false }
        return xmlTextWriterEndElement(writer) >= 0 && newline()
    }

    /// Starts element `name` with `attributes` (escaped) and writes `children`, each on a line of
    /// its own; the caller ends it. With no children the element ends empty (`<name …/>`).
    mutating func element(_ name: String, _ attributes: [(name: String, value: String)], children: [XMLHistoryElement]?)
        -> Bool
    {
        let started = name.withCString { cName in
            cName.withMemoryRebound(to: UInt8.self, capacity: name.utf8.count + 1) {
                xmlTextWriterStartElement(writer, $0) >= 0
            }
        }
        guard started else { return false }
        for (attributeName, value) in attributes {
            guard attribute(attributeName, value) else { return false }
        }
        guard let children, !children.isEmpty else { return true }
        guard newline() else { return false }
        for child in children {
            guard element(child) else { return false }
        }
        return true
    }

    /// Writes an object kept as a row.
    mutating func object(key: Int64, row: StoredRow, layout: XMLEntityLayout) -> Bool {
        guard xmlTextWriterStartElement(writer, layout.cName) >= 0,
            integerAttribute(Names.primaryKey.utf8Start, key), integerAttribute(Names.version.utf8Start, row.version)
        else { return false }
        for slot in layout.slots {
            switch slot.kind {
            case .attribute(let a):
                guard value(row.attributes[a], name: slot.cName, base64Name: layout.base64Names[a]) else {
                    return false
                }
            case .relationship(let r):
                switch row.relationships[r] {
                case .toOne(nil):
                    continue
                case .toOne(let target?):
                    guard integerAttribute(slot.cName, target) else { return false }
                case .toMany(let targets):
                    guard targets.isEmpty || keyList(slot.cName, targets[...]) else { return false }
                }
            }
        }
        return xmlTextWriterEndElement(writer) >= 0 && newline()
    }

    /// Writes row `i` of columns `columns` and `relationships` (key `key`, version `version`).
    mutating func object(
        key: Int64, version: Int64, _ i: Int, columns: UnsafeBufferPointer<XMLColumn>,
        relationships: UnsafeBufferPointer<XMLRelationshipColumn>,
        layout: XMLEntityLayout
    ) -> Bool {
        guard xmlTextWriterStartElement(writer, layout.cName) >= 0,
            integerAttribute(Names.primaryKey.utf8Start, key), integerAttribute(Names.version.utf8Start, version)
        else { return false }
        for slot in layout.slots {
            switch slot.kind {
            case .attribute(let a):
                let column = columns.baseAddress! + a
                if column.pointee.isNull(i) { continue }
                switch column.pointee.storage {
                case .integers:
                    guard integerAttribute(slot.cName, column.pointee.integers[i]) else { return false }
                case .doubles:
                    guard raw(slot.cName, column.pointee.doubles[i].description) else { return false }
                case .strings:
                    guard
                        column.pointee.withUTF8(
                            at: i, { string(name: slot.cName, base64Name: layout.base64Names[a], $0) })
                    else { return false }
                case .values:
                    guard value(column.pointee.values[i], name: slot.cName, base64Name: layout.base64Names[a]) else {
                        return false
                    }
                }
            case .relationship(let r):
                let column = relationships.baseAddress! + r
                let targets = column.pointee.keys(at: i)
                if targets.isEmpty { continue }
                if !column.pointee.isToMany {
                    guard integerAttribute(slot.cName, targets[targets.startIndex]) else { return false }
                    continue
                }
                guard keyList(slot.cName, targets) else { return false }
            }
        }
        return xmlTextWriterEndElement(writer) >= 0 && newline()
    }

    /// A to-many's keys, separated by single spaces.
    func keyList(_ name: UnsafePointer<UInt8>, _ targets: ArraySlice<Int64>) -> Bool {
        var text = ""
        text.reserveCapacity(targets.count * 8)
        for (n, target) in targets.enumerated() {
            if n > 0 { text.append(" ") }
            text.append(String(target))
        }
        return raw(name, text)
    }

    /// A string attribute from its UTF-8 bytes: escaped, or in base64 under `base64Name` when XML
    /// cannot carry it.
    mutating func string(
        name: UnsafePointer<UInt8>, base64Name: UnsafePointer<UInt8>?, _ bytes: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        if let base64Name, !XMLFormat.isXMLSafe(bytes) {
            return raw(base64Name, Data(bytes).base64EncodedString())
        }
        return escapedAttribute(name, bytes)
    }

    mutating func value(_ value: Value, name: UnsafePointer<UInt8>, base64Name: UnsafePointer<UInt8>?) -> Bool {
        switch value {
        case .null:
            return true
        case .integer(let v):
            return integerAttribute(name, v)
        case .string(var s):
            return s.withUTF8 { string(name: name, base64Name: base64Name, $0) }
        case .uri(let url):
            var text = url.absoluteString
            return text.withUTF8 { escapedAttribute(name, $0) }
        default:
            return raw(name, XMLFormat.text(of: value))
        }
    }

    func newline() -> Bool { xmlTextWriterWriteRawLen(writer, Names.newline.utf8Start, 1) >= 0 }

    /// An attribute whose text needs no escaping (numbers, base64, keys).
    func raw(_ name: UnsafePointer<UInt8>, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard xmlTextWriterStartAttribute(writer, name) >= 0 else { return false }
            if bytes.count > 0, xmlTextWriterWriteRawLen(writer, bytes.baseAddress, Int32(bytes.count)) < 0 {
                return false
            }
            return xmlTextWriterEndAttribute(writer) >= 0
        }
    }

    func integerAttribute(_ name: UnsafePointer<UInt8>, _ value: Int64) -> Bool {
        raw(name, String(value))
    }

    mutating func attribute(_ name: String, _ text: String) -> Bool {
        var text = text
        return name.withCString { cName in
            cName.withMemoryRebound(to: UInt8.self, capacity: name.utf8.count + 1) { n in
                text.withUTF8 { escapedAttribute(n, $0) }
            }
        }
    }

    /// An attribute whose text is escaped: `&` `<` `>` `"` and tab, line feed, carriage return
    /// become references; everything else is written as it is.
    mutating func escapedAttribute(_ name: UnsafePointer<UInt8>, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard xmlTextWriterStartAttribute(writer, name) >= 0 else { return false }
        var runStart = 0
        for i in 0..<bytes.count {
            let replacement: StaticString
            switch bytes[i] {
            case 0x26: replacement = "&amp;"
            case 0x3C: replacement = "&lt;"
            case 0x3E: replacement = "&gt;"
            case 0x22: replacement = "&quot;"
            case 0x09: replacement = "&#9;"
            case 0x0A: replacement = "&#10;"
            case 0x0D: replacement = "&#13;"
            default: continue
            }
            if i > runStart, xmlTextWriterWriteRawLen(writer, bytes.baseAddress! + runStart, Int32(i - runStart)) < 0 {
                return false
            }
            if xmlTextWriterWriteRawLen(writer, replacement.utf8Start, Int32(replacement.utf8CodeUnitCount)) < 0 {
                return false
            }
            runStart = i + 1
        }
        if bytes.count > runStart,
            xmlTextWriterWriteRawLen(writer, bytes.baseAddress! + runStart, Int32(bytes.count - runStart)) < 0
        {
            return false
        }
        return xmlTextWriterEndAttribute(writer) >= 0
    }
}
