import CStrataXML
import Foundation
import StrataCore

/// Reads an XML store file with libxml2's streaming SAX2 parser: never a DOM, never Foundation's
/// parsers.
///
/// Safety: the parser runs with `XML_PARSE_NONET` and without `XML_PARSE_NOENT`,
/// `XML_PARSE_DTDLOAD`, `XML_PARSE_DTDATTR` and `XML_PARSE_HUGE`, so it substitutes no entity,
/// loads no DTD and keeps libxml2's size limits (10 MB per value). On top of that any `DOCTYPE`
/// stops the parse at once, before its internal subset is read: an external-entity (XXE) or a
/// billion-laughs file is rejected before any entity is declared, so nothing is fetched and no
/// expansion happens. Memory stays bounded by the file's own content.
///
/// Every problem becomes a ``StrataError`` with code ``StrataError/Code/storeCorrupt`` whose
/// `location` holds the file's `path` and the `line`.
enum XMLStoreReader {
    /// Loads the whole graph at `path`, checking it against `model` (the model version hash is
    /// checked first: a mismatch throws ``StrataError/Code/modelMismatch``).
    /// Returns the graph and the identity of the file read (taken from the open descriptor, so
    /// it is the version that was parsed even if another process replaces the file meanwhile).
    static func load(path: String, url: StoreURL, layout: XMLModelLayout, model: Model) throws -> (
        XMLStoreImage, XMLFileIdentity
    ) {
        let state = XMLLoadState(path: path, url: url, layout: layout, model: model, headerOnly: false)
        try state.run()
        return (try state.finish(), state.identity)
    }

    /// Reads only the root element's metadata (and the `_meta` entries, which follow it).
    static func metadata(path: String, url: StoreURL) throws -> StoreMetadata {
        try header(path: path, url: url).metadata
    }

    /// Reads only the root element: the metadata (with the `_meta` entries, which follow it) and
    /// the JSON of the model the store carries, if it carries one.
    static func header(path: String, url: StoreURL) throws -> (metadata: StoreMetadata, modelJSON: String?) {
        let state = XMLLoadState(path: path, url: url, layout: nil, model: nil, headerOnly: true)
        try state.run()
        guard let metadata = state.metadata else {
            throw StrataError(
                .storeCorrupt, "\(path) has no <\(XMLFormat.rootElement)> root element", location: ["path": path])
        }
        return (metadata, state.modelJSON)
    }
}

/// Bytes read from the store file and not yet handed to libxml2: `storage[start..<end]`.
struct XMLReadBuffer {
    /// The buffer (owned by ``XMLLoadState/run()``).
    let storage: UnsafeMutableRawBufferPointer
    /// The first byte not yet handed out.
    var start = 0
    /// The end of the bytes read.
    var end = 0
}

/// The state of one parse; the SAX callbacks reach it through libxml2's user-data pointer.
final class XMLLoadState {
    let path: String
    let url: StoreURL
    let layout: XMLModelLayout?
    let model: Model?
    let headerOnly: Bool

    var fd: Int32 = -1
    var readErrno: Int32 = 0
    /// The bytes read from ``fd`` and not yet handed to libxml2.
    var input = XMLReadBuffer(storage: UnsafeMutableRawBufferPointer(start: nil, count: 0))
    var context: xmlParserCtxtPtr?
    /// The first error found; the parser is stopped when it is set.
    var error: StrataError? { didSet { failed = error != nil } }
    /// Whether ``error`` is set (a plain flag: the per-element checks read it).
    var failed = false
    var firstParserError: (message: String, line: Int)?
    var stoppedAfterHeader = false
    var identity = XMLFileIdentity(device: 0, inode: 0, size: 0, modifiedSeconds: 0, modifiedNanoseconds: 0)

