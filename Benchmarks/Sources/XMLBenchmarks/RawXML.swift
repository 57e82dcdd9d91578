import BenchmarkSupport
import CStrataXML
import Foundation

/// The baselines: the same file written with `xmlTextWriter` directly, and parsed with a plain
/// libxml2 SAX2 parse, with no Strata code in between.
enum RawXML {
    /// Writes the workload as an XML store file (the same bytes XMLStore writes) with
    /// `xmlTextWriterWriteAttribute`, with the same durability as a store save: temporary file,
    /// fsync, rename, fsync of the directory.
    static func write(
        _ records: [WorkloadRecord], to path: String, header: (hash: String, version: String, identifier: String)
    ) {
        let temporary = path + ".raw-tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        precondition(fd >= 0, "cannot create \(temporary)")
        let buffer = xmlOutputBufferCreateFd(fd, nil)
        let writer = xmlNewTextWriter(buffer)!
        func attribute(_ name: String, _ value: String) {
            _ = name.withCString { n in
                value.withCString { v in
                    xmlTextWriterWriteAttribute(
                        writer, UnsafeRawPointer(n).assumingMemoryBound(to: UInt8.self),
                        UnsafeRawPointer(v).assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        func element(_ name: String) {
            _ = name.withCString {
                xmlTextWriterStartElement(writer, UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self))
            }
        }
        func newline() { _ = xmlTextWriterWriteRaw(writer, Array("\n".utf8) + [0]) }
        xmlTextWriterStartDocument(writer, "1.0", "UTF-8", nil)
        element("strata-store")
        attribute("format", "1")
        attribute("modelHash", header.hash)
        attribute("modelVersion", header.version)
        attribute("storeIdentifier", header.identifier)
        newline()
        element("_sequence")
        attribute("entity", "Record")
        attribute("next", String(records.count + 1))
        xmlTextWriterEndElement(writer)
        newline()
        for r in records {
            element("Record")
            attribute("_pk", String(r.id))
            attribute("_version", "1")
            attribute("i1", String(r.i1))
            attribute("i2", String(r.i2))
            attribute("i3", String(r.i3))
            attribute("d1", r.d1.description)
            attribute("d2", r.d2.description)
            attribute("d3", r.d3.description)
            attribute("s1", r.s1)
            attribute("s2", r.s2)
            attribute("s3", r.s3)
            xmlTextWriterEndElement(writer)
            newline()
        }
        xmlTextWriterEndElement(writer)
        xmlTextWriterEndDocument(writer)
        xmlFreeTextWriter(writer)
        precondition(fsync(fd) == 0)
        close(fd)
        precondition(rename(temporary, path) == 0)
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY)
        _ = fsync(directory)
        close(directory)
    }

    /// Parses `path` with libxml2's SAX2 parser and a handler that only counts start tags.
    static func parse(_ path: String) -> Int {
        final class Counter { var elements = 0 }
        let counter = Counter()
        var sax = xmlSAXHandler()
        sax.initialized = XML_SAX2_MAGIC
        sax.startElementNs = { ctx, _, _, _, _, _, _, _, _ in
            Unmanaged<Counter>.fromOpaque(ctx!).takeUnretainedValue().elements += 1
        }
        let status = withExtendedLifetime(counter) {
            xmlSAXUserParseFile(&sax, Unmanaged.passUnretained(counter).toOpaque(), path)
        }
        precondition(status == 0, "SAX parse of \(path) failed")
        return counter.elements
    }
}
