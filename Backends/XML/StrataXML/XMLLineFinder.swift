import CStrataXML
import Foundation

/// Finds the line of one object's start tag in a store file the loader has read, by parsing the
/// file again up to that object: a load keeps no line per object (400 KB written for 100,000
/// objects, for messages that are almost never needed), so the few messages that name an object
/// after the parse (a key given twice, a reference to a missing object) find its line this way.
///
/// It reads the descriptor the load read (from offset 0, with `pread`), so it parses the same
/// file, with the same options and the same refusals (no DTD, no entity, no network). The line is
/// the one libxml2 reports at the start tag, as the loader's own messages give it.
final class XMLLineFinder {
    private let fd: Int32
    private var offset: off_t = 0
    private let entityName: [CChar]
    private let target: Int
    private var depth = 0
    private var seen = 0
    private var found: Int?
    private var context: xmlParserCtxtPtr?

    private init(fd: Int32, entityName: String, target: Int) {
        self.fd = fd
        self.entityName = Array(entityName.utf8CString)
        self.target = target
    }

    /// The line of the start tag of the `index`-th element (from 0, in file order) named
    /// `entityName` directly inside the root of the file open at `fd`, or `nil` when the file
    /// does not have it (it was changed in place since the load).
    static func line(ofObject index: Int, entityName: String, fd: Int32) -> Int? {
        let finder = XMLLineFinder(fd: fd, entityName: entityName, target: index)
        return withExtendedLifetime(finder) { finder.run() }
    }

    private func run() -> Int? {
        var sax = xmlSAXHandler()
        sax.initialized = XML_SAX2_MAGIC
        sax.startElementNs = { ctx, localname, _, _, _, _, _, _, _ in
            guard let ctx, let localname else { return }
            Unmanaged<XMLLineFinder>.fromOpaque(ctx).takeUnretainedValue().start(localname)
        }
        sax.endElementNs = { ctx, _, _, _ in
            guard let ctx else { return }
            Unmanaged<XMLLineFinder>.fromOpaque(ctx).takeUnretainedValue().depth -= 1
        }
        sax.internalSubset = { ctx, _, _, _ in
            guard let ctx else { return }
            Unmanaged<XMLLineFinder>.fromOpaque(ctx).takeUnretainedValue().stop()
        }
        sax.getEntity = { _, _ in nil }
        sax.serror = { _, _ in }
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard
            let ctxt = xmlCreateIOParserCtxt(
                &sax, me,
                { ctx, out, length in
                    guard let ctx, let out, length > 0 else { return 0 }
                    return Unmanaged<XMLLineFinder>.fromOpaque(ctx).takeUnretainedValue().read(
                        into: out, capacity: Int(length))
                }, nil, me, XML_CHAR_ENCODING_NONE)
        else { return nil }
        defer { xmlFreeParserCtxt(ctxt) }
        context = ctxt
        xmlCtxtUseOptions(ctxt, Int32(XML_PARSE_NONET.rawValue))
        _ = xmlParseDocument(ctxt)
        context = nil
        return found
    }

    private func start(_ localname: UnsafePointer<UInt8>) {
        depth += 1
        guard depth == 2, found == nil else { return }
        let matches = entityName.withUnsafeBufferPointer {
            strcmp(UnsafeRawPointer(localname).assumingMemoryBound(to: CChar.self), $0.baseAddress!) == 0
        }
        guard matches else { return }
        if seen == target {
            found = context.map { Int(xmlSAX2GetLineNumber($0)) }
            stop()
        }
        seen += 1
    }

    private func stop() {
        if let context { xmlStopParser(context) }
    }

    private func read(into out: UnsafeMutablePointer<CChar>, capacity: Int) -> Int32 {
        var n: Int
        repeat { n = pread(fd, out, capacity, offset) } while n < 0 && errno == EINTR
        guard n >= 0 else { return -1 }
        offset += off_t(n)
        return Int32(n)
    }
}