    var depth = 0
    var metadata: StoreMetadata?
    /// The root element's ``XMLFormat/modelAttribute``.
    var modelJSON: String?
    var userInfo: [String: String] = [:]
    var sequences: [Int64] = []
    /// The history read so far, and whether the parse is inside `<_history>`.
    var history = XMLHistory()
    var inHistory = false
    var sawHistory = false
    /// The history elements open below `<_history>`, outermost first.
    var openHistoryElements: [XMLHistoryElement] = []
    /// One reader per entity, indexed like the model (empty when reading only the header).
    let entityReaders: [XMLEntityReader]
    /// The interned element name of the last object read, and its entity's reader.
    var lastEntityName: UnsafePointer<UInt8>?
    var lastEntityReader: Unmanaged<XMLEntityReader>?
    /// ``XMLFormat/saxKeepsAmpersandReferences``, read once.
    let keepsAmpersandReferences = XMLFormat.saxKeepsAmpersandReferences
    /// A copy of ``XMLDoubleParser/powers`` (2 KiB), so that converting a double does not pay
    /// for the lazy global's check each time.
    let powerTable: UnsafeMutablePointer<(hi: UInt64, lo: UInt64)> = {
        let table = UnsafeMutablePointer<(hi: UInt64, lo: UInt64)>.allocate(capacity: XMLDoubleParser.powers.count)
        table.initialize(from: XMLDoubleParser.powers, count: XMLDoubleParser.powers.count)
        return table
    }()

    init(path: String, url: StoreURL, layout: XMLModelLayout?, model: Model?, headerOnly: Bool) {
        self.path = path
        self.url = url
        self.layout = layout
        self.model = model
        self.headerOnly = headerOnly
        sequences = Array(repeating: 1, count: layout?.entities.count ?? 0)
        entityReaders = layout?.entities.map(XMLEntityReader.init(layout:)) ?? []
    }

    // MARK: Running the parser

