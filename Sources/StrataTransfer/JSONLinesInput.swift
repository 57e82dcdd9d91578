import Foundation
import StrataCore

/// Where an import reads its lines: bytes already in memory, or a file read in chunks, as many
/// times as the import has passes. A file must not change while it is imported.
enum JSONLinesInput {
    /// Bytes in memory.
    case data(Data)
    /// A file, read 1 MiB at a time.
    case file(URL)

    /// The input's size in bytes; `0` when a file's size cannot be read.
    var byteCount: Int {
        switch self {
        case .data(let data): return data.count
        case .file(let url):
            return ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
        }
    }

    /// One non-blank line, without its line ending.
    struct Line {
        /// The 1-based line number (blank lines count).
        var number: Int
        /// The byte offset of the line's first byte in the input.
        var offset: Int
        /// The line's bytes.
        var bytes: [UInt8]
    }

    /// Calls `body` with each non-blank line (a line of only spaces and tabs is blank; a final
    /// `\r` is dropped), in order. Memory: one chunk and one line.
    ///
    /// - Throws: ``StrataError/Code/io`` when the file cannot be read, and what `body` throws.
    func forEachLine(_ body: (Line) throws -> Void) throws {
        var splitter = LineSplitter()
        switch self {
        case .data(let data):
            try splitter.feed(Array(data), atEnd: true, body)
        case .file(let url):
            let handle: FileHandle
            do {
                handle = try FileHandle(forReadingFrom: url)
            } catch {
                throw StrataError(
                    .io, "cannot read \(url.path): \(error.localizedDescription)", location: ["file": url.path])
            }
            defer { try? handle.close() }
            while true {
                let chunk: Data
                do {
                    chunk = try handle.read(upToCount: 1 << 20) ?? Data()
                } catch {
                    throw StrataError(
                        .io, "cannot read \(url.path): \(error.localizedDescription)", location: ["file": url.path])
                }
                try splitter.feed(Array(chunk), atEnd: chunk.isEmpty, body)
                if chunk.isEmpty { break }
            }
        }
    }

    /// Cuts a stream of chunks into lines.
    private struct LineSplitter {
        /// Bytes not yet handed out: the start of an unfinished line.
        var pending: [UInt8] = []
        /// The input offset of `pending[0]`.
        var pendingOffset = 0
        var number = 0

        mutating func feed(_ chunk: [UInt8], atEnd: Bool, _ body: (Line) throws -> Void) throws {
            var scanFrom = pending.count
            pending += chunk
            var start = 0
            while let newline = pending[scanFrom...].firstIndex(of: 0x0A) {
                try emit(start..<newline, body)
                start = newline + 1
                scanFrom = start
            }
            if atEnd {
                if start < pending.count { try emit(start..<pending.count, body) }
                pending = []
            } else {
                pending.removeFirst(start)
                pendingOffset += start
            }
        }

        private mutating func emit(_ range: Range<Int>, _ body: (Line) throws -> Void) throws {
            number += 1
            var end = range.upperBound
            if end > range.lowerBound && pending[end - 1] == 0x0D { end -= 1 }
            if pending[range.lowerBound..<end].allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
            try body(
                Line(
                    number: number, offset: pendingOffset + range.lowerBound,
                    bytes: Array(pending[range.lowerBound..<end])))
        }
    }
}