    func run() throws {
        // Never blocks (a FIFO at the path is refused, not waited on) and reads only a regular file.
        fd = try XMLStorePath.openRegularFile(path, flags: O_RDONLY, role: "XML store")
        // The descriptor stays open until the state goes away: ``lineOfObject(_:row:)`` parses
        // the same file again for a message found after the parse.
        var info = stat()
        if fstat(fd, &info) == 0 {
            identity = XMLFileIdentity(
                device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                modifiedSeconds: Int64(info.modificationTime.tv_sec),
                modifiedNanoseconds: Int64(info.modificationTime.tv_nsec))
        }

        var sax = xmlSAXHandler()
        sax.initialized = XML_SAX2_MAGIC
        sax.startElementNs = { ctx, localname, prefix, uri, namespaceCount, _, attributeCount, _, attributes in
            guard let ctx, let localname else { return }
            // The state outlives the parse (`withExtendedLifetime` below): no retain per element.
            Unmanaged<XMLLoadState>.fromOpaque(ctx)._withUnsafeGuaranteedRef {
                $0.startElement(
                    localname, prefix: prefix, uri: uri, namespaceCount: namespaceCount,
                    attributeCount: Int(attributeCount), attributes: attributes)
            }
        }
        sax.endElementNs = { ctx, _, _, _ in
            guard let ctx else { return }
            Unmanaged<XMLLoadState>.fromOpaque(ctx)._withUnsafeGuaranteedRef {
                if $0.inHistory { $0.endHistoryElement() }
                $0.depth -= 1
            }
        }
        sax.characters = { ctx, text, length in
            guard let ctx, let text else { return }
            Unmanaged<XMLLoadState>.fromOpaque(ctx)._withUnsafeGuaranteedRef { $0.characters(text, Int(length)) }
        }
        sax.cdataBlock = { ctx, _, _ in
            guard let ctx else { return }
            let state = Unmanaged<XMLLoadState>.fromOpaque(ctx).takeUnretainedValue()
            state.fail("CDATA sections are not part of the format")
        }
        sax.internalSubset = { ctx, _, _, _ in
            guard let ctx else { return }
            let state = Unmanaged<XMLLoadState>.fromOpaque(ctx).takeUnretainedValue()
            state.fail(
                "a DOCTYPE is not allowed in a store file (DTDs and entity declarations are refused: they are how XXE and billion-laughs attacks work)"
            )
        }
        sax.entityDecl = { ctx, _, _, _, _, _ in
            guard let ctx else { return }
            Unmanaged<XMLLoadState>.fromOpaque(ctx).takeUnretainedValue().fail("entity declarations are not allowed")
        }
        sax.getEntity = { _, _ in nil }
        sax.reference = { ctx, _ in
            guard let ctx else { return }
            Unmanaged<XMLLoadState>.fromOpaque(ctx).takeUnretainedValue().fail("entity references are not allowed")
        }
        sax.serror = { ctx, errorPointer in
            guard let ctx, let errorPointer else { return }
            let state = Unmanaged<XMLLoadState>.fromOpaque(ctx).takeUnretainedValue()
            let e = errorPointer.pointee
            guard e.level.rawValue >= XML_ERR_ERROR.rawValue, state.firstParserError == nil else { return }
            let message =
                e.message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "malformed XML"
            var line = Int(e.line)
            // At the end of a file that ends with a line feed (a root never closed), libxml2
            // counts the empty line after it: name the file's last line instead.
            if let input = state.context?.pointee.input?.pointee, let cur = input.cur, let base = input.base,
                cur == input.end, cur > base, cur[-1] == 0x0A, line > 1
            {
                line -= 1
            }
            state.firstParserError = (message, line)
        }

        // A pull parser reading through `readInput`, which serves libxml2's 4 KB requests from
        // 64 KiB reads of the descriptor already open (so the file parsed is the one whose
        // identity was taken, and there are few system calls; a larger buffer only takes more
        // of the core's cache from the parser and the columns it fills).
        let me = Unmanaged.passUnretained(self).toOpaque()
        let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { readBuffer.deallocate() }
        input = XMLReadBuffer(storage: readBuffer)
        guard
            let ctxt = xmlCreateIOParserCtxt(
                &sax, me,
                { ctx, out, length in
                    guard let ctx, let out, length > 0 else { return 0 }
                    return Unmanaged<XMLLoadState>.fromOpaque(ctx)._withUnsafeGuaranteedRef {
                        $0.readInput(into: out, capacity: Int(length))
                    }
                }, nil, me, XML_CHAR_ENCODING_NONE)
        else {
            throw StrataError(.io, "libxml2 could not create a parser for \(path)", location: ["path": path])
        }
        defer { xmlFreeParserCtxt(ctxt) }
        context = ctxt
        xmlCtxtUseOptions(ctxt, Int32(XML_PARSE_NONET.rawValue))
        let status = withExtendedLifetime(self) { xmlParseDocument(ctxt) }
        context = nil

        if let error { throw error }
        if stoppedAfterHeader { return }
        if readErrno != 0 {
            throw StrataError(
                .io, "reading \(path) failed", location: ["path": path],
                underlying: String(cString: strerror(readErrno)))
        }
        if status != 0 || ctxt.pointee.wellFormed == 0 {
            let (message, line) = firstParserError ?? ("malformed XML", Int(xmlSAX2GetLineNumber(ctxt)))
            throw StrataError(
                .storeCorrupt, "\(path) is not well-formed XML at line \(line): \(message)",
                location: ["path": path, "line": String(line)])
        }
        if metadata == nil {
            throw StrataError(
                .storeCorrupt, "\(path) has no <\(XMLFormat.rootElement)> root element", location: ["path": path])
        }
    }

    /// Copies up to `capacity` bytes of the file into `out` for libxml2; returns the number of
    /// bytes copied, 0 at the end of the file, or -1 after a read error (kept in ``readErrno``).
    func readInput(into out: UnsafeMutablePointer<CChar>, capacity: Int) -> Int32 {
        if input.start == input.end {
            var n: Int
            repeat { n = read(fd, input.storage.baseAddress, input.storage.count) } while n < 0 && errno == EINTR
            if n < 0 {
                readErrno = errno
                return -1
            }
            input.start = 0
            input.end = n
            if n == 0 { return 0 }
        }
        let count = min(capacity, input.end - input.start)
        UnsafeMutableRawPointer(out).copyMemory(from: input.storage.baseAddress! + input.start, byteCount: count)
        input.start += count
        return Int32(count)
    }

    /// The line of the start tag of the object of entity `e` read as row `row` (in file order),
    /// found by parsing the file again (``XMLLineFinder``); 0 if it cannot be found.
    func lineOfObject(_ e: Int, row: Int) -> Int {
        guard let layout, fd >= 0 else { return 0 }
        return XMLLineFinder.line(ofObject: row, entityName: layout.entities[e].entity.name, fd: fd) ?? 0
    }

    /// The line the parser is at (the end of the current start tag).
    var line: Int { context.map { Int(xmlSAX2GetLineNumber($0)) } ?? 0 }

    /// Records the first error, with the current line, and stops the parser.
    func fail(_ message: String, code: StrataError.Code = .storeCorrupt, entity: String? = nil, key: String? = nil) {
        guard !failed else { return }
        let line = self.line
        var location = ["path": path, "line": String(line)]
        if let entity { location["entity"] = entity }
        if let key { location["key"] = key }
        error = StrataError(code, "\(path), line \(line): \(message)", location: location)
        if let context { xmlStopParser(context) }
    }

    // MARK: Elements

    func startElement(
        _ localname: UnsafePointer<UInt8>, prefix: UnsafePointer<UInt8>?, uri: UnsafePointer<UInt8>?,
        namespaceCount: Int32, attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    ) {
        guard !failed else { return }
        depth += 1
        if prefix != nil || uri != nil || namespaceCount > 0 {
            return fail("element <\(String(cString: localname))> uses an XML namespace; the format has none")
        }
        switch depth {
        case 1:
            startRoot(localname, attributeCount: attributeCount, attributes: attributes)
        case 2:
            guard !headerOnly || localname[0] == UInt8(ascii: "_") else {
                stoppedAfterHeader = true
                if let context { xmlStopParser(context) }
                return
            }
            if localname[0] == UInt8(ascii: "_") {
                startInternal(localname, attributeCount: attributeCount, attributes: attributes)
            } else {
                startObject(localname, attributeCount: attributeCount, attributes: attributes)
            }
        default:
            guard inHistory else {
                return fail(
                    "element <\(String(cString: localname))> is nested inside an object; object elements are empty")
            }
            startHistoryElement(localname, attributeCount: attributeCount, attributes: attributes)
        }
    }

    func characters(_ text: UnsafePointer<UInt8>, _ length: Int) {
        guard !failed else { return }
        for i in 0..<length {
            let c = text[i]
            if c != 0x20 && c != 0x0A && c != 0x09 && c != 0x0D {
                return fail(
                    "unexpected text \"\(String(decoding: UnsafeBufferPointer(start: text, count: min(length, 40)), as: UTF8.self))\"; values are written as XML attributes"
                )
            }
        }
    }

    /// The `index`-th attribute of a start tag: name, value bytes, and whether it has a prefix.
    @inline(__always)
    /// `decode`: turn `&#38;` back into `&` (see ``XMLFormat/saxKeepsAmpersandReferences``);
    /// only text that may hold `&` needs it (numbers, keys and base64 cannot, and fail to parse
    /// if they do).
    func attribute(_ attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>, _ index: Int, decode: Bool = true) -> (
        name: UnsafePointer<UInt8>, value: UnsafeBufferPointer<UInt8>, prefixed: Bool
    ) {
        let base = attributes + index * 5
        let start = base[3]!
        let end = base[4]!
        var value = UnsafeBufferPointer(start: start, count: end - start)
        if decode && keepsAmpersandReferences && memchr(start, 0x26, end - start) != nil {
            value = decodeAmpersands(value)
        }
        return (base[0]!, value, base[1] != nil)
    }

    /// Scratch space for values whose `&#38;` libxml2 left in place (see
    /// ``XMLFormat/saxKeepsAmpersandReferences``); valid until the next call.
    private var decoded: UnsafeMutableBufferPointer<UInt8> = .init(start: nil, count: 0)

    deinit {
        decoded.deallocate()
        powerTable.deallocate()
        if fd >= 0 { close(fd) }
    }

    /// `value` with every `&#38;` turned back into `&`.
    func decodeAmpersands(_ value: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        if decoded.count < value.count {
            decoded.deallocate()
            decoded = .allocate(capacity: max(value.count, 256))
        }
        var out = 0
        var i = 0
        while i < value.count {
            if value[i] == 0x26 && i + 4 < value.count && value[i + 1] == 0x23 && value[i + 2] == 0x33
                && value[i + 3] == 0x38 && value[i + 4] == 0x3B
            {
                decoded[out] = 0x26
                i += 5
            } else {
                decoded[out] = value[i]
                i += 1
            }
            out += 1
        }
        return UnsafeBufferPointer(start: decoded.baseAddress, count: out)
    }

    func startRoot(
        _ localname: UnsafePointer<UInt8>, attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    ) {
        let name = String(cString: localname)
        guard name == XMLFormat.rootElement else {
            return fail(
                "the root element is <\(name)>; a Strata XML store's root element is <\(XMLFormat.rootElement)>")
        }
        var format: String?
        var hash: String?
        var version: String?
        var identifier: String?
        for i in 0..<attributeCount {
            let (n, v, prefixed) = attribute(attributes!, i)
            let key = String(cString: n)
            let value = String(decoding: v, as: UTF8.self)
            if prefixed { return fail("root attribute '\(key)' has a namespace prefix") }
            switch key {
            case XMLFormat.formatAttribute: format = value
            case XMLFormat.modelHashAttribute: hash = value
            case XMLFormat.modelVersionAttribute: version = value
            case XMLFormat.storeIdentifierAttribute: identifier = value
            case XMLFormat.modelAttribute: modelJSON = value
            default: return fail("unknown root attribute '\(key)'")
            }
        }
        guard let format else { return fail("the root element has no '\(XMLFormat.formatAttribute)' attribute") }
        guard format == String(XMLFormat.version) else {
            return fail(
                "format version '\(format)' is not supported; this version of Strata reads format \(XMLFormat.version)",
                code: .unsupported)
        }
        guard let hash, hash.utf8.count == 64 else {
            return fail("the root element has no valid '\(XMLFormat.modelHashAttribute)' (64 hex digits)")
        }
        guard let identifier, StoreIdentifier.isValid(identifier) else {
            return fail(
                "the root element has no valid '\(XMLFormat.storeIdentifierAttribute)' (1 to 128 characters of A-Z a-z 0-9 - _ .)"
            )
        }
        let found = StoreMetadata(
            storeIdentifier: identifier, storeType: XMLBackend.schemeName, modelVersionHash: hash,
            modelVersionIdentifier: version ?? "")
        metadata = found
        if let model {
            do { try found.checkCompatible(with: model, at: url) } catch let mismatch as StrataError {
                error = mismatch
                if let context { xmlStopParser(context) }
            } catch {}
        }
    }

    func startInternal(
        _ localname: UnsafePointer<UInt8>, attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?
    ) {
        let name = String(cString: localname)
        var values: [String: String] = [:]
        for i in 0..<attributeCount {
            let (n, v, _) = attribute(attributes!, i)
            values[String(cString: n)] = String(decoding: v, as: UTF8.self)
        }
        switch name {
        case XMLFormat.metaElement:
            guard let key = values["key"], let value = values["value"], values.count == 2 else {
                return fail("<\(name)> needs exactly the attributes 'key' and 'value'")
            }
            guard userInfo[key] == nil else { return fail("metadata key '\(key)' appears twice") }
            userInfo[key] = value
            metadata?.userInfo[key] = value
        case XMLFormat.sequenceElement:
            if headerOnly { return }
            guard let entityName = values["entity"], let nextText = values["next"], values.count == 2 else {
                return fail("<\(name)> needs exactly the attributes 'entity' and 'next'")
            }
            guard let e = layout?.entityIndexByName[entityName] else {
                return fail("<\(name)> names entity '\(entityName)', which the model does not have", entity: entityName)
            }
            guard let next = Int64(nextText), next >= 1 else {
                return fail(
                    "<\(name)> for '\(entityName)' has next='\(nextText)', which is not a key >= 1", entity: entityName)
            }
            sequences[e] = next
        case XMLFormat.historyElement:
            if headerOnly {
                stoppedAfterHeader = true
                if let context { xmlStopParser(context) }
                return
            }
            startHistory(values)
        default:
            fail(
                "unknown element <\(name)>; names starting with '_' are reserved for the store (\(XMLFormat.metaElement), \(XMLFormat.sequenceElement), \(XMLFormat.historyElement))"
            )
        }
    }

    // MARK: Finishing

    /// Sorts tables when the file listed objects out of order, rejects duplicate keys,
    /// references to objects that do not exist and relationships that disagree with their
    /// inverses (``XMLRelationshipCheck``), and builds the image.
    func finish() throws -> XMLStoreImage {
        guard let layout, let model, var metadata else {
            throw StrataError(
                .storeCorrupt, "\(path) has no <\(XMLFormat.rootElement)> root element", location: ["path": path])
        }
        metadata.userInfo = userInfo
        var image = XMLStoreImage(metadata: metadata, model: model)
        image.history = history
        // For each entity read out of key order, the file position of each sorted row.
        var fileOrders = Array(repeating: [Int]?.none, count: layout.entities.count)
        for e in layout.entities.indices {
            let reader = entityReaders[e]
            var table = reader.takeTable()
            if !table.isSorted {
                let keys = table.keys
                let order = keys.indices.sorted { keys[$0] < keys[$1] || (keys[$0] == keys[$1] && $0 < $1) }
                for i in order.indices.dropFirst() where keys[order[i]] == keys[order[i - 1]] {
                    let entityName = layout.entities[e].entity.name
                    // `order[i - 1]` comes first in the file (equal keys keep their file order).
                    let line = lineOfObject(e, row: order[i])
                    let earlier = lineOfObject(e, row: order[i - 1])
                    throw StrataError(
                        .storeCorrupt,
                        "\(path), line \(line): <\(entityName) _pk=\"\(keys[order[i]])\"> appears twice (also at line \(earlier))",
                        location: ["path": path, "line": String(line), "entity": entityName])
                }
                table = table.permuted(order)
                fileOrders[e] = order
            }
            image.tables[e] = table
            // A key of Int64.max leaves no key to hand out, rather than overflowing.
            let largest = table.largestKey ?? 0
            image.nextKeys[e] = max(sequences[e], largest == .max ? .max : largest + 1)
        }
        if let problem = XMLRelationshipCheck(layout: layout, tables: image.tables).firstProblem() {
            let entity = layout.entities[problem.entity].entity
            let line = lineOfObject(problem.entity, row: fileOrders[problem.entity]?[problem.row] ?? problem.row)
            throw StrataError(
                .storeCorrupt, "\(path), line \(line): \(problem.message)",
                location: [
                    "path": path, "line": String(line), "entity": entity.name,
                    "key": String(image.tables[problem.entity].keys[problem.row]),
                    "relationship": entity.relationships[problem.relationship].name,
                ])
        }
        return image
    }
}

extension XMLFormat {
    /// Whether the linked libxml2 hands SAX2 attribute values with `&amp;` and `&#38;` left as
    /// `&#38;` when entity substitution is off (libxml2 2.9 does; it expects a DOM builder to
    /// decode them later). Probed once with a tiny document, so the reader decodes them exactly
    /// when needed, whatever the libxml2 version.
    static let saxKeepsAmpersandReferences: Bool = {
        final class Probe { var value: [UInt8] = [] }
        let probe = Probe()
        var sax = xmlSAXHandler()
        sax.initialized = XML_SAX2_MAGIC
        sax.startElementNs = { ctx, _, _, _, _, _, attributeCount, _, attributes in
            guard let ctx, let attributes, attributeCount > 0, let start = attributes[3], let end = attributes[4] else {
                return
            }
            Unmanaged<Probe>.fromOpaque(ctx).takeUnretainedValue().value = Array(
                UnsafeBufferPointer(start: start, count: end - start))
        }
        sax.serror = { _, _ in }
        let document = Array("<a b=\"&amp;\"/>".utf8CString)
        withExtendedLifetime(probe) {
            let me = Unmanaged.passUnretained(probe).toOpaque()
            guard let ctxt = xmlCreatePushParserCtxt(&sax, me, nil, 0, nil) else { return }
            xmlCtxtUseOptions(ctxt, Int32(XML_PARSE_NONET.rawValue))
            document.withUnsafeBufferPointer { _ = xmlParseChunk(ctxt, $0.baseAddress, Int32($0.count - 1), 1) }
            xmlFreeParserCtxt(ctxt)
        }
        return probe.value != [0x26]
    }()
}
